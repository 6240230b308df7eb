package nn

import (
	"fmt"
	"testing"
)

// BenchmarkForwardPrecision runs the Connect Four net (DefaultConfig,
// random weights) at each precision side by side, on positions from random
// play, at the batch sizes self-play uses (mcts batch_size 32, evaluator
// max_batch 64) and at 1 and 256. pos/cpu-s is the figure to compare;
// %peak stays relative to the FP32 FMA peak.
func BenchmarkForwardPrecision(b *testing.B) {
	g := connect4Game(b)
	obs, _, err := CalibrationPositions(g, 256, 1)
	if err != nil {
		b.Fatal(err)
	}
	m, err := NewModel(randomWeights(b, DefaultConfig(), connect4Shape, 1))
	if err != nil {
		b.Fatal(err)
	}
	models := []*Model{m}
	for _, p := range []Precision{BF16, Int8} {
		low, err := m.WithPrecision(p, obs, 256)
		if err != nil {
			b.Fatal(err)
		}
		models = append(models, low)
	}
	for _, batch := range []int{1, 8, 32, 64, 256} {
		for _, m := range models {
			b.Run(fmt.Sprintf("batch=%d/%s", batch, m.Precision()), func(b *testing.B) {
				net, err := m.NewNet(batch)
				if err != nil {
					b.Fatal(err)
				}
				timeForward(b, net, obs, batch, make([]float32, batch*7), make([]float32, batch))
			})
		}
	}
}

// BenchmarkForwardPrecisionFilters runs the Connect Four net at the widths a
// config may choose, FP32 beside int8, at self-play's batch of 32: a width
// whose int8 kernel falls off its fast path shows as a low int8/fp32 ratio.
func BenchmarkForwardPrecisionFilters(b *testing.B) {
	g := connect4Game(b)
	obs, _, err := CalibrationPositions(g, 256, 1)
	if err != nil {
		b.Fatal(err)
	}
	const batch = 32
	for _, filters := range []int{32, 40, 48, 64} {
		cfg := DefaultConfig()
		cfg.Filters = filters
		m, err := NewModel(randomWeights(b, cfg, connect4Shape, 1))
		if err != nil {
			b.Fatal(err)
		}
		low, err := m.WithPrecision(Int8, obs, 256)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range []*Model{m, low} {
			b.Run(fmt.Sprintf("filters=%d/%s", filters, m.Precision()), func(b *testing.B) {
				net, err := m.NewNet(batch)
				if err != nil {
					b.Fatal(err)
				}
				timeForward(b, net, obs, batch, make([]float32, batch*7), make([]float32, batch))
			})
		}
	}
}
