package mcts

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games/gamestest"
)

// TestChanceNodeRoot checks that PUCT and UCT search games of chance but
// refuse a chance node as the position to move in, with an error naming it.
func TestChanceNodeRoot(t *testing.T) {
	g := gamestest.DiceRace()
	rng := rand.New(rand.NewPCG(1, 2))
	s, err := NewSearch(DefaultConfig(), UniformEvaluator{}, rng)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), g.NewInitialState()); err == nil || !strings.Contains(err.Error(), "chance") {
		t.Errorf("Search.Run at a chance node: err = %v, want an error naming it", err)
	}
	u, err := NewUCT(DefaultUCTConfig(), rng)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.ChooseAction(context.Background(), g.NewInitialState()); err == nil || !strings.Contains(err.Error(), "chance") {
		t.Errorf("UCT.ChooseAction at a chance node: err = %v, want an error naming it", err)
	}
}

// TestUCTChance checks UCT on a game of chance: below a move, the chance
// node's outcomes are visited in proportion to their probabilities, and the
// search finds the better move of a decision whose answer is clear.
func TestUCTChance(t *testing.T) {
	g := gamestest.DiceRace()
	u, err := NewUCT(UCTConfig{Rollouts: 6000, C: 1.4}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	// Roll a 3 (outcome 2): adding the roll (action 0) beats adding 1.
	s := g.NewInitialState()
	s.ApplyAction(2)
	a, err := u.ChooseAction(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if a != 0 {
		t.Errorf("with a roll of 3, UCT added 1 instead of 3")
	}
	tr := &u.t
	root := tr.nodes[0]
	for _, e := range tr.edges[root.first : root.first+root.count] {
		c := tr.nodes[e.child]
		if !c.chance || c.player != 1 {
			t.Fatalf("the node after a move is not a chance node of player 1's roll: %+v", c)
		}
		want := []float64{1.0 / 2, 1.0 / 3, 1.0 / 6}
		total := 0
		for _, ce := range tr.edges[c.first : c.first+c.count] {
			total += int(ce.n)
		}
		for k, ce := range tr.edges[c.first : c.first+c.count] {
			got := float64(ce.n) / float64(total)
			if math.Abs(got-want[k]) > 0.05+3*math.Sqrt(want[k]/float64(total)) {
				t.Errorf("outcome %d visited %.3f of %d times, want %.3f", k, got, total, want[k])
			}
		}
	}
}
