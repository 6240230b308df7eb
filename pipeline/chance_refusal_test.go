package pipeline

import (
	"strings"
	"testing"

	"tabula/games/gamestest"
)

// TestRefusesChance checks that a run of a game of chance is refused when it
// is opened, before anything is written.
func TestRefusesChance(t *testing.T) {
	dir := t.TempDir()
	cfg := smoke(t, dir, "game="+gamestest.DiceRace().Name(), "bench.every=0", "ladder.players=[random]")
	if _, err := New(cfg, Options{}); err == nil || !strings.Contains(err.Error(), "chance") {
		t.Fatalf("New: err = %v, want a refusal naming chance", err)
	}
}
