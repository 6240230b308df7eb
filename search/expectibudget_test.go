package search

import (
	"context"
	"math"
	"testing"
	"time"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/games/gamestest"
	"tabula/internal/cputime"
)

// decisionsOf returns the decision states (not chance nodes) among states.
func decisionsOf(states []games.State) []games.State {
	var out []games.State
	for _, s := range states {
		if !games.IsChanceNode(s) && !s.IsTerminal() {
			out = append(out, s)
		}
	}
	return out
}

// TestExpectiDeepeningMatchesFixedDepth checks that SearchLimits without a
// budget is Search at the depth given, and that with a budget too large to
// stop it, iterative deepening reaches the depth cap with the fixed-depth
// value (the move may differ only between moves of equal value).
func TestExpectiDeepeningMatchesFixedDepth(t *testing.T) {
	states := decisionsOf(statesOf(gamestest.DiceRace(), 120, 3))
	for _, prune := range []Pruning{NoPruning, Star1, Star2} {
		for d := 1; d <= 4; d++ {
			fixed, _ := NewExpecti(ExpectiConfig{Depth: d, Pruning: prune}, raceEval)
			deep, _ := NewExpecti(ExpectiConfig{Depth: 8, Pruning: prune}, raceEval)
			for _, s := range states {
				want, err := fixed.Search(s)
				if err != nil {
					t.Fatal(err)
				}
				got, err := deep.SearchLimits(context.Background(), s, ExpectiLimits{Depth: d})
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("%v depth %d: SearchLimits without a budget gave %+v, Search %+v\n%s", prune, d, got, want, s)
				}
				got, err = deep.SearchLimits(context.Background(), s, ExpectiLimits{Depth: d, MoveTime: time.Hour, CPU: time.Hour})
				if err != nil {
					t.Fatal(err)
				}
				if got.Depth != d || math.Abs(got.Value-want.Value) > 1e-9 {
					t.Fatalf("%v: deepening to %d reached depth %d with value %v, the fixed search %v\n%s", prune, d, got.Depth, got.Value, want.Value, s)
				}
			}
		}
	}
}

// TestExpectiDoneContext checks that a budgeted search whose context is
// already done still answers with the depth-1 search, which always
// completes, and that bad limits are refused.
func TestExpectiDoneContext(t *testing.T) {
	s := decisionsOf(statesOf(gamestest.DiceRace(), 30, 4))[0]
	e, _ := NewExpecti(ExpectiConfig{Depth: 4, Pruning: Star2}, raceEval)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := e.SearchLimits(ctx, s, ExpectiLimits{MoveTime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	one, _ := NewExpecti(ExpectiConfig{Depth: 1, Pruning: Star2}, raceEval)
	want, _ := one.Search(s)
	if got.Depth != 1 || got.Move != want.Move || got.Value != want.Value {
		t.Errorf("done context: %+v, want the depth-1 search %+v", got, want)
	}
	for _, l := range []ExpectiLimits{{Depth: 9}, {Depth: -1}, {MoveTime: -time.Second}, {CPU: -time.Second}} {
		if _, err := e.SearchLimits(context.Background(), s, l); err == nil {
			t.Errorf("limits %+v accepted", l)
		}
	}
}

// TestExpectiCPUBudget searches backgammon under a CPU budget with the
// search sharing its processor (underLoad). With an evaluation slowed to
// about 50 us a leaf, depth 1 fits easily and depth 2 cannot, so every
// search starts depth 2 and is stopped by the budget: the searching
// thread's CPU time must lie between the budget and the budget plus a
// tolerance, and the move is depth 1's. A budget counted in wall-clock time
// would stop at a third of it and fail. With the plain evaluation and twice
// the budget, the searches must all reach depth 2 at least and stay within
// the budget (the largest position's depth 2 takes 23-28 ms of a Zen 3's CPU,
// more under load).
func TestExpectiCPUBudget(t *testing.T) {
	if !cputime.ThreadMeasured() {
		t.Skip("no per-thread CPU clock on this system")
	}
	const slowBudget = 30 * time.Millisecond
	bg := backgammon.New(false)
	var states []games.State
	for _, s := range decisionsOf(statesOf(bg, 60, 5)) {
		if n := len(s.LegalActions(nil)); n >= 4 && n <= 40 && len(states) < 6 {
			states = append(states, s)
		}
	}
	sink := 0.0
	slow := func(s games.State) float64 {
		x := 1.0
		for i := range 10000 {
			x += 1 / (x + float64(i))
		}
		sink += x
		return bg.Evaluate(s)
	}
	for _, c := range []struct {
		name               string
		eval               Evaluation
		depth, min, budget time.Duration
		exact              bool // the depth reached is exactly depth, else at least depth
	}{{"slow evaluation", slow, 1, slowBudget, slowBudget, true}, {"plain evaluation", bg.Evaluate, 2, 0, 2 * slowBudget, false}} {
		budget := c.budget
		e, _ := NewExpecti(ExpectiConfig{Depth: 4, Pruning: Star2}, c.eval)
		underLoad(func() {
			for _, s := range states {
				c0, w0 := cputime.Thread(), time.Now()
				res, err := e.SearchLimits(context.Background(), s, ExpectiLimits{CPU: budget})
				used, wall := cputime.Thread()-c0, time.Since(w0)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: depth %d, %d nodes, %v CPU, %v wall", c.name, res.Depth, res.Nodes, used, wall)
				if !s.IsLegal(res.Move) || res.Depth < int(c.depth) || c.exact && res.Depth != int(c.depth) {
					t.Errorf("%s: move %d at depth %d, want a legal move at depth %d (exactly: %v)\n%s", c.name, res.Move, res.Depth, c.depth, c.exact, s)
				}
				if hi := budget + budget/4 + 5*time.Millisecond; used < c.min || used > hi {
					t.Errorf("%s: the search used %v of thread CPU time, want %v..%v for a %v budget\n%s", c.name, used, c.min, hi, budget, s)
				}
			}
		})
	}
	_ = sink
}
