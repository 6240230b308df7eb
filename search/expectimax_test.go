package search

import (
	"math"
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/games/gamestest"
)

// raceEval scores a dicerace state from its observation (the mover's score,
// the opponent's, the roll): a squashed score difference.
func raceEval(s games.State) float64 {
	var obs [3]float32
	s.Observation(obs[:])
	return 0.9 * math.Tanh(float64(obs[0]-obs[1]+obs[2]/2)/4)
}

// statesOf plays random games of g and returns n decision and chance states
// met on the way.
func statesOf(g games.Game, n int, seed uint64) []games.State {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []games.State
	var buf []int
	for len(out) < n {
		s := g.NewInitialState()
		for !s.IsTerminal() && len(out) < n {
			if rng.IntN(3) == 0 {
				out = append(out, s.Clone())
			}
			if games.IsChanceNode(s) {
				a, _ := games.SampleChance(s, rng)
				s.ApplyAction(a)
				continue
			}
			buf = s.LegalActions(buf)
			s.ApplyAction(buf[rng.IntN(len(buf))])
		}
	}
	return out
}

// TestStarEqualsExpectiminimax checks that Star1 and Star2 return the value
// of plain expectiminimax on many positions of a small game of chance (to
// depth 5) and of backgammon (depth 1 and 2), and reports the node counts.
func TestStarEqualsExpectiminimax(t *testing.T) {
	bg := backgammon.New(false)
	cases := []struct {
		name   string
		states []games.State
		depths []int
		eval   Evaluation
	}{
		{"dicerace", statesOf(gamestest.DiceRace(), 100, 1), []int{1, 2, 4}, raceEval},
		{"backgammon", statesOf(bg, 30, 2), []int{1, 2}, bg.Evaluate},
	}
	for _, c := range cases {
		for _, d := range c.depths {
			if c.name == "backgammon" && d == 2 {
				// Decisions with at most 20 moves keep plain
				// expectiminimax near 100,000 nodes.
				var small []games.State
				for _, s := range c.states {
					if n := len(s.LegalActions(nil)); !games.IsChanceNode(s) && n <= 20 && len(small) < 8 {
						small = append(small, s)
					}
				}
				c.states = small
			}
			var nodes [3]int64
			for _, s := range c.states {
				want, n0, err := Expectiminimax(s, d, c.eval)
				if err != nil {
					t.Fatal(err)
				}
				nodes[0] += n0
				for k, p := range []Pruning{Star1, Star2} {
					got, n, err := StarValue(s, d, c.eval, p)
					if err != nil {
						t.Fatal(err)
					}
					if math.Abs(got-want) > 1e-9 {
						t.Fatalf("%s depth %d %v: value %v, expectiminimax %v\n%s", c.name, d, p, got, want, s)
					}
					nodes[k+1] += n
				}
				if games.IsChanceNode(s) {
					continue
				}
				// The searchers choose a move of the same value.
				var vals [3]float64
				for k, p := range []Pruning{NoPruning, Star1, Star2} {
					e, _ := NewExpecti(ExpectiConfig{Depth: d, Pruning: p}, c.eval)
					r, err := e.Search(s)
					if err != nil {
						t.Fatal(err)
					}
					vals[k] = r.Value
				}
				if math.Abs(vals[1]-vals[0]) > 1e-9 || math.Abs(vals[2]-vals[0]) > 1e-9 {
					t.Fatalf("%s depth %d: root values %v differ", c.name, d, vals)
				}
			}
			t.Logf("%s depth %d, %d positions: nodes expectiminimax %d, star1 %d (%.0f%%), star2 %d (%.0f%%)",
				c.name, d, len(c.states), nodes[0], nodes[1], 100*float64(nodes[1])/float64(nodes[0]),
				nodes[2], 100*float64(nodes[2])/float64(nodes[0]))
			if d > 1 && nodes[1] >= nodes[0] {
				t.Errorf("%s depth %d: Star1 visited %d nodes, no fewer than expectiminimax's %d", c.name, d, nodes[1], nodes[0])
			}
		}
	}
}

func TestExpectiConfig(t *testing.T) {
	if _, err := NewExpecti(ExpectiConfig{Depth: 0}, raceEval); err == nil {
		t.Error("depth 0 accepted")
	}
	if _, err := NewExpecti(ExpectiConfig{Depth: 1}, nil); err == nil {
		t.Error("nil evaluation accepted")
	}
	if _, err := ParsePruning("star3"); err == nil {
		t.Error("pruning star3 accepted")
	}
	e, _ := NewExpecti(ExpectiConfig{Depth: 1}, raceEval)
	if _, err := e.Search(gamestest.DiceRace().NewInitialState()); err == nil {
		t.Error("a chance node accepted as the root")
	}
}

func TestRolloutEvaluation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ev, err := RolloutEvaluation(200, nil, rng)
	if err != nil {
		t.Fatal(err)
	}
	// Player 0 reaches 9 points, player 1 has 2 and is to roll: player 1
	// cannot make 8 points in one turn, so player 0 wins every playout.
	s := gamestest.DiceRace().NewInitialState()
	for _, a := range []int{2, 0, 0, 1, 2, 0, 0, 1, 2, 0} {
		if err := games.Play(s, a); err != nil {
			t.Fatal(err)
		}
	}
	if v := ev(s); v != -1 {
		t.Errorf("rollout value %v for the player who cannot win, want -1\n%s", v, s)
	}
	// From the start, the mean of random playouts is near even.
	if v := ev(gamestest.DiceRace().NewInitialState()); math.Abs(v) > 0.3 {
		t.Errorf("rollout value %v at the start, want near 0", v)
	}
	if _, err := RolloutEvaluation(0, nil, rng); err == nil {
		t.Error("0 rollouts accepted")
	}
}

// TestStar2ProbingSavesNodes checks that Star2's probing pays where it
// should: on backgammon decisions searched to depth 2, Star2 reaches Star1's
// values while visiting at most three quarters of Star1's nodes (about 55%
// on these positions).
func TestStar2ProbingSavesNodes(t *testing.T) {
	bg := backgammon.New(false)
	var states []games.State
	for _, s := range statesOf(bg, 30, 2) {
		if n := len(s.LegalActions(nil)); !games.IsChanceNode(s) && n <= 20 && len(states) < 8 {
			states = append(states, s)
		}
	}
	if len(states) < 5 {
		t.Fatalf("only %d backgammon decisions with at most 20 moves", len(states))
	}
	const depth = 2
	var star1, star2 int64
	for _, s := range states {
		v1, n1, err := StarValue(s, depth, bg.Evaluate, Star1)
		if err != nil {
			t.Fatal(err)
		}
		v2, n2, err := StarValue(s, depth, bg.Evaluate, Star2)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(v1-v2) > 1e-9 {
			t.Fatalf("Star2's value %v differs from Star1's %v\n%s", v2, v1, s)
		}
		star1 += n1
		star2 += n2
	}
	t.Logf("%d positions at depth %d: Star1 %d nodes, Star2 %d (%.0f%%)", len(states), depth, star1, star2, 100*float64(star2)/float64(star1))
	if 4*star2 > 3*star1 {
		t.Errorf("Star2 visited %d nodes, more than 3/4 of Star1's %d: its probing saves too little", star2, star1)
	}
}
