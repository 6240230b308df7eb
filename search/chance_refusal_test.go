package search

import (
	"strings"
	"testing"

	"tabula/games/gamestest"
)

// TestRefusesChance checks that every search here refuses a game of chance
// up front, with an error that names the game's chance nodes.
func TestRefusesChance(t *testing.T) {
	g := gamestest.DiceRace()
	if _, err := New(g, DefaultConfig()); err == nil || !strings.Contains(err.Error(), "chance") {
		t.Errorf("New on a game of chance: err = %v, want a refusal naming chance", err)
	}
	if _, _, err := Minimax(g.NewInitialState(), 2); err == nil || !strings.Contains(err.Error(), "chance") {
		t.Errorf("Minimax on a game of chance: err = %v", err)
	}
	if _, _, err := AlphaBeta(g.NewInitialState(), 2); err == nil || !strings.Contains(err.Error(), "chance") {
		t.Errorf("AlphaBeta on a game of chance: err = %v", err)
	}
}
