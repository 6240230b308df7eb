package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"tabula/nn"
)

// TestPolicyLossFinite trains on batches where most moves are illegal and
// the single legal move sits at every index, the case that made gorgonia's
// LogSoftMax return -Inf rows; the policy loss must stay finite and match
// a float64 computation of -log p(legal move).
func TestPolicyLossFinite(t *testing.T) {
	shape := nn.Shape{Planes: 3, Height: 6, Width: 6, Actions: 7}
	w, err := nn.NewWeights(nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16}, shape, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.BatchSize = 32
	tr, err := New(cfg, w, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	rng := rand.New(rand.NewPCG(3, 3))
	B, A := 32, 7
	b := Batch{Obs: make([]float32, B*3*36), Policy: make([]float32, B*A), Value: make([]float32, B), Legal: make([]float32, B*A)}
	for i := range b.Obs {
		b.Obs[i] = float32(rng.IntN(2))
	}
	for i := 0; i < B; i++ {
		a := i % A // the only legal move, at every index including 0
		b.Legal[i*A+a], b.Policy[i*A+a] = 1, 1
	}
	for s := 0; s < 5; s++ {
		l, err := tr.Step(b)
		if err != nil {
			t.Fatalf("step %d: %v", s, err)
		}
		// With one legal move its probability is exactly 1: the loss is 0.
		if math.Abs(l.Policy) > 1e-5 {
			t.Fatalf("step %d: policy loss %v with a single legal move, want 0", s, l.Policy)
		}
	}
	// Two legal moves with a split target: the loss is a finite cross-entropy.
	for i := 0; i < B; i++ {
		for a := 0; a < A; a++ {
			b.Legal[i*A+a], b.Policy[i*A+a] = 0, 0
		}
		b.Legal[i*A], b.Legal[i*A+3] = 1, 1
		b.Policy[i*A], b.Policy[i*A+3] = 0.5, 0.5
	}
	l, err := tr.Step(b)
	if err != nil || !(l.Policy >= math.Ln2-1e-4) || l.Policy > 10 {
		t.Fatalf("two legal moves: policy loss %v, err %v; want finite and >= ln 2", l.Policy, err)
	}
}
