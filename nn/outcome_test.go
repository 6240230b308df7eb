package nn

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/gogame"
	"tabula/nn/gemm"
)

// auxConfig is a small tower with both auxiliary heads and global pooling.
var auxConfig = Config{Filters: 16, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8,
	Ownership: true, Score: true, GlobalPooling: true}

// refAux is the auxiliary heads of the Weights doc comment written out
// directly in float64 from the tower's output, for the first position of
// obs: tanh of the ownership conv per point and the score head times
// ScoreScale. It reuses refTower.
func refAux(w *Weights, obs []float32) (own []float64, score float64) {
	x, hidden := refTower(w, obs)
	hw := w.Shape.Height * w.Shape.Width
	own = make([]float64, hw)
	for p := range hw {
		var s float64
		for c := range w.Config.Filters {
			s += float64(w.Ownership.W[c]) * x[c*hw+p]
		}
		own[p] = math.Tanh(s)
	}
	score = float64(w.ScoreFC.B[0])
	for j, v := range hidden {
		score += float64(w.ScoreFC.W[j]) * v
	}
	return own, score * float64(w.Shape.ScoreScale())
}

// refTower returns the tower's output [channel][row][col] and the value
// head's hidden layer (after ReLU) of one position, in float64, global
// pooling and squeeze-and-excitation included.
func refTower(w *Weights, obs []float32) (x, hidden []float64) {
	sh := w.Shape
	h, wd := sh.Height, sh.Width
	hw := h * wd
	x = make([]float64, sh.Planes*hw)
	for i := range x {
		x[i] = float64(obs[i])
	}
	x = refConv(w.Stem, x, h, wd)
	refBN(w.StemBN, x)
	refReLU(x)
	for _, b := range w.Blocks {
		y := refConv(b.Conv1, x, h, wd)
		refBN(b.BN1, y)
		if b.Pool != nil {
			g := b.Pool.In / 2
			feat := make([]float64, 2*g)
			for c := range g {
				for p := range hw {
					v := math.Max(y[c*hw+p], 0)
					feat[c] += v / float64(hw)
					feat[g+c] = math.Max(feat[g+c], v)
				}
			}
			bias := refDense(*b.Pool, feat)
			for c := range w.Config.Filters {
				for p := range hw {
					y[c*hw+p] += bias[c]
				}
			}
		}
		refReLU(y)
		y = refConv(b.Conv2, y, h, wd)
		refBN(b.BN2, y)
		if b.SE1 != nil {
			f := w.Config.Filters
			mean := make([]float64, f)
			for c := range f {
				for p := range hw {
					mean[c] += y[c*hw+p] / float64(hw)
				}
			}
			hid := refDense(*b.SE1, mean)
			refReLU(hid)
			o := refDense(*b.SE2, hid)
			for c := range f {
				s := 1 / (1 + math.Exp(-o[c]))
				for p := range hw {
					y[c*hw+p] = s*y[c*hw+p] + o[f+c]
				}
			}
		}
		for i := range x {
			x[i] = math.Max(x[i]+y[i], 0)
		}
	}
	v := refConv(w.ValueConv, x, h, wd)
	refBN(w.ValueBN, v)
	refReLU(v)
	hidden = refDense(w.ValueFC1, v)
	refReLU(hidden)
	return x, hidden
}

// TestForwardAuxMatchesReference checks ForwardAux's ownership and score
// against the float64 reference, position by position, over batches that
// span several chunks, and that its logits and values are Forward's.
func TestForwardAuxMatchesReference(t *testing.T) {
	sh := Shape{Planes: 9, Height: 7, Width: 7, Actions: 50}
	for _, cfg := range []Config{
		auxConfig,
		{Filters: 8, Blocks: 0, PolicyFilters: 1, ValueFilters: 2, ValueHidden: 5, Ownership: true, Score: true, WDL: true},
	} {
		w := randomWeights(t, cfg, sh, 5)
		const batch = 13 // chunks of 6 positions (336 rows / 49 points): 6, 6, 1
		net, err := NewNet(w, batch)
		if err != nil {
			t.Fatal(err)
		}
		obs := randomObs(sh, batch, rand.New(rand.NewPCG(3, 4)))
		hw, per := sh.Height*sh.Width, sh.Planes*sh.Height*sh.Width
		logits, values := make([]float32, batch*sh.Actions), make([]float32, batch)
		own, scores := make([]float32, batch*hw), make([]float32, batch)
		if err := net.ForwardAux(obs, batch, logits, values, own, scores); err != nil {
			t.Fatal(err)
		}
		l2, v2 := make([]float32, batch*sh.Actions), make([]float32, batch)
		if err := net.Forward(obs, batch, l2, v2); err != nil {
			t.Fatal(err)
		}
		for i := range l2 {
			if l2[i] != logits[i] {
				t.Fatalf("%+v: logit %d: ForwardAux %v, Forward %v", cfg, i, logits[i], l2[i])
			}
		}
		for i := range v2 {
			if v2[i] != values[i] {
				t.Fatalf("%+v: value %d: ForwardAux %v, Forward %v", cfg, i, values[i], v2[i])
			}
		}
		var worstOwn, worstScore float64
		distinct := false
		for b := range batch {
			wantOwn, wantScore := refAux(w, obs[b*per:(b+1)*per])
			for p, v := range wantOwn {
				worstOwn = max(worstOwn, math.Abs(float64(own[b*hw+p])-v))
				if math.Abs(v-wantOwn[0]) > 0.01 {
					distinct = true
				}
			}
			worstScore = max(worstScore, math.Abs(float64(scores[b])-wantScore)/max(1, math.Abs(wantScore)))
		}
		t.Logf("%+v: ownership within %.2g, score within %.2g (relative)", cfg, worstOwn, worstScore)
		if worstOwn > 1e-4 || worstScore > 1e-4 {
			t.Errorf("%+v: ownership differs from the reference by %g, score by %g (relative)", cfg, worstOwn, worstScore)
		}
		if !distinct {
			t.Errorf("%+v: every point has the same ownership: a degenerate test", cfg)
		}
	}
}

func TestForwardAuxErrors(t *testing.T) {
	sh := Shape{Planes: 3, Height: 5, Width: 5, Actions: 26}
	plain := randomWeights(t, Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4}, sh, 1)
	net, err := NewNet(plain, 2)
	if err != nil {
		t.Fatal(err)
	}
	if net.Model().HasOwnership() || net.Model().HasScore() {
		t.Fatal("a network without auxiliary heads reports them")
	}
	obs := randomObs(sh, 2, rand.New(rand.NewPCG(1, 1)))
	l, v := make([]float32, 2*26), make([]float32, 2)
	if err := net.ForwardAux(obs, 2, l, v, make([]float32, 50), nil); err == nil || !strings.Contains(err.Error(), "no ownership head") {
		t.Errorf("ownership of a network without the head: %v", err)
	}
	if err := net.ForwardAux(obs, 2, l, v, nil, make([]float32, 2)); err == nil || !strings.Contains(err.Error(), "no score head") {
		t.Errorf("score of a network without the head: %v", err)
	}
	if err := net.ForwardAux(obs, 2, l, v, nil, nil); err != nil {
		t.Errorf("ForwardAux asking for no head: %v", err)
	}
	aux := randomWeights(t, Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4, Ownership: true, Score: true}, sh, 1)
	if net, err = NewNet(aux, 2); err != nil {
		t.Fatal(err)
	}
	if err := net.ForwardAux(obs, 2, l, v, make([]float32, 49), nil); err == nil || !strings.Contains(err.Error(), "49 ownership values for 2 positions of 25") {
		t.Errorf("short ownership: %v", err)
	}
	if err := net.ForwardAux(obs, 2, l, v, nil, make([]float32, 1)); err == nil || !strings.Contains(err.Error(), "1 scores for 2 positions") {
		t.Errorf("short scores: %v", err)
	}
}

func TestForwardAuxAllocatesNothing(t *testing.T) {
	if gemm.Kernel() == "generic" {
		t.Skip("the portable gemm fallback allocates; the assembly kernels do not")
	}
	sh := Shape{Planes: 9, Height: 7, Width: 7, Actions: 50}
	w := randomWeights(t, auxConfig, sh, 3)
	net, err := NewNet(w, 16)
	if err != nil {
		t.Fatal(err)
	}
	obs := randomObs(sh, 16, rand.New(rand.NewPCG(1, 2)))
	l, v, own, sc := make([]float32, 16*sh.Actions), make([]float32, 16), make([]float32, 16*49), make([]float32, 16)
	allocs := testing.AllocsPerRun(3, func() {
		runtime.GC()
		if err := net.ForwardAux(obs, 16, l, v, own, sc); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per ForwardAux, want 0", allocs)
	}
}

// TestForwardAuxLowPrecision runs the auxiliary heads of bf16 and int8
// models (their towers in reduced precision, the heads in FP32) against
// FP32 on Go positions from random play.
func TestForwardAuxLowPrecision(t *testing.T) {
	g, err := games.New("go:size=7")
	if err != nil {
		t.Fatal(err)
	}
	p, h, wd := g.ObservationShape()
	sh := Shape{Planes: p, Height: h, Width: wd, Actions: g.NumActions()}
	cfg := Config{Filters: 32, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16, Ownership: true, Score: true}
	m, err := NewModel(randomWeights(t, cfg, sh, 11))
	if err != nil {
		t.Fatal(err)
	}
	calib, _, err := CalibrationPositions(g, 128, 1)
	if err != nil {
		t.Fatal(err)
	}
	obs, legal, err := CalibrationPositions(g, 40, 2)
	if err != nil {
		t.Fatal(err)
	}
	n, hw := len(legal), h*wd
	run := func(m *Model) (own, sc []float32) {
		net := m.newNet(n, defaultChunk(n, m.hw))
		l, v := make([]float32, n*sh.Actions), make([]float32, n)
		own, sc = make([]float32, n*hw), make([]float32, n)
		if err := net.ForwardAux(obs, n, l, v, own, sc); err != nil {
			t.Fatal(err)
		}
		return own, sc
	}
	refOwn, refSc := run(m)
	var scoreRange float64
	for _, s := range refSc {
		scoreRange = max(scoreRange, math.Abs(float64(s)))
	}
	for _, tc := range []struct {
		p                 Precision
		maxOwn, meanOwn   float64
		maxScoreRelToSpan float64
	}{
		// Random weights: looser than a trained net needs, as in
		// TestLowPrecisionParity; a head reading the wrong tower or a
		// broken kernel misses them by far.
		{BF16, 0.06, 0.005, 0.04},
		{Int8, 0.2, 0.02, 0.12},
	} {
		low, err := m.WithPrecision(tc.p, calib, 128)
		if err != nil {
			t.Fatal(err)
		}
		own, sc := run(low)
		var worst, sum, worstSc float64
		for i := range own {
			d := math.Abs(float64(own[i] - refOwn[i]))
			worst = max(worst, d)
			sum += d
		}
		for i := range sc {
			worstSc = max(worstSc, math.Abs(float64(sc[i]-refSc[i])))
		}
		mean := sum / float64(len(own))
		t.Logf("%s: ownership |d| max %.3g mean %.3g; score |d| max %.3g of a range %.3g", tc.p, worst, mean, worstSc, scoreRange)
		if worst > tc.maxOwn || mean > tc.meanOwn || worstSc > tc.maxScoreRelToSpan*scoreRange {
			t.Errorf("%s: ownership max %.3g (want <= %g), mean %.3g (<= %g); score max %.3g (<= %g of %.3g)",
				tc.p, worst, tc.maxOwn, mean, tc.meanOwn, worstSc, tc.maxScoreRelToSpan, scoreRange)
		}
	}
}

// TestEvaluateAux checks the Evaluator's auxiliary path against ForwardAux
// on the states' observations, over more states than one of its passes.
func TestEvaluateAux(t *testing.T) {
	g, err := games.New("go:size=5")
	if err != nil {
		t.Fatal(err)
	}
	p, h, wd := g.ObservationShape()
	sh := Shape{Planes: p, Height: h, Width: wd, Actions: g.NumActions()}
	w := randomWeights(t, Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8, Ownership: true, Score: true}, sh, 2)
	e, err := NewEvaluator(DefaultEvaluatorConfig(), w, g)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !e.HasOwnership() || !e.HasScore() {
		t.Fatal("evaluator does not report the heads")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var states []games.State
	s := g.NewInitialState()
	for len(states) < auxBatch+5 {
		if s.IsTerminal() {
			s = g.NewInitialState()
		}
		states = append(states, s.Clone())
		var buf []int
		buf = s.LegalActions(buf)
		s.ApplyAction(buf[rng.IntN(len(buf))])
	}
	n, hw := len(states), h*wd
	own := make([][]float32, n)
	for i := range own {
		own[i] = make([]float32, hw)
	}
	scores := make([]float32, n)
	if err := e.EvaluateAux(states, own, scores); err != nil {
		t.Fatal(err)
	}
	net, err := NewNet(w, n)
	if err != nil {
		t.Fatal(err)
	}
	obs := make([]float32, n*p*hw)
	for i, s := range states {
		s.Observation(obs[i*p*hw : (i+1)*p*hw])
	}
	wantOwn, wantSc := make([]float32, n*hw), make([]float32, n)
	if err := net.ForwardAux(obs, n, make([]float32, n*sh.Actions), make([]float32, n), wantOwn, wantSc); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if math.Abs(float64(scores[i]-wantSc[i])) > 1e-4 {
			t.Errorf("state %d: score %v, ForwardAux %v", i, scores[i], wantSc[i])
		}
		for q := range hw {
			if math.Abs(float64(own[i][q]-wantOwn[i*hw+q])) > 1e-5 {
				t.Fatalf("state %d point %d: ownership %v, ForwardAux %v", i, q, own[i][q], wantOwn[i*hw+q])
			}
		}
	}
	// Only the scores.
	sc2 := make([]float32, n)
	if err := e.EvaluateAux(states, nil, sc2); err != nil || math.Abs(float64(sc2[3]-scores[3])) > 1e-5 {
		t.Errorf("scores alone: %v, %v (want %v)", err, sc2[3], scores[3])
	}
	if st := e.Stats(); st.Requests != 0 || st.Evaluated != 0 {
		t.Errorf("EvaluateAux counted in the search's statistics: %+v", st)
	}
	// Errors name what is wrong.
	if err := e.EvaluateAux(states, nil, nil); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Errorf("nothing asked: %v", err)
	}
	if err := e.EvaluateAux(states[:2], own[:2], scores[:1]); err == nil || !strings.Contains(err.Error(), "2 states, 1 scores") {
		t.Errorf("short scores: %v", err)
	}
	if err := e.EvaluateAux(states[:1], [][]float32{make([]float32, 3)}, nil); err == nil || !strings.Contains(err.Error(), "3 values, want 25") {
		t.Errorf("short plane: %v", err)
	}
	plain := randomWeights(t, Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}, sh, 2)
	if err := e.SetWeights(plain); err != nil {
		t.Fatal(err)
	}
	if e.HasOwnership() || e.HasScore() {
		t.Error("after SetWeights to a network without heads, the evaluator still reports them")
	}
	if err := e.EvaluateAux(states[:1], nil, scores[:1]); err == nil || !strings.Contains(err.Error(), "no score head") {
		t.Errorf("score of a network without the head: %v", err)
	}
}
