package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tabula/internal/atomicfile"
	"tabula/nn"
)

// TestRefusedTrainerTouchesNothing: a second trainer on a folder in use is
// refused before it changes anything there, stale temporary files included
// (it cannot know which of them the running trainer is writing).
func TestRefusedTrainerTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	cfg := smoke(t, dir)
	a, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	old := time.Now().Add(-2 * atomicfile.StaleAge)
	var temps []string
	for _, p := range []string{
		filepath.Join(dir, checkpointDir, ".ckpt-000001.tbn.123"+atomicfile.TempSuffix), // in flight
		filepath.Join(dir, checkpointDir, ".best.456"+atomicfile.TempSuffix),            // abandoned
		filepath.Join(dir, replayDir, ".chunk-1-train-000001.tbr.7"+atomicfile.TempSuffix),
	} {
		if err := os.WriteFile(p, []byte("half written"), 0o644); err != nil {
			t.Fatal(err)
		}
		temps = append(temps, p)
	}
	os.Chtimes(temps[1], old, old)
	before, _ := os.ReadFile(filepath.Join(dir, configFile))
	for i := 0; i < 3; i++ {
		other := smoke(t, dir, "seed=99")
		if _, err := New(other, Options{}); err == nil || !strings.Contains(err.Error(), "in use") {
			t.Fatalf("a second trainer on the same folder: %v", err)
		}
	}
	for _, p := range temps {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the refused trainer removed %s: %v", filepath.Base(p), err)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, configFile)); string(after) != string(before) {
		t.Errorf("the refused trainer rewrote %s", configFile)
	}
}

// TestWorkerLeavesOthersTempsAlone: cmd/selfplay opening the replay folder
// beside a trainer must not delete the trainer's chunk being written.
func TestWorkerLeavesOthersTempsAlone(t *testing.T) {
	dir := t.TempDir()
	runOnce(t, smoke(t, dir, "iterations=1", "ladder.every=0", "bench.every=0"))
	inFlight := filepath.Join(dir, replayDir, ".chunk-00000000000000000001-train-000099.tbr.42"+atomicfile.TempSuffix)
	if err := os.WriteFile(inFlight, []byte("half a chunk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RunWorker(context.Background(), dir, WorkerOptions{ID: "extra", Games: 1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(inFlight); err != nil {
		t.Fatalf("the worker removed another process's chunk in flight: %v", err)
	}
}

// TestCorruptOrMissingBestFallsBack: a best checkpoint damaged from outside
// (a flipped byte, a pointer to a missing file, a garbled pointer) does not
// make the run unrecoverable: it resumes from the newest promoted checkpoint
// that still loads, and says so.
func TestCorruptOrMissingBestFallsBack(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"ladder.every=0", "bench.every=0", "gate.games=0"} // every candidate is promoted
	runOnce(t, smoke(t, dir, append(sets, "iterations=2")...))
	ck := func(i int) string { return filepath.Join(dir, checkpointDir, fmt.Sprintf("ckpt-%06d.tbn", i)) }
	if b, _ := readBest(dir); b != ck(2) {
		t.Fatalf("best = %s, want %s", b, ck(2))
	}
	data, err := os.ReadFile(ck(2))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x01
	os.WriteFile(ck(2), data, 0o644)

	var logs strings.Builder
	cfg := smoke(t, dir, append(sets, "iterations=3")...)
	tr, err := New(cfg, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("resuming with a corrupt best: %v", err)
	}
	if tr.best() != ck(1) {
		t.Fatalf("best after a corrupt %s = %s, want the newest readable promoted %s", ck(2), tr.best(), ck(1))
	}
	if !strings.Contains(logs.String(), "falling back") {
		t.Errorf("the fallback is not logged:\n%s", logs.String())
	}
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if _, err := nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, bestWeightsFile)); err != nil {
		t.Fatalf("weights-only copy: %v", err)
	}

	for _, pointer := range []string{"ckpt-000099.tbn\n", "garbage\n"} {
		os.WriteFile(filepath.Join(dir, checkpointDir, bestFile), []byte(pointer), 0o644)
		tr, err := New(smoke(t, dir, append(sets, "iterations=3")...), Options{})
		if err != nil {
			t.Fatalf("best = %q: %v", pointer, err)
		}
		if tr.best() != ck(3) {
			t.Errorf("best = %q: fell back to %s, want %s", pointer, tr.best(), ck(3))
		}
		tr.Close()
		if b, _ := readBest(dir); b != ck(3) {
			t.Errorf("best = %q: the pointer now names %s, want %s", pointer, b, ck(3))
		}
	}
}
