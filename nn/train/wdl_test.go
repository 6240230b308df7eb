package train

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/nn"
)

func wdlWeights(t testing.TB, seed uint64, score bool) *nn.Weights {
	t.Helper()
	cfg := nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16, WDL: true, Score: score}
	w, err := nn.NewWeights(cfg, tinyShape, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The win/draw/loss head's gradient, with targets that are wins, draws,
// losses and mixtures of them (mixed value targets), and beside the score
// head, which shares its hidden layer.
func TestWDLGradientMatchesFiniteDifferences(t *testing.T) {
	for _, score := range []bool{false, true} {
		w := wdlWeights(t, 91, score)
		randomizeBN(w, rand.New(rand.NewPCG(92, 93)))
		d := newDataset(tinyShape, 8, rand.New(rand.NewPCG(94, 95)), true)
		b := d.batch(tinyShape, 0, 8)
		b.Value = []float32{1, 0, -1, 0.4, -0.3, 1, 0, -0.9}
		if score {
			b.Score = []float32{0.1, 0, -0.2, 0.05, -0.1, 0.3, 0, -0.4}
			b.AuxWeight = []float32{1, 1, 1, 1, 0, 1, 1, 1}
		}
		directFiniteDifferences(t, w, b, 20)
	}
}

// The value loss is the cross-entropy against nn.WDLTarget, checked at
// weights whose head outputs are known, and training drives the head's
// value p(win) - p(loss) to the targets of a fixed set of wins, draws and
// losses, read back through the inference Model.
func TestWDLLearns(t *testing.T) {
	w := wdlWeights(t, 7, false)
	clear(w.ValueFC2.W)
	copy(w.ValueFC2.B, []float32{1, 0, -1})
	cfg := DefaultConfig()
	cfg.BatchSize = 32
	cfg.LearningRate = 0.01
	tr := newTrainer(t, cfg, w)
	d := newDataset(tinyShape, 32, rand.New(rand.NewPCG(3, 4)), false)
	b := d.batch(tinyShape, 0, 32)

	// p = softmax(1, 0, -1) for every position.
	s := math.E + 1 + 1/math.E
	logp := [3]float64{1 - math.Log(s), -math.Log(s), -1 - math.Log(s)}
	var want float64
	for _, z := range b.Value {
		tg := nn.WDLTarget(z)
		for k := range tg {
			want -= float64(tg[k]) * logp[k]
		}
	}
	want /= 32
	first, err := tr.Step(b)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(first.Value-want) > 1e-5 {
		t.Fatalf("first value loss %v, want the cross-entropy %v", first.Value, want)
	}
	var last Losses
	for range 300 {
		if last, err = tr.Step(b); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("value loss %.4f -> %.4f", first.Value, last.Value)
	if !(last.Value < 0.1) {
		t.Errorf("value loss %v after 300 steps on 32 fixed examples, want < 0.1", last.Value)
	}
	m, err := nn.NewModel(w)
	if err != nil {
		t.Fatal(err)
	}
	net, err := m.NewNet(32)
	if err != nil {
		t.Fatal(err)
	}
	values := make([]float32, 32)
	if err := net.Forward(b.Obs, 32, make([]float32, 32*tinyShape.Actions), values); err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		if math.Abs(float64(v-b.Value[i])) > 0.25 {
			t.Errorf("position %d: value %v after training, target %v", i, v, b.Value[i])
		}
	}
}

func TestWDLEngines(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BatchSize = 4
	if tr := newTrainer(t, cfg, wdlWeights(t, 1, false)); tr.direct == nil {
		t.Error("auto: a win/draw/loss network is not on the direct engine")
	}
	cfg.Engine = EngineGorgonia
	_, err := New(cfg, wdlWeights(t, 1, false), rand.New(rand.NewPCG(1, 1)))
	if err == nil || !strings.Contains(err.Error(), "win/draw/loss") {
		t.Errorf("gorgonia engine on a win/draw/loss network: error %v", err)
	}
}
