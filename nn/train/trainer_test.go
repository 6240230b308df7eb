package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"tabula/nn"
)

// tinyShape is Connect Four's: 2 planes of 6x7, 7 actions.
var tinyShape = nn.Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}

func tinyWeights(t testing.TB, seed uint64) *nn.Weights {
	t.Helper()
	cfg := nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16}
	w, err := nn.NewWeights(cfg, tinyShape, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// dataset is a fixed set of random boards with random target policies
// (peaked on one legal move) and values.
type dataset struct {
	n                         int
	obs, policy, value, legal []float32
	best                      []int // argmax of each target policy
}

func newDataset(shape nn.Shape, n int, rng *rand.Rand, withMask bool) *dataset {
	cells := shape.Planes * shape.Height * shape.Width
	d := &dataset{n: n, obs: make([]float32, n*cells), policy: make([]float32, n*shape.Actions),
		value: make([]float32, n), best: make([]int, n)}
	if withMask {
		d.legal = make([]float32, n*shape.Actions)
	}
	hw := shape.Height * shape.Width
	for i := range n {
		for c := range hw { // each cell empty, mine or theirs
			switch rng.IntN(3) {
			case 1:
				d.obs[i*cells+c] = 1
			case 2:
				d.obs[i*cells+hw+c] = 1
			}
		}
		pol := d.policy[i*shape.Actions : (i+1)*shape.Actions]
		var legal []int
		for a := range shape.Actions {
			if !withMask || rng.IntN(4) != 0 {
				legal = append(legal, a)
				if withMask {
					d.legal[i*shape.Actions+a] = 1
				}
			}
		}
		if len(legal) == 0 {
			legal = []int{0}
			if withMask {
				d.legal[i*shape.Actions] = 1
			}
		}
		best := legal[rng.IntN(len(legal))]
		var sum float32
		for _, a := range legal {
			pol[a] = 0.2 * rng.Float32()
			sum += pol[a]
		}
		pol[best] += 1
		sum += 1
		for _, a := range legal {
			pol[a] /= sum
		}
		d.best[i] = best
		d.value[i] = float32(rng.IntN(3) - 1)
	}
	return d
}

// batch returns examples [i, i+b).
func (d *dataset) batch(shape nn.Shape, i, b int) Batch {
	cells := shape.Planes * shape.Height * shape.Width
	bt := Batch{Obs: d.obs[i*cells : (i+b)*cells], Policy: d.policy[i*shape.Actions : (i+b)*shape.Actions],
		Value: d.value[i : i+b]}
	if d.legal != nil {
		bt.Legal = d.legal[i*shape.Actions : (i+b)*shape.Actions]
	}
	return bt
}

func TestTrainingLearnsFixedDataset(t *testing.T) {
	for _, opt := range []string{"adam", "sgd"} {
		t.Run(opt, func(t *testing.T) {
			w := tinyWeights(t, 7)
			cfg := DefaultConfig()
			cfg.BatchSize = 32
			cfg.Optimizer = opt
			if opt == "sgd" {
				cfg.LearningRate = 0.05
			} else {
				cfg.LearningRate = 0.01
			}
			cfg.WeightDecay = 1e-4
			tr, err := New(cfg, w, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			d := newDataset(tinyShape, 32, rand.New(rand.NewPCG(3, 4)), false)
			b := d.batch(tinyShape, 0, 32)
			first, err := tr.Step(b)
			if err != nil {
				t.Fatal(err)
			}
			var last Losses
			for range 200 {
				if last, err = tr.Step(b); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%s: first %+v last %+v", opt, first, last)
			if !(last.Total < 0.5*first.Total) {
				t.Errorf("total loss %v -> %v, want it at least halved", first.Total, last.Total)
			}
			if math.Abs(last.Total-(last.Value+last.Policy+last.L2)) > 1e-9 {
				t.Errorf("total %v != value+policy+l2 %v", last.Total, last.Value+last.Policy+last.L2)
			}
			if last.L2 <= 0 {
				t.Errorf("L2 = %v, want > 0 with weight decay", last.L2)
			}
			logits, _ := evalForward(t, w, d.obs, 32)
			match := 0
			for i := range 32 {
				if argmax(logits[i*7:(i+1)*7]) == d.best[i] {
					match++
				}
			}
			if match < 28 {
				t.Errorf("argmax matches target on %d of 32 examples, want at least 28", match)
			}
		})
	}
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// evalForward runs gorgonia's inference-mode forward pass (running
// statistics) over batch positions.
func evalForward(t testing.TB, w *nn.Weights, obs []float32, batch int) (logits, values []float32) {
	t.Helper()
	inf, err := newInference(w, batch)
	if err != nil {
		t.Fatal(err)
	}
	defer inf.Close()
	logits, values, err = inf.Forward(obs)
	if err != nil {
		t.Fatal(err)
	}
	return logits, values
}
