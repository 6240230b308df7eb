package mcts

import (
	"context"
	"math"
	"testing"

	"tabula/games"
)

// TestCountReused checks that with CountReused a search tops the reused
// subtree up to Simulations root visits, and runs no playout when the kept
// subtree already has them.
func TestCountReused(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sims, vl  int
		batch     int
		wantEmpty bool // lower the budget below the kept visits after the first move
	}{
		{"batch 1", 60, 1, 1, false},
		{"batch 16", 200, 1, 16, false},
		{"budget below the kept visits", 200, 1, 16, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Simulations, cfg.VirtualLoss, cfg.BatchSize = tc.sims, tc.vl, tc.batch
			cfg.TreeReuse, cfg.CountReused = true, true
			cfg.DirichletEpsilon = 0
			cfg.Solver = false // a solved root would end a search before its budget
			s := newRolloutSearch(t, cfg)
			st := position(t, "4444")
			empty := false
			for move := range 12 {
				before := 0
				if move > 0 {
					before = int(s.sr.t.nodes[0].n)
					if tc.wantEmpty {
						s.cfg.Simulations = max(before-1, 1)
					}
				}
				r, err := s.Run(context.Background(), st)
				if err != nil {
					t.Fatal(err)
				}
				checkTree(t, &s.sr.t)
				sims := s.cfg.Simulations
				wantNew := max(sims-before, 0)
				if r.Simulations != wantNew || r.Visits != before+wantNew || r.Visits < sims {
					t.Fatalf("move %d: %d reused visits, %d playouts and %d visits, want %d playouts and %d visits",
						move, before, r.Simulations, r.Visits, wantNew, max(sims, before))
				}
				empty = empty || wantNew == 0
				st.ApplyAction(r.Action)
				if st.IsTerminal() {
					break
				}
				if err := s.Advance(r.Action); err != nil {
					t.Fatal(err)
				}
			}
			if tc.wantEmpty != empty {
				t.Errorf("a search skipped its playouts: %v, want %v", empty, tc.wantEmpty)
			}
		})
	}
}

// countingEvaluator is the uniform evaluator, counting positions.
type countingEvaluator struct{ n int }

func (c *countingEvaluator) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	c.n += len(states)
	return UniformEvaluator{}.Evaluate(states, policies, values)
}

// TestCountReusedSelfPlay plays self-play games with CountReused: the games
// are complete, their policy targets are distributions, and they cost fewer
// evaluations per move than without it.
func TestCountReusedSelfPlay(t *testing.T) {
	g := connect4Game(t)
	perMove := map[bool]float64{}
	for _, count := range []bool{false, true} {
		cfg := selfPlayConfig()
		cfg.PlayoutCap, cfg.FullSearchFraction, cfg.FastSimulations = true, 0.25, 6
		cfg.CountReused = count
		ev := &countingEvaluator{}
		recs := playGames(t, cfg, ev, 7, 12)
		moves := 0
		for i, r := range recs {
			s, err := games.Replay(g, r.Actions)
			if err != nil {
				t.Fatalf("count %v game %d: %v", count, i, err)
			}
			if !s.IsTerminal() || s.Returns() != r.Returns {
				t.Fatalf("count %v game %d: not finished or wrong returns", count, i)
			}
			err = r.Examples(g, func(_ games.State, pi []float32, _ float32) error {
				var sum float64
				for _, p := range pi {
					sum += float64(p)
				}
				if math.Abs(sum-1) > 1e-5 {
					t.Errorf("count %v game %d: pi sums to %v", count, i, sum)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			moves += len(r.Actions)
		}
		perMove[count] = float64(ev.n) / float64(moves)
	}
	if !(perMove[true] < perMove[false]) {
		t.Errorf("evaluations per move: %.1f with count_reused, %.1f without; want fewer", perMove[true], perMove[false])
	}
}
