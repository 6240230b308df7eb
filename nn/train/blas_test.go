package train

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBLASChoicesAgree trains the same network from the same start on the
// gorgonia engine with gonum's BLAS and with ours: losses and weights agree
// up to rounding.
func TestBLASChoicesAgree(t *testing.T) {
	defer UseBLAS(BLASGonum)
	d := newDataset(tinyShape, 16, rand.New(rand.NewPCG(31, 32)), true)
	var losses [2][]float64
	var weights [2][]float32
	for k, name := range []string{BLASGonum, BLASTabula} {
		if err := UseBLAS(name); err != nil {
			t.Fatal(err)
		}
		w := tinyWeights(t, 33)
		cfg := DefaultConfig()
		cfg.BatchSize, cfg.Engine = 16, EngineGorgonia
		tr := newTrainer(t, cfg, w)
		for range 10 {
			l, err := tr.Step(d.batch(tinyShape, 0, 16))
			if err != nil {
				t.Fatal(err)
			}
			losses[k] = append(losses[k], l.Total)
		}
		for _, ts := range w.Tensors() {
			weights[k] = append(weights[k], ts.Data...)
		}
	}
	for i := range losses[0] {
		if math.Abs(losses[0][i]-losses[1][i]) > 1e-4*math.Abs(losses[0][i]) {
			t.Errorf("step %d: loss %v with gonum, %v with tabula", i, losses[0][i], losses[1][i])
		}
	}
	var worst float64
	for i := range weights[0] {
		worst = math.Max(worst, math.Abs(float64(weights[0][i]-weights[1][i])))
	}
	t.Logf("largest weight difference %g", worst)
	if worst > 1e-3 {
		t.Errorf("weights differ by up to %v after 10 steps", worst)
	}
	if err := UseBLAS("openblas"); err == nil {
		t.Error(`UseBLAS("openblas") succeeded`)
	}
}
