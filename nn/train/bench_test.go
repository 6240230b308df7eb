package train

import (
	"math/rand/v2"
	"testing"

	"tabula/nn"
)

// BenchmarkTrainStep measures training samples per second at batch 256 for
// the Connect Four 64x5 network with Adam, with each BLAS.
func BenchmarkTrainStep(b *testing.B) {
	shape := nn.Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}
	for _, blas := range []string{BLASGonum, BLASTabula} {
		b.Run("blas="+blas, func(b *testing.B) {
			if err := UseBLAS(blas); err != nil {
				b.Fatal(err)
			}
			defer UseBLAS(BLASGonum)
			w, err := nn.NewWeights(nn.DefaultConfig(), shape, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			cfg := DefaultConfig()
			tr, err := New(cfg, w, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			d := newDataset(shape, cfg.BatchSize, rand.New(rand.NewPCG(5, 6)), true)
			batch := d.batch(shape, 0, cfg.BatchSize)
			if _, err := tr.Step(batch); err != nil { // warm up
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := processCPUSeconds()
			b.ResetTimer()
			for b.Loop() {
				if _, err := tr.Step(batch); err != nil {
					b.Fatal(err)
				}
			}
			samples := float64(b.N * cfg.BatchSize)
			b.ReportMetric(samples/b.Elapsed().Seconds(), "samples/s")
			if cpu := processCPUSeconds() - cpu0; cpu > 0 {
				b.ReportMetric(samples/cpu, "samples/cpu-s")
			}
		})
	}
}

// BenchmarkTrainStepAux measures a training step at batch 256 of the go7
// network (64 filters, 5 blocks, 7x7 Go input) plain, with the ownership and
// score heads, and with the heads and global pooling: the training cost of
// the auxiliary targets.
func BenchmarkTrainStepAux(b *testing.B) {
	shape := nn.Shape{Planes: 9, Height: 7, Width: 7, Actions: 50}
	if err := UseBLAS(BLASTabula); err != nil {
		b.Fatal(err)
	}
	defer UseBLAS(BLASGonum)
	for _, tc := range []struct {
		name        string
		heads, pool bool
	}{{"plain", false, false}, {"heads", true, false}, {"heads+pool", true, true}} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := nn.Config{Filters: 64, Blocks: 5, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 64,
				Ownership: tc.heads, Score: tc.heads, GlobalPooling: tc.pool}
			w, err := nn.NewWeights(cfg, shape, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			tcfg := DefaultConfig()
			tr, err := New(tcfg, w, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			d := newDataset(shape, tcfg.BatchSize, rand.New(rand.NewPCG(5, 6)), true)
			batch := d.batch(shape, 0, tcfg.BatchSize)
			hw := shape.Height * shape.Width
			batch.Ownership = make([]float32, tcfg.BatchSize*hw)
			batch.Score = make([]float32, tcfg.BatchSize)
			batch.AuxWeight = make([]float32, tcfg.BatchSize)
			for i := range batch.AuxWeight {
				batch.AuxWeight[i] = 1
				batch.Score[i] = float32(i%20) - 10
				for p := 0; p < hw; p++ {
					batch.Ownership[i*hw+p] = float32((i+p)%3 - 1)
				}
			}
			if _, err := tr.Step(batch); err != nil { // warm up
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := processCPUSeconds()
			b.ResetTimer()
			for b.Loop() {
				if _, err := tr.Step(batch); err != nil {
					b.Fatal(err)
				}
			}
			samples := float64(b.N * tcfg.BatchSize)
			b.ReportMetric(samples/b.Elapsed().Seconds(), "samples/s")
			if cpu := processCPUSeconds() - cpu0; cpu > 0 {
				b.ReportMetric(samples/cpu, "samples/cpu-s")
			}
		})
	}
}
