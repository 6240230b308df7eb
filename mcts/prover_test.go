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

// plyConfig is the search of the prover tests: sims simulations one leaf a
// batch, no noise, endgame on with prover pr.
func plyConfig(search string, sims int, pr *plyProver) Config {
	cfg := DefaultConfig()
	cfg.Search = search
	cfg.Simulations = sims
	cfg.BatchSize = 1
	cfg.DirichletEpsilon = 0
	cfg.Endgame = 2
	cfg.Prover = plyProverMaker{pr}
	return cfg
}

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
		cfg := plyConfig(search, 64, pr)
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

// TestProverWaitsForTheSecondVisit checks that below the root the prover
// is asked about a node's children only when a descent passes through the
// node a second time, before any child of it is evaluated, and that a root
// kept by tree reuse whose children were never asked about has them all
// proven before its move. Every position two plies from the start is proven
// lost for its mover (plyProver), as in TestProverStopsAtAWin.
func TestProverWaitsForTheSecondVisit(t *testing.T) {
	g, err := games.New("othello:size=6")
	if err != nil {
		t.Fatal(err)
	}
	root := g.NewInitialState()
	first := root.LegalActions(nil)
	for _, search := range []string{SearchPUCT, SearchGumbel} {
		pr := &plyProver{plies: 2}
		ev := &countingEvaluator{}
		cfg := plyConfig(search, 1+len(first), pr) // the root, then each first move once
		cfg.TreeReuse = true
		s, err := NewSearch(cfg, ev, newRNG(1))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		if res.Visits != 1+len(first) {
			t.Fatalf("%s: %d root visits, want %d", search, res.Visits, 1+len(first))
		}
		visited := 0
		r := s.sr.t.nodes[0]
		for _, e := range s.sr.t.edges[r.first : r.first+r.count] {
			if e.n > 0 {
				visited++
			}
		}
		if visited != len(first) || ev.n != 1+len(first) {
			t.Fatalf("%s: %d first moves visited and %d evaluations, want each of %d once and %d", search, visited, ev.n, len(first), 1+len(first))
		}
		if pr.proofs != 0 {
			t.Errorf("%s: %d proofs for first moves visited once, want none", search, pr.proofs)
		}

		// The next move's root, kept by tree reuse: its children are proven
		// at once (a win for its mover), without a network evaluation.
		a := first[0]
		if err := s.Advance(a); err != nil {
			t.Fatal(err)
		}
		next := root.Clone()
		next.ApplyAction(a)
		replies := len(next.LegalActions(nil))
		evals := ev.n
		res, err = s.Run(context.Background(), next)
		if err != nil {
			t.Fatal(err)
		}
		if res.Value != 1 {
			t.Errorf("%s: kept root's value %v, want 1 (every reply proven lost for the opponent)", search, res.Value)
		}
		if pr.proofs != replies {
			t.Errorf("%s: %d proofs at the kept root, want one for each of its %d children", search, pr.proofs, replies)
		}
		if ev.n != evals {
			t.Errorf("%s: %d network evaluations after the kept root was proven, want none", search, ev.n-evals)
		}
	}
}
