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
