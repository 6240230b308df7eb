package mcts

import (
	"context"
	"math"
	"testing"

	"tabula/games"
	_ "tabula/games/othello"
)

// exactValue is the game-theoretic value of s for player 0, by plain
// minimax over the whole tree (players need not alternate: Othello passes).
func exactValue(s games.State) float64 {
	if s.IsTerminal() {
		return s.Returns()[0]
	}
	maximise := s.CurrentPlayer() == 0
	best := math.Inf(1)
	if maximise {
		best = math.Inf(-1)
	}
	for _, a := range s.LegalActions(nil) {
		c := s.Clone()
		c.ApplyAction(a)
		v := exactValue(c)
		if maximise {
			best = max(best, v)
		} else {
			best = min(best, v)
		}
	}
	return best
}

// forPlayer turns a value for player 0 into one for player p.
func forPlayer(v float64, p int) float64 {
	if p == 0 {
		return v
	}
	return -v
}

func TestSolverProvesImmediateWin(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Simulations = 400
	cfg.DirichletEpsilon = 0
	s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background(), position(t, "121212")) // column 1 wins at once
	if err != nil {
		t.Fatal(err)
	}
	if !s.sr.t.nodes[0].solved || r.Value != 1 {
		t.Errorf("root solved %v, value %v: want a proven win, value 1", s.sr.t.nodes[0].solved, r.Value)
	}
	if r.Action != 0 || r.Policy[0] != 1 {
		t.Errorf("action %d, policy %v: want column 1 with all the policy", r.Action+1, r.Policy)
	}
	if r.Simulations >= cfg.Simulations {
		t.Errorf("%d simulations: a solved root should end the search before its budget of %d", r.Simulations, cfg.Simulations)
	}
}

func TestSolverBlocksAndDropsLosingMoves(t *testing.T) {
	// The first player threatens column 1; every other reply loses at once.
	for _, solver := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Simulations = 400
		cfg.DirichletEpsilon = 0
		cfg.Solver = solver
		s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(2))
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(context.Background(), position(t, "12121"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Action != 0 {
			t.Errorf("solver %v: played column %d, want the block in column 1", solver, r.Action+1)
		}
		root := s.sr.t.nodes[0]
		lost := 0
		for _, e := range s.sr.t.edges[root.first : root.first+root.count] {
			if e.action == 0 {
				continue
			}
			if sr := &s.sr; sr.lostChild(&e, root.player) {
				lost++
				if r.Policy[e.action] != 0 {
					t.Errorf("solver %v: column %d is proven lost but keeps policy %v", solver, e.action+1, r.Policy[e.action])
				}
			}
		}
		if solver && lost != 6 {
			t.Errorf("solver: %d of the 6 losing replies proven lost, want all", lost)
		}
		if !solver && lost != 0 {
			t.Errorf("without the solver %d replies were proven lost", lost)
		}
		if solver && r.Policy[0] != 1 {
			t.Errorf("solver: policy %v, want all of it on the block", r.Policy)
		}
	}
}

// TestSolverAgreesWithMinimax plays random openings down to a few empty
// cells, then checks that a search with the solver proves the root, with
// the minimax value, and plays a move that keeps it.
func TestSolverAgreesWithMinimax(t *testing.T) {
	cases := []struct {
		game      string
		remaining int // stop the random opening when this few moves can be left
		positions int
	}{
		{"connect4", 7, 40},
		{"othello:size=6", 6, 40},
	}
	for _, tc := range cases {
		t.Run(tc.game, func(t *testing.T) {
			g, err := games.New(tc.game)
			if err != nil {
				t.Fatal(err)
			}
			rng := newRNG(7)
			cfg := DefaultConfig()
			cfg.Simulations = 1 << 20
			cfg.DirichletEpsilon = 0
			cfg.TemperatureMoves = 0
			var legal []int
			decided := 0
			for k := 0; k < tc.positions; {
				s := g.NewInitialState()
				empty := 0
				for !s.IsTerminal() {
					legal = s.LegalActions(legal[:0])
					s.ApplyAction(legal[rng.IntN(len(legal))])
					empty = emptyCells(s)
					if empty <= tc.remaining {
						break
					}
				}
				if s.IsTerminal() || empty > tc.remaining {
					continue
				}
				k++
				want := exactValue(s)
				if want != 0 {
					decided++
				}
				search, r := runSearch(t, cfg, UniformEvaluator{}, uint64(k), s)
				p := s.CurrentPlayer()
				if !search.sr.t.nodes[0].solved {
					t.Fatalf("position %d (%v): not solved after %d simulations", k, s, r.Simulations)
				}
				if got := float64(r.Value); got != forPlayer(want, p) {
					t.Errorf("position %d (%v): solver value %v, minimax %v for the player to move", k, s, got, forPlayer(want, p))
				}
				c := s.Clone()
				c.ApplyAction(r.Action)
				if got := forPlayer(exactValue(c), p); got != forPlayer(want, p) {
					t.Errorf("position %d (%v): move %d is worth %v, the position %v", k, s, r.Action, got, forPlayer(want, p))
				}
			}
			if decided == 0 {
				t.Errorf("all %d positions were draws: the test says little", tc.positions)
			}
		})
	}
}

// emptyCells bounds the moves left in a game of s (Connect Four and
// Othello: one stone per move, passes aside).
func emptyCells(s games.State) int {
	_, h, w := s.Game().ObservationShape()
	return h*w - s.MoveNumber() - initialStones(s.Game())
}

func initialStones(g games.Game) int {
	if g.Name() == "connect4" {
		return 0
	}
	return 4
}

// tallying is UniformEvaluator that counts the positions it evaluates, and
// can deny one action any prior.
type tallying struct {
	n      int
	zeroed int // action given no prior, or -1
}

func (c *tallying) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	c.n += len(states)
	if err := (UniformEvaluator{}).Evaluate(states, policies, values); err != nil {
		return err
	}
	if c.zeroed >= 0 {
		for i := range policies {
			policies[i][c.zeroed] = 0
		}
	}
	return nil
}

// searchOnce runs one search with cfg and ev of the Connect Four position
// after moves.
func searchOnce(t *testing.T, cfg Config, ev Evaluator, seed uint64, moves string) (*Search, Result) {
	t.Helper()
	return runSearch(t, cfg, ev, seed, position(t, moves))
}

// runSearch runs one search with cfg and ev (rng seeded seed) of st.
func runSearch(t *testing.T, cfg Config, ev Evaluator, seed uint64, st games.State) (*Search, Result) {
	t.Helper()
	s, err := NewSearch(cfg, ev, newRNG(seed))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	return s, r
}

func TestSolverThreatsProveLeavesWithoutEvaluation(t *testing.T) {
	// The first player has three in a row on the bottom, open at both ends:
	// every reply of the second player loses at once. Connect Four's
	// ForcedResult proves each reply when the root is expanded, without
	// visiting or evaluating it, so the root is proven lost after its own
	// evaluation alone.
	for _, solver := range []bool{true, false} {
		cfg := DefaultConfig()
		cfg.Simulations = 400
		cfg.Solver = solver
		ev := &tallying{zeroed: -1}
		s, r := searchOnce(t, cfg, ev, 3, "22334")
		if !solver {
			if ev.n <= 1 {
				t.Errorf("without the solver the search evaluated %d positions, want more than the root", ev.n)
			}
			continue
		}
		if !s.sr.t.nodes[0].solved || r.Value != -1 {
			t.Errorf("root solved %v, value %v: want a proven loss", s.sr.t.nodes[0].solved, r.Value)
		}
		if ev.n != 1 || r.Simulations != 1 {
			t.Errorf("%d positions evaluated in %d simulations, want the root alone in 1", ev.n, r.Simulations)
		}
	}
}

func TestSolverFindsRootWinTheNetworkMisses(t *testing.T) {
	// Column 1 wins at once but gets no prior: the root is proven won as
	// soon as it is expanded, and the search stops there.
	cfg := DefaultConfig()
	cfg.Simulations = 400
	ev := &tallying{zeroed: 0}
	_, r := searchOnce(t, cfg, ev, 4, "121212")
	if r.Action != 0 || r.Value != 1 || r.Simulations != 1 || ev.n != 1 {
		t.Errorf("column %d, value %v, %d simulations, %d evaluations: want column 1, value 1, 1 and 1",
			r.Action+1, r.Value, r.Simulations, ev.n)
	}
}
