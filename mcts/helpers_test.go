package mcts

import (
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/connect4"
)

// connect4Game builds Connect Four through the registry.
func connect4Game(t testing.TB) games.Game {
	t.Helper()
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// position replays a move string (digits 1-7) of Connect Four.
func position(t testing.TB, moves string) games.State {
	t.Helper()
	s, _, err := games.ParseAndReplay(connect4Game(t), moves)
	if err != nil {
		t.Fatalf("position %q: %v", moves, err)
	}
	return s
}

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// newRolloutSearch returns a search with cfg evaluated by one random rollout
// a leaf (seeded 3; the search seeded 4).
func newRolloutSearch(t testing.TB, cfg Config) *Search {
	t.Helper()
	rev, err := NewRolloutEvaluator(1, newRNG(3))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSearch(cfg, rev, newRNG(4))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// copierState is Connect Four with CopyFrom, to measure what Copier saves.
type copierState struct{ connect4.State }

func (s *copierState) CopyFrom(src games.State) { s.State = src.(*copierState).State }
func (s *copierState) Clone() games.State       { c := *s; return &c }
func (s *copierState) Game() games.Game         { return copierGame{} }

type copierGame struct{ connect4.Game }

func (copierGame) NewInitialState() games.State { return &copierState{} }

// negamax returns the exact value of s for the player to move (+1, 0, -1),
// memoised by hash.
func negamax(s games.State, memo map[uint64]int8) int8 {
	if s.IsTerminal() {
		return int8(s.Returns()[s.CurrentPlayer()])
	}
	if v, ok := memo[s.Hash()]; ok {
		return v
	}
	best := int8(-1)
	for _, a := range s.LegalActions(nil) {
		c := s.Clone()
		c.ApplyAction(a)
		var v int8
		if c.IsTerminal() {
			// The mover's result: Returns of the player who just moved.
			v = int8(c.Returns()[s.CurrentPlayer()])
		} else {
			v = -negamax(c, memo)
		}
		if v > best {
			best = v
		}
		if best == 1 {
			break
		}
	}
	memo[s.Hash()] = best
	return best
}

// oracle is an evaluator with exact values (by negamax) and uniform priors.
type oracle struct{ memo map[uint64]int8 }

func (o oracle) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	for i, s := range states {
		uniformPolicy(s, policies[i])
		values[i] = float32(negamax(s, o.memo))
	}
	return nil
}

// biased says player 0 is winning everywhere.
type biased struct{ v float32 }

func (b biased) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	for i, s := range states {
		uniformPolicy(s, policies[i])
		values[i] = b.v
		if s.CurrentPlayer() == 1 {
			values[i] = -b.v
		}
	}
	return nil
}

// checkTree verifies the invariants of a tree with no batch in flight: no
// virtual visits, every edge's visits equal to its child's backups, edge
// values the negation of the child's (players alternate in Connect Four).
func checkTree(t *testing.T, tr *tree) {
	t.Helper()
	for i, nd := range tr.nodes {
		if nd.vl != 0 {
			t.Fatalf("node %d: %d virtual visits left", i, nd.vl)
		}
		if nd.status == nodePending {
			t.Fatalf("node %d still pending", i)
		}
		if nd.status != nodeExpanded {
			continue
		}
		var sum int32
		for _, e := range tr.edges[nd.first : nd.first+nd.count] {
			if e.vl != 0 {
				t.Fatalf("edge %d of node %d: %d virtual visits left", e.action, i, e.vl)
			}
			sum += e.n
			if e.child < 0 {
				if e.n != 0 {
					t.Fatalf("edge %d of node %d: %d visits but no child", e.action, i, e.n)
				}
				continue
			}
			c := tr.nodes[e.child]
			if e.n != c.n {
				t.Fatalf("edge %d of node %d: n=%d, child n=%d", e.action, i, e.n, c.n)
			}
			if c.status == nodeExpanded && e.w != -c.w {
				t.Fatalf("edge %d of node %d: w=%v, child w=%v", e.action, i, e.w, c.w)
			}
		}
		if sum+1 != nd.n {
			t.Fatalf("node %d: n=%d but its edges hold %d visits (+1 own evaluation)", i, nd.n, sum)
		}
	}
}

// fakeGame is a game with only an action count, for per-game defaults.
type fakeGame struct{ actions int }

func (f fakeGame) Name() string                    { return "fake" }
func (f fakeGame) NumActions() int                 { return f.actions }
func (f fakeGame) ObservationShape() (p, h, w int) { return 1, 1, f.actions }
func (f fakeGame) MaxGameLength() int              { return 1 }
func (f fakeGame) NewInitialState() games.State    { return nil }
