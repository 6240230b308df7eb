package mcts

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games/gamestest"
)

// TestRefusesChance checks that PUCT, UCT and self-play refuse a game of
// chance with an error that names it: self-play at construction, the
// players (which are built without a game) at their first move.
func TestRefusesChance(t *testing.T) {
	g := gamestest.DiceRace()
	rng := rand.New(rand.NewPCG(1, 2))
	if _, err := NewSelfPlay(DefaultConfig(), g, UniformEvaluator{}, rng); err == nil || !strings.Contains(err.Error(), "chance") {
		t.Errorf("NewSelfPlay: err = %v, want a refusal naming chance", err)
	}
	s, err := NewSearch(DefaultConfig(), UniformEvaluator{}, rng)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), g.NewInitialState()); err == nil || !strings.Contains(err.Error(), "chance") {
		t.Errorf("Search.Run: err = %v", err)
	}
	u, err := NewUCT(DefaultUCTConfig(), rng)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.ChooseAction(context.Background(), g.NewInitialState()); err == nil || !strings.Contains(err.Error(), "chance") {
		t.Errorf("UCT.ChooseAction: err = %v", err)
	}
}
