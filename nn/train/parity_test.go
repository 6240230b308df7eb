package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"tabula/nn"
)

// randomizeBN gives every batch normalisation random scale, shift and
// running statistics, so that folding them into the convolutions is tested.
func randomizeBN(w *nn.Weights, rng *rand.Rand) {
	for _, ts := range w.Tensors() {
		if len(ts.Shape) != 1 {
			continue
		}
		for i := range ts.Data {
			switch name := ts.Name; {
			case len(name) > 4 && name[len(name)-4:] == ".var":
				ts.Data[i] = 0.5 + rng.Float32()
			case len(name) > 6 && name[len(name)-6:] == ".gamma":
				ts.Data[i] = 0.5 + rng.Float32()
			default: // beta, mean, biases
				ts.Data[i] = float32(rng.NormFloat64() * 0.3)
			}
		}
	}
}

// TestForwardParity shows that nn's fast forward pass equals gorgonia's
// inference-mode forward pass (running statistics) on random weights and
// random positions.
func TestForwardParity(t *testing.T) {
	for _, tc := range []struct {
		cfg   nn.Config
		shape nn.Shape
	}{
		{nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16}, nn.Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}},
		{nn.Config{Filters: 16, Blocks: 2, PolicyFilters: 2, ValueFilters: 2, ValueHidden: 8}, nn.Shape{Planes: 3, Height: 6, Width: 6, Actions: 37}},
		{nn.DefaultConfig(), nn.Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}},
		// Global pooling in blocks 1 and 3, and the auxiliary heads (which
		// the fast pass skips).
		{nn.Config{Filters: 16, Blocks: 4, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8,
			Ownership: true, Score: true, GlobalPooling: true, PoolChannels: 6}, nn.Shape{Planes: 9, Height: 7, Width: 7, Actions: 50}},
		{nn.Config{Filters: 8, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16, GlobalPooling: true},
			nn.Shape{Planes: 3, Height: 6, Width: 6, Actions: 37}},
	} {
		for _, batch := range []int{1, 8} {
			t.Run(fmt.Sprintf("%dx%d/pool%d/batch%d", tc.cfg.Filters, tc.cfg.Blocks, tc.cfg.Pooled(), batch), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(batch), 21))
				w, err := nn.NewWeights(tc.cfg, tc.shape, rng)
				if err != nil {
					t.Fatal(err)
				}
				randomizeBN(w, rng)
				s := tc.shape
				obs := make([]float32, batch*s.Planes*s.Height*s.Width)
				for i := range obs {
					obs[i] = float32(rng.IntN(2))
				}
				wantL, wantV := evalForward(t, w, obs, batch)

				net, err := nn.NewNet(w, batch)
				if err != nil {
					t.Fatal(err)
				}
				gotL := make([]float32, batch*s.Actions)
				gotV := make([]float32, batch)
				if err := net.Forward(obs, batch, gotL, gotV); err != nil {
					t.Fatal(err)
				}
				worst := 0.0
				for i := range wantL {
					worst = math.Max(worst, math.Abs(float64(gotL[i]-wantL[i])))
				}
				for i := range wantV {
					worst = math.Max(worst, math.Abs(float64(gotV[i]-wantV[i])))
				}
				t.Logf("largest difference %.2g", worst)
				if worst > 1e-4 {
					t.Errorf("fast forward differs from gorgonia by %g (logits %v vs %v, values %v vs %v)",
						worst, gotL[:min(7, len(gotL))], wantL[:min(7, len(wantL))], gotV, wantV)
				}
				// The outputs are not trivially equal: logits vary across
				// positions.
				if batch > 1 && wantL[0] == wantL[s.Actions] {
					t.Errorf("logits of positions 0 and 1 are equal (%v): a degenerate test", wantL[0])
				}
			})
		}
	}
}

// TestForwardParityAfterTraining compares the two forward passes on weights
// and running statistics produced by training.
func TestForwardParityAfterTraining(t *testing.T) {
	w := tinyWeights(t, 22)
	cfg := DefaultConfig()
	cfg.BatchSize, cfg.LearningRate = 16, 0.01
	tr := newTrainer(t, cfg, w)
	d := newDataset(tinyShape, 16, rand.New(rand.NewPCG(23, 24)), true)
	for range 30 {
		if _, err := tr.Step(d.batch(tinyShape, 0, 16)); err != nil {
			t.Fatal(err)
		}
	}
	snap := tr.Weights()
	wantL, wantV := evalForward(t, snap, d.obs, 16)
	net, err := nn.NewNet(snap, 16)
	if err != nil {
		t.Fatal(err)
	}
	gotL, gotV := make([]float32, 16*7), make([]float32, 16)
	if err := net.Forward(d.obs, 16, gotL, gotV); err != nil {
		t.Fatal(err)
	}
	for i := range wantL {
		if math.Abs(float64(gotL[i]-wantL[i])) > 1e-4 {
			t.Fatalf("logit %d: fast %v, gorgonia %v", i, gotL[i], wantL[i])
		}
	}
	for i := range wantV {
		if math.Abs(float64(gotV[i]-wantV[i])) > 1e-4 {
			t.Fatalf("value %d: fast %v, gorgonia %v", i, gotV[i], wantV[i])
		}
	}
}

// TestAuxForwardParity shows that the inference pass's auxiliary heads
// (nn.Net.ForwardAux) answer what the training graph's heads are trained
// on: the ownership is tanh of the graph's raw ownership output (the
// prediction OwnershipLoss scores), and the score, in the game's unit, is
// the graph's score output (the target margin/ScoreScale) times
// ScoreScale. FP32 on both sides.
func TestAuxForwardParity(t *testing.T) {
	for _, tc := range []struct {
		cfg   nn.Config
		shape nn.Shape
	}{
		{nn.Config{Filters: 16, Blocks: 4, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8,
			Ownership: true, Score: true, GlobalPooling: true, PoolChannels: 6}, nn.Shape{Planes: 9, Height: 7, Width: 7, Actions: 50}},
		{nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 2, ValueHidden: 6, Ownership: true, Score: true},
			nn.Shape{Planes: 9, Height: 5, Width: 5, Actions: 26}},
	} {
		const batch = 9 // two of ForwardAux's chunks on 7x7
		rng := rand.New(rand.NewPCG(7, 8))
		w, err := nn.NewWeights(tc.cfg, tc.shape, rng)
		if err != nil {
			t.Fatal(err)
		}
		randomizeBN(w, rng)
		s := tc.shape
		hw := s.Height * s.Width
		obs := make([]float32, batch*s.Planes*hw)
		for i := range obs {
			obs[i] = float32(rng.IntN(2))
		}
		inf, err := newInference(w, batch)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := inf.Forward(obs); err != nil {
			t.Fatal(err)
		}
		rawOwn, rawScore := inf.Aux()
		inf.Close()
		if len(rawOwn) != batch*hw || len(rawScore) != batch {
			t.Fatalf("training graph: %d ownership values, %d scores", len(rawOwn), len(rawScore))
		}
		net, err := nn.NewNet(w, batch)
		if err != nil {
			t.Fatal(err)
		}
		own, scores := make([]float32, batch*hw), make([]float32, batch)
		if err := net.ForwardAux(obs, batch, make([]float32, batch*s.Actions), make([]float32, batch), own, scores); err != nil {
			t.Fatal(err)
		}
		scale := float64(s.ScoreScale())
		var worstOwn, worstScore float64
		for i, raw := range rawOwn {
			worstOwn = max(worstOwn, math.Abs(float64(own[i])-math.Tanh(float64(raw))))
		}
		for i, raw := range rawScore {
			worstScore = max(worstScore, math.Abs(float64(scores[i])/scale-float64(raw)))
		}
		t.Logf("%dx%d: ownership within %.2g, score/ScoreScale within %.2g", tc.cfg.Filters, tc.cfg.Blocks, worstOwn, worstScore)
		if worstOwn > 1e-4 || worstScore > 1e-4 {
			t.Errorf("%+v: inference differs from the training graph: ownership by %g, score/ScoreScale by %g", tc.cfg, worstOwn, worstScore)
		}
		if rawScore[0] == rawScore[1] || rawOwn[0] == rawOwn[1] {
			t.Error("outputs equal across positions or points: a degenerate test")
		}
	}
}
