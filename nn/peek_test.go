package nn

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPeekCheckpointGame(t *testing.T) {
	w, err := NewWeights(Config{Filters: 4, Blocks: 1, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 4},
		Shape{Planes: 3, Height: 6, Width: 6, Actions: 37}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a.tbn")
	if err := SaveCheckpoint(path, &Checkpoint{Game: "othello:size=6", Weights: w}); err != nil {
		t.Fatal(err)
	}
	got, err := PeekCheckpointGame(path)
	if err != nil || got != "othello:size=6" {
		t.Fatalf("PeekCheckpointGame = %q, %v; want othello:size=6", got, err)
	}
	bad := filepath.Join(dir, "bad.tbn")
	if err := os.WriteFile(bad, []byte("not a checkpoint at all, no"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := PeekCheckpointGame(bad); err == nil || !strings.Contains(err.Error(), "not a tabula checkpoint") {
		t.Fatalf("PeekCheckpointGame(garbage) = %v, want not a tabula checkpoint", err)
	}
	if _, err := PeekCheckpointGame(filepath.Join(dir, "missing.tbn")); err == nil {
		t.Fatal("PeekCheckpointGame(missing) succeeded")
	}
}
