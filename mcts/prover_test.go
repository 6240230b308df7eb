package mcts

import (
	"context"
	"testing"

	"tabula/games"
)

// plyProver proves every position of at least plies moves lost for its
// player to move, and counts what it was asked.
type plyProver struct {
	plies  int
	proofs int
}

func (p *plyProver) Reaches(games.State) bool { return true }

func (p *plyProver) Prove(s games.State) (float32, bool) {
	if s.(interface{ MoveNumber() int }).MoveNumber() < p.plies {
		return 0, false
	}
	p.proofs++
	if s.CurrentPlayer() == 0 {
		return -1, true
	}
	return 1, true
}

type plyProverMaker struct{ p *plyProver }

func (m plyProverMaker) NewProver() Prover { return m.p }

// TestProverStopsAtAWin checks that below the root one child proven a win
// solves a node without the prover being asked about its siblings (each is
// an exact search). Every position two plies from the start is proven lost
// for its mover, so each move of the first player is refuted by the first
// reply the prover is asked about.
func TestProverStopsAtAWin(t *testing.T) {
	g, err := games.New("othello:size=6")
	if err != nil {
		t.Fatal(err)
	}
	root := g.NewInitialState()
	first := root.LegalActions(nil)
	replies := 0
	for _, a := range first {
		c := root.Clone()
		c.ApplyAction(a)
		replies += len(c.LegalActions(nil))
	}
	for _, search := range []string{SearchPUCT, SearchGumbel} {
		pr := &plyProver{plies: 2}
		cfg := DefaultConfig()
		cfg.Search = search
		cfg.Simulations = 64
		cfg.BatchSize = 1
		cfg.DirichletEpsilon = 0
		cfg.Endgame = 2
		cfg.Prover = plyProverMaker{pr}
		s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(1))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		if res.Value != -1 {
			t.Errorf("%s: root value %v, want -1 (every move refuted)", search, res.Value)
		}
		if pr.proofs != len(first) {
			t.Errorf("%s: %d proofs for %d first moves (%d replies in all): want one a move", search, pr.proofs, len(first), replies)
		}
	}
}
