package nn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games"
	"tabula/mcts"
)

var _ mcts.OutcomeEvaluator = (*Evaluator)(nil)

// TestEvaluateOutcomes checks the search's path with the heads against
// Evaluate (policies, values) and EvaluateAux (score, ownership), over more
// states than one pass, a finished game among them, after Evaluate has
// filled the cache with the same positions: the cache is neither read (a
// hit has no score) nor written.
func TestEvaluateOutcomes(t *testing.T) {
	g, err := games.New("go:size=5")
	if err != nil {
		t.Fatal(err)
	}
	p, h, wd := g.ObservationShape()
	sh := Shape{Planes: p, Height: h, Width: wd, Actions: g.NumActions()}
	w := randomWeights(t, Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8, Ownership: true, Score: true}, sh, 3)
	cfg := DefaultEvaluatorConfig()
	if cfg.CacheSize == 0 {
		cfg.CacheSize = 1 << 10
	}
	e, err := NewEvaluator(cfg, w, g)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if own, score := e.OutcomeHeads(); !own || !score {
		t.Fatalf("OutcomeHeads %v, %v", own, score)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var states []games.State
	s := g.NewInitialState()
	for len(states) < auxBatch+7 {
		states = append(states, s.Clone())
		var buf []int
		buf = s.LegalActions(buf)
		s.ApplyAction(buf[rng.IntN(len(buf))])
		if s.IsTerminal() {
			s = g.NewInitialState()
		}
	}
	over := states[3].Clone()
	pass := g.NumActions() - 1
	over.ApplyAction(pass)
	over.ApplyAction(pass)
	if !over.IsTerminal() {
		t.Fatal("two passes did not end the game")
	}
	states[auxBatch+2] = over
	n, hw, na := len(states), h*wd, g.NumActions()
	rows := func() [][]float32 {
		r := make([][]float32, n)
		for i := range r {
			r[i] = make([]float32, na)
		}
		return r
	}
	wantPol, wantVal := rows(), make([]float32, n)
	if err := e.Evaluate(states, wantPol, wantVal); err != nil {
		t.Fatal(err)
	}
	wantOwn := make([][]float32, n)
	for i := range wantOwn {
		wantOwn[i] = make([]float32, hw)
	}
	wantSc := make([]float32, n)
	if err := e.EvaluateAux(states, wantOwn, wantSc); err != nil {
		t.Fatal(err)
	}
	before := e.Stats()
	pol, val, sc := rows(), make([]float32, n), make([]float32, n)
	own := make([][]float32, n)
	for i := range own {
		if i%3 != 1 { // some rows not asked for
			own[i] = make([]float32, hw)
		}
		val[i], sc[i] = 9, 9
	}
	if err := e.EvaluateOutcomes(states, pol, val, sc, own); err != nil {
		t.Fatal(err)
	}
	after := e.Stats()
	if after.CacheHits != before.CacheHits || after.CacheMisses != before.CacheMisses {
		t.Errorf("EvaluateOutcomes used the cache: %+v, then %+v", before, after)
	}
	if got := after.Evaluated - before.Evaluated; got != int64(n-1) {
		t.Errorf("EvaluateOutcomes counted %d positions evaluated, want %d", got, n-1)
	}
	nonzero := 0
	for i := range n {
		if math.Abs(float64(val[i]-wantVal[i])) > 1e-5 {
			t.Errorf("state %d: value %v, Evaluate %v", i, val[i], wantVal[i])
		}
		for a := range na {
			if math.Abs(float64(pol[i][a]-wantPol[i][a])) > 1e-5 {
				t.Fatalf("state %d action %d: policy %v, Evaluate %v", i, a, pol[i][a], wantPol[i][a])
			}
		}
		if states[i].IsTerminal() {
			if sc[i] != 0 || val[i] != 0 {
				t.Errorf("finished game: score %v, value %v, want 0", sc[i], val[i])
			}
			continue
		}
		if sc[i] != 0 {
			nonzero++
		}
		if math.Abs(float64(sc[i]-wantSc[i])) > 1e-4 {
			t.Errorf("state %d: score %v, EvaluateAux %v", i, sc[i], wantSc[i])
		}
		if own[i] == nil {
			continue
		}
		for q := range hw {
			if math.Abs(float64(own[i][q]-wantOwn[i][q])) > 1e-5 {
				t.Fatalf("state %d point %d: ownership %v, EvaluateAux %v", i, q, own[i][q], wantOwn[i][q])
			}
		}
	}
	if nonzero < n/2 {
		t.Errorf("%d of %d scores are not zero", nonzero, n)
	}
	// Errors name what is wrong.
	if err := e.EvaluateOutcomes(states[:2], pol[:2], val[:2], sc[:1], nil); err == nil || !strings.Contains(err.Error(), "2 states, 1 scores") {
		t.Errorf("short scores: %v", err)
	}
	if err := e.EvaluateOutcomes(states[:1], pol[:1], val[:1], nil, [][]float32{make([]float32, 3)}); err == nil || !strings.Contains(err.Error(), "3 values, want 25") {
		t.Errorf("short plane: %v", err)
	}
	plain := randomWeights(t, Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}, sh, 3)
	if err := e.SetWeights(plain); err != nil {
		t.Fatal(err)
	}
	if own, score := e.OutcomeHeads(); own || score {
		t.Error("a network without heads reports them")
	}
	if err := e.EvaluateOutcomes(states[:1], pol[:1], val[:1], sc[:1], nil); err == nil || !strings.Contains(err.Error(), "no score head") {
		t.Errorf("score of a network without the head: %v", err)
	}
}
