package fit

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// synthetic draws n samples with dim standard normal features (a random
// subset of them present in each row, as sparse evaluation features are),
// an offset, and a result drawn from the logistic model
// P(y=1) = sigmoid(k*(offset + w·x)).
func synthetic(rng *rand.Rand, n int, w []float64, k float64) []Row {
	rows := make([]Row, n)
	for i := range rows {
		r := Row{Offset: 0.3 * rng.NormFloat64()}
		for j := range w {
			if rng.IntN(4) == 0 {
				continue
			}
			r.Idx = append(r.Idx, int32(j))
			r.Val = append(r.Val, rng.NormFloat64())
		}
		if rng.Float64() < sigmoid(k*r.Eval(w)) {
			r.Y = 1
		}
		rows[i] = r
	}
	return rows
}

func TestFitRecoversKnownWeights(t *testing.T) {
	truth := []float64{1.5, -0.8, 0.4, 0, 2.2, -1.1}
	for _, loss := range []Loss{CrossEntropy, MSE} {
		t.Run(loss.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(loss)))
			rows := synthetic(rng, 40000, truth, 1)
			res, err := Fit(rows, make([]float64, len(truth)), 1, Config{Loss: loss})
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range res.W {
				if math.Abs(w-truth[i]) > 0.1 {
					t.Errorf("weight %d = %.3f, want %.3f +- 0.1 (all: %.3f)", i, w, truth[i], res.W)
				}
			}
			if res.Loss >= Mean(rows, make([]float64, len(truth)), 1, loss) {
				t.Errorf("fitted loss %v not below the loss of zero weights", res.Loss)
			}
		})
	}
}

func TestFitKRecoversScale(t *testing.T) {
	// Weights in "centipawns" and a small K, as in chess: the prediction is
	// sigmoid(K*eval) with K = 0.004.
	truth := []float64{100, -60, 250, 30}
	const k = 0.004
	rng := rand.New(rand.NewPCG(2, 2))
	rows := synthetic(rng, 40000, truth, k)
	for _, loss := range []Loss{CrossEntropy, MSE} {
		got, err := FitK(rows, truth, loss, 1e-5, 1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-k)/k > 0.05 {
			t.Errorf("%v: K = %.5f, want %.5f within 5%%", loss, got, k)
		}
	}
	// With K fixed, the weights come back in their own units.
	res, err := Fit(rows, []float64{1, 1, 1, 1}, k, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range res.W {
		if math.Abs(w-truth[i]) > 0.1*math.Max(math.Abs(truth[i]), 50) {
			t.Errorf("weight %d = %.1f, want %.1f", i, w, truth[i])
		}
	}
}

func TestFitL2PullsToPrior(t *testing.T) {
	truth := []float64{1, -1}
	prior := []float64{3, 3}
	rng := rand.New(rand.NewPCG(3, 3))
	rows := synthetic(rng, 5000, truth, 1)
	loose, err := Fit(rows, prior, 1, Config{Prior: prior})
	if err != nil {
		t.Fatal(err)
	}
	tight, err := Fit(rows, prior, 1, Config{Prior: prior, L2: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i := range truth {
		if math.Abs(loose.W[i]-truth[i]) > 0.2 {
			t.Errorf("unpenalised weight %d = %.3f, want near %v", i, loose.W[i], truth[i])
		}
		if math.Abs(tight.W[i]-prior[i]) > 0.05 {
			t.Errorf("heavily penalised weight %d = %.3f, want near the prior %v", i, tight.W[i], prior[i])
		}
	}
	// A fixed weight keeps its starting value; the others still fit.
	fixed, err := Fit(rows, []float64{0.5, 0}, 1, Config{Fixed: []bool{true, false}})
	if err != nil {
		t.Fatal(err)
	}
	if fixed.W[0] != 0.5 || math.Abs(fixed.W[1]-truth[1]) > 0.2 {
		t.Errorf("with weight 0 fixed at 0.5: %v, want [0.5 ~%v]", fixed.W, truth[1])
	}
	// A feature no sample has keeps its starting value.
	res, err := Fit(rows, []float64{0, 0, 7}, 1, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if res.W[2] != 7 {
		t.Errorf("unseen feature moved to %v", res.W[2])
	}
}

func TestFitRejectsBadInput(t *testing.T) {
	good := []Row{{Idx: []int32{0}, Val: []float64{1}, Y: 1}}
	cases := []struct {
		name string
		rows []Row
		w    []float64
		k    float64
		cfg  Config
		want string
	}{
		{"no rows", nil, []float64{0}, 1, Config{}, "no samples"},
		{"index", []Row{{Idx: []int32{3}, Val: []float64{1}}}, []float64{0}, 1, Config{}, "index 3"},
		{"lengths", []Row{{Idx: []int32{0}}}, []float64{0}, 1, Config{}, "1 indices but 0 values"},
		{"result", []Row{{Y: 2}}, []float64{0}, 1, Config{}, "result 2"},
		{"nan", []Row{{Idx: []int32{0}, Val: []float64{math.NaN()}}}, []float64{0}, 1, Config{}, "not finite"},
		{"k", good, []float64{0}, 0, Config{}, "K = 0"},
		{"l2", good, []float64{0}, 1, Config{L2: -1}, "L2 = -1"},
		{"prior", good, []float64{0}, 1, Config{Prior: []float64{1, 2}}, "2 prior weights"},
	}
	for _, c := range cases {
		_, err := Fit(c.rows, c.w, c.k, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := FitK(good, []float64{0}, MSE, 1e-3, 1); err == nil {
		t.Error("FitK with every evaluation 0: no error")
	}
	if _, err := ParseLoss("l1"); err == nil {
		t.Error("ParseLoss(l1): no error")
	}
}
