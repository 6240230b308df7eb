package mcts

import (
	"context"
	"testing"

	"tabula/games"
	_ "tabula/games/gogame"
)

// passFan is a Go evaluator that likes Black's passes: Black to move puts
// nearly all its prior on passing, White almost none, and every position
// looks won for Black.
type passFan struct{}

func (passFan) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	for i, s := range states {
		p := policies[i]
		clear(p)
		pass := s.Game().NumActions() - 1
		legal := s.LegalActions(nil)
		for _, a := range legal {
			p[a] = 1 / float32(len(legal))
		}
		values[i] = 0.9
		if s.CurrentPlayer() == 0 {
			p[pass] = 0.99 * float32(len(legal)) // renormalised below
		} else {
			p[pass] = 1e-4
			values[i] = -0.9
		}
		var sum float32
		for _, a := range legal {
			sum += p[a]
		}
		for _, a := range legal {
			p[a] /= sum
		}
	}
	return nil
}

// TestSolverSeesThePassBack: on the empty 5x5 board with komi, Black's pass
// loses at once to White's pass (0 points against the komi), but the
// network prefers Black's pass and gives White's pass too small a prior to
// be visited. Proving the one move that ends the game (games.Ending) at each
// expansion finds it: Black's pass is proven lost and not played. Without
// the solver the search passes.
func TestSolverSeesThePassBack(t *testing.T) {
	g, err := games.New("go:size=5,komi=7")
	if err != nil {
		t.Fatal(err)
	}
	pass := g.NumActions() - 1
	for _, c := range []struct {
		search string
		solver bool
	}{{SearchPUCT, true}, {SearchPUCT, false}, {SearchGumbel, true}, {SearchGumbel, false}} {
		solver := c.solver
		cfg := DefaultConfig()
		cfg.Search = c.search
		cfg.Simulations = 100
		cfg.DirichletEpsilon = 0
		cfg.TemperatureMoves = 0
		cfg.Solver = solver
		s, err := NewSearch(cfg, passFan{}, newRNG(1))
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(context.Background(), g.NewInitialState())
		if err != nil {
			t.Fatal(err)
		}
		if solver && (r.Action == pass || r.Policy[pass] != 0) {
			t.Errorf("%s, solver: action %d, pass's policy %.3f: want a move other than the losing pass, with no policy", c.search, r.Action, r.Policy[pass])
		}
		if !solver && r.Action != pass {
			t.Errorf("%s, no solver: action %d, want the pass the network favours (else this test shows nothing)", c.search, r.Action)
		}
	}
}
