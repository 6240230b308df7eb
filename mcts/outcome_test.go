package mcts

import (
	"context"
	"math"
	"testing"

	"tabula/games"
	_ "tabula/games/gogame"
)

// fakeOutcomes is an OutcomeEvaluator whose heads are functions of the
// position's hash, for the player to move: the score fakeScore, the
// ownership fakeOwnership. It counts its calls of each kind.
type fakeOutcomes struct {
	UniformEvaluator
	plain, outcomes int
	noOwn           bool
}

func fakeScore(s games.State) float64 { return float64(s.Hash()%97)/8 - 6 }

func fakeOwnership(s games.State, dst []float32) {
	h := s.Hash()
	for q := range dst {
		dst[q] = float32((h>>(q%61))&3)/2 - 0.75
	}
}

func (f *fakeOutcomes) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	f.plain++
	return f.UniformEvaluator.Evaluate(states, policies, values)
}

func (f *fakeOutcomes) OutcomeHeads() (ownership, score bool) { return !f.noOwn, true }

func (f *fakeOutcomes) EvaluateOutcomes(states []games.State, policies [][]float32, values []float32, scores []float32, ownership [][]float32) error {
	f.outcomes++
	if err := f.UniformEvaluator.Evaluate(states, policies, values); err != nil {
		return err
	}
	for i, s := range states {
		if scores != nil {
			scores[i] = float32(fakeScore(s))
		}
		if ownership != nil && ownership[i] != nil {
			fakeOwnership(s, ownership[i])
		}
	}
	return nil
}

// subtreeOutcome walks node i (position st) of t independently of the
// sums: every expanded node was evaluated once (the fake's score and
// ownership at its position), every visit of a terminal counts the game's
// final score and ownership. It returns the sums for player 0 and the
// number of evaluations and terminal visits.
func subtreeOutcome(t *testing.T, tr *tree, i int32, st games.State, own []float64) (float64, int) {
	t.Helper()
	nd := tr.nodes[i]
	hw := len(own)
	buf := make([]float32, hw)
	sign := 1.0
	switch nd.status {
	case nodeTerminal:
		o := st.(games.Outcomer)
		o.FinalOwnership(buf)
		for q := range own {
			own[q] += float64(nd.n) * float64(buf[q])
		}
		return float64(nd.n) * o.FinalScore(), int(nd.n)
	case nodeExpanded:
	default:
		return 0, 0
	}
	if st.CurrentPlayer() == 1 {
		sign = -1
	}
	sum, cnt := sign*fakeScore(st), 1
	fakeOwnership(st, buf)
	for q := range own {
		own[q] += sign * float64(buf[q])
	}
	for _, e := range tr.edges[nd.first : nd.first+nd.count] {
		if e.child < 0 {
			continue
		}
		c := st.Clone()
		c.ApplyAction(int(e.action))
		s, n := subtreeOutcome(t, tr, e.child, c, own)
		sum += s
		cnt += n
	}
	return sum, cnt
}

// checkOutcomes compares every root child's Score and ownership and the
// root's ownership with the walk of the tree; withOwnership false: there is
// no ownership.
func checkOutcomes(t *testing.T, s *Search, root games.State, withOwnership bool) {
	t.Helper()
	tr := &s.sr.t
	_, h, w := root.Game().ObservationShape()
	me := root.CurrentPlayer()
	flip := 1.0
	if me == 1 {
		flip = -1
	}
	rootOwn := make([]float64, h*w)
	_, rootCount := subtreeOutcome(t, tr, 0, root.Clone(), rootOwn)
	if rootCount != int(tr.nodes[0].n) {
		t.Fatalf("the walk counts %d evaluations and terminal visits below the root, the root has %d visits", rootCount, tr.nodes[0].n)
	}
	scored := 0
	kids := s.RootChildren(nil)
	r := tr.nodes[0]
	for _, c := range kids {
		var child int32 = -1
		for _, e := range tr.edges[r.first : r.first+r.count] {
			if int(e.action) == c.Action {
				child = e.child
			}
		}
		if c.Visits == 0 {
			if c.Scored {
				t.Errorf("action %d: scored without visits", c.Action)
			}
			continue
		}
		st := root.Clone()
		st.ApplyAction(c.Action)
		childOwn := make([]float64, h*w)
		sum, n := subtreeOutcome(t, tr, child, st, childOwn)
		if n != c.Visits {
			t.Fatalf("action %d: the walk counts %d, the action has %d visits", c.Action, n, c.Visits)
		}
		want := flip * sum / float64(n)
		if !c.Scored || math.Abs(float64(c.Score)-want) > 1e-4*max(1, math.Abs(want)) {
			t.Errorf("action %d (%d visits): score %v (scored %v), want the subtree's mean %v for player %d", c.Action, c.Visits, c.Score, c.Scored, want, me)
		}
		scored++
		got := make([]float32, h*w)
		if ok := s.RootChildOwnership(c.Action, got); ok != withOwnership {
			t.Fatalf("action %d: RootChildOwnership reports %v, want %v", c.Action, ok, withOwnership)
		}
		for q := range got {
			if want := flip * childOwn[q] / float64(n); withOwnership && math.Abs(float64(got[q])-want) > 1e-5 {
				t.Fatalf("action %d, point %d: ownership %v, want the mean over its leaves %v", c.Action, q, got[q], want)
			}
		}
	}
	if scored < 2 {
		t.Fatalf("%d actions scored: the test checks too little", scored)
	}
	got := make([]float32, h*w)
	if ok := s.RootOwnership(got); ok != withOwnership {
		t.Fatalf("RootOwnership reports %v, want %v", ok, withOwnership)
	}
	if !withOwnership {
		return
	}
	for q := range got {
		want := flip * rootOwn[q] / float64(rootCount)
		if math.Abs(float64(got[q])-want) > 1e-5 {
			t.Errorf("ownership of point %d: %v, want the mean over the leaves %v", q, got[q], want)
		}
	}
}

// TestOutcomesAreTreeAverages searches 4x4 Go with the fake heads, black
// and then white to move, and checks every root child's score against the
// mean over its subtree and the root's ownership against the mean over the
// leaves, both computed by walking the tree; the search reaches finished
// games (passes), whose own score and ownership count. One visit gives the
// root's own evaluation. An ordinary search never asks for the heads.
func TestOutcomesAreTreeAverages(t *testing.T) {
	g, err := games.New("go:size=4,komi=0.5")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Simulations = 300
	cfg.BatchSize = 8
	cfg.Solver = false
	cfg.DirichletEpsilon = 0
	ctx := context.Background()

	f := &fakeOutcomes{}
	plain, err := NewSearch(cfg, f, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Run(ctx, g.NewInitialState()); err != nil {
		t.Fatal(err)
	}
	if f.outcomes != 0 || f.plain == 0 {
		t.Fatalf("an ordinary search called EvaluateOutcomes %d times, Evaluate %d", f.outcomes, f.plain)
	}
	if plain.RootChildren(nil)[0].Scored || plain.RootOwnership(make([]float32, 16)) {
		t.Error("an ordinary search reports outcomes")
	}

	black := g.NewInitialState()
	for _, a := range []int{5, 10} { // B2-ish and C3-ish stones
		black.ApplyAction(a)
	}
	white := black.Clone()
	white.ApplyAction(6)
	for _, root := range []games.State{black, white} {
		f := &fakeOutcomes{}
		s, err := NewSearch(cfg, f, newRNG(2))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetOutcomes(true, true); err != nil {
			t.Fatal(err)
		}
		if err := s.Ponder(ctx, root, 1); err != nil {
			t.Fatal(err)
		}
		got := make([]float32, 16)
		want := make([]float32, 16)
		fakeOwnership(root, want)
		if !s.RootOwnership(got) {
			t.Fatal("no ownership after one visit")
		}
		for q := range got {
			if got[q] != want[q] {
				t.Fatalf("one visit: ownership %v, want the evaluation at the root %v", got, want)
			}
		}
		if err := s.Ponder(ctx, root, 400); err != nil {
			t.Fatal(err)
		}
		if f.plain != 0 {
			t.Errorf("a search with outcomes called Evaluate %d times", f.plain)
		}
		terminals := 0
		for _, nd := range s.sr.t.nodes {
			if nd.status == nodeTerminal {
				terminals++
			}
		}
		if terminals == 0 {
			t.Error("the search reached no finished game: the terminal case is untested")
		}
		checkOutcomes(t, s, root, true)
	}
}

// TestOutcomesKeptWithTheTree: with tree reuse, the scores survive the
// tree's compaction after a move (the new root's children still hold
// their subtrees' means), the ownership restarts with the new root, and
// turning the tracking on later discards a tree it did not count.
func TestOutcomesKeptWithTheTree(t *testing.T) {
	g, err := games.New("go:size=4,komi=0.5")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Simulations = 300
	cfg.BatchSize = 4
	cfg.Solver = false
	cfg.DirichletEpsilon = 0
	cfg.TreeReuse = true
	ctx := context.Background()
	f := &fakeOutcomes{noOwn: true}
	s, err := NewSearch(cfg, f, newRNG(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetOutcomes(true, true); err == nil {
		t.Error("SetOutcomes accepted the ownership of an evaluator without the head")
	}
	root := g.NewInitialState()
	if _, err := s.Run(ctx, root); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOutcomes(true, false); err != nil {
		t.Fatal(err)
	}
	if n := s.sr.t.nodes[0].n; n != 0 {
		t.Fatalf("turning the tracking on kept a tree of %d visits", n)
	}
	res, err := s.Run(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	checkOutcomes(t, s, root, false)
	if err := s.Advance(res.Action); err != nil {
		t.Fatal(err)
	}
	next := root.Clone()
	next.ApplyAction(res.Action)
	if s.sr.t.nodes[0].n == 0 {
		t.Fatal("the tree was not kept")
	}
	checkOutcomes(t, s, next, false)
	if err := s.Ponder(ctx, next, 100); err != nil {
		t.Fatal(err)
	}
	checkOutcomes(t, s, next, false)

	if _, err := NewSearch(cfg, UniformEvaluator{}, newRNG(1)); err != nil {
		t.Fatal(err)
	}
	u, _ := NewSearch(cfg, UniformEvaluator{}, newRNG(1))
	if err := u.SetOutcomes(true, false); err == nil {
		t.Error("SetOutcomes accepted an evaluator without heads")
	}
}

// TestSymmetrizedOutcomes: averaged over K images, the score is the mean of
// the images' scores and the ownership the position's own image's; the
// policies and values are Evaluate's. Over an evaluator without heads it
// has none.
func TestSymmetrizedOutcomes(t *testing.T) {
	g, err := games.New("go:size=4,komi=0.5")
	if err != nil {
		t.Fatal(err)
	}
	sym := g.(games.Symmetric)
	st := g.NewInitialState()
	st.ApplyAction(1)
	st.ApplyAction(6)
	states := []games.State{st, g.NewInitialState()}
	const k = 3
	e, err := NewSymmetrized(&fakeOutcomes{}, g, k)
	if err != nil {
		t.Fatal(err)
	}
	if own, score := e.OutcomeHeads(); !own || !score {
		t.Fatalf("heads %v %v", own, score)
	}
	na := g.NumActions()
	pol := [][]float32{make([]float32, na), make([]float32, na)}
	pol2 := [][]float32{make([]float32, na), make([]float32, na)}
	val, val2, sc := make([]float32, 2), make([]float32, 2), make([]float32, 2)
	own := [][]float32{make([]float32, 16), nil}
	if err := e.EvaluateOutcomes(states, pol, val, sc, own); err != nil {
		t.Fatal(err)
	}
	if err := e.Evaluate(states, pol2, val2); err != nil {
		t.Fatal(err)
	}
	for i, s := range states {
		want := fakeScore(s)
		for j := 1; j < k; j++ {
			want += fakeScore(sym.TransformState(j, s))
		}
		want /= k
		if math.Abs(float64(sc[i])-want) > 1e-5 {
			t.Errorf("state %d: score %v, want the images' mean %v", i, sc[i], want)
		}
		if val[i] != val2[i] {
			t.Errorf("state %d: value %v, Evaluate %v", i, val[i], val2[i])
		}
		for a := range pol[i] {
			if pol[i][a] != pol2[i][a] {
				t.Fatalf("state %d: policy %v, Evaluate %v", i, pol[i], pol2[i])
			}
		}
	}
	want := make([]float32, 16)
	fakeOwnership(st, want)
	for q := range want {
		if own[0][q] != want[q] {
			t.Fatalf("ownership %v, want the position's own %v", own[0], want)
		}
	}
	plain, _ := NewSymmetrized(UniformEvaluator{}, g, k)
	if o, s := plain.OutcomeHeads(); o || s {
		t.Error("heads over an evaluator without them")
	}
	if err := plain.EvaluateOutcomes(states, pol, val, sc, nil); err == nil {
		t.Error("outcomes over an evaluator without heads")
	}
}
