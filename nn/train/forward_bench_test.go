package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"tabula/nn"
)

// peakGFLOPsPerCore is the FP32 FMA peak of one core of the development
// machine (AMD Zen 5, two 512-bit FMA units: 2 units x 16 lanes x 2 FLOPs
// x ~3.4 GHz; docs/benchmarks.md, "Machines"), the same figure nn's
// benchmarks use.
const peakGFLOPsPerCore = 217

// BenchmarkForwardCompare runs gorgonia's inference-mode forward pass (with
// gonum's BLAS and with our SGEMM) and nn's forward pass side by side on the
// Connect Four net (nn.DefaultConfig, 2x6x7, 7 actions) at several batch
// sizes, plus nn's pass on two goroutines at batch 32 and 256. Every
// sub-benchmark reports pos/s (wall clock), pos/cpu-s (per CPU second of the
// whole process, steadier on a shared machine), %peak (wall clock, relative
// to the cores it means to use) and %peak-cpu (per CPU second, relative to
// one core). The rows of nn's pass also report x-gorgonia-gonum and
// x-gorgonia-tabula: their pos/cpu-s over that gorgonia run's at the same
// batch, when it ran. The FLOPs per position, for all rows, are
// (*nn.Model).FLOPsPerPosition of the same network.
func BenchmarkForwardCompare(b *testing.B) {
	shape := nn.Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}
	rng := rand.New(rand.NewPCG(1, 2))
	w, err := nn.NewWeights(nn.DefaultConfig(), shape, rng)
	if err != nil {
		b.Fatal(err)
	}
	randomizeBN(w, rng)
	model, err := nn.NewModel(w)
	if err != nil {
		b.Fatal(err)
	}
	flop := float64(model.FLOPsPerPosition())
	const maxBatch = 256
	obs := make([]float32, maxBatch*shape.Planes*shape.Height*shape.Width)
	for i := range obs {
		obs[i] = float32(rng.IntN(2))
	}

	report := func(b *testing.B, positions int, cpu0 float64, cores int) float64 {
		b.StopTimer() // reporting's own allocations are not the pass's
		pos := float64(positions) / b.Elapsed().Seconds()
		b.ReportMetric(pos, "pos/s")
		b.ReportMetric(100*pos*flop/1e9/(peakGFLOPsPerCore*float64(cores)), "%peak")
		cpu := processCPUSeconds() - cpu0
		if cpu <= 0 {
			return 0
		}
		posCPU := float64(positions) / cpu
		b.ReportMetric(posCPU, "pos/cpu-s")
		b.ReportMetric(100*posCPU*flop/1e9/peakGFLOPsPerCore, "%peak-cpu")
		return posCPU
	}

	for _, batch := range []int{1, 8, 32, 128, 256} {
		in := obs[:batch*shape.Planes*shape.Height*shape.Width]
		// The reference outputs of nn's pass, which gorgonia's must match
		// so that both sides compute the same thing.
		ref, err := model.NewNet(batch)
		if err != nil {
			b.Fatal(err)
		}
		refL, refV := make([]float32, batch*shape.Actions), make([]float32, batch)
		if err := ref.Forward(in, batch, refL, refV); err != nil {
			b.Fatal(err)
		}
		gorgonia := map[string]float64{} // pos/cpu-s of each gorgonia run at this batch
		for _, blas := range []string{BLASGonum, BLASTabula} {
			b.Run(fmt.Sprintf("impl=gorgonia-%s/batch=%d", blas, batch), func(b *testing.B) {
				if err := UseBLAS(blas); err != nil {
					b.Fatal(err)
				}
				defer func() {
					if err := UseBLAS(BLASGonum); err != nil {
						b.Error(err)
					}
				}()
				inf, err := newInference(w, batch)
				if err != nil {
					b.Fatal(err)
				}
				defer func() {
					if err := inf.Close(); err != nil {
						b.Error(err)
					}
				}()
				l, v, err := inf.Forward(in) // warm up and check
				if err != nil {
					b.Fatal(err)
				}
				if d := maxAbsDiff(l, refL, v, refV); d > 1e-3 {
					b.Fatalf("gorgonia and nn differ by %g", d)
				}
				b.ReportAllocs()
				cpu0 := processCPUSeconds()
				b.ResetTimer()
				for range b.N {
					if _, _, err := inf.Forward(in); err != nil {
						b.Fatal(err)
					}
				}
				gorgonia[blas] = report(b, b.N*batch, cpu0, 1)
			})
		}
		speedup := func(b *testing.B, posCPU float64) {
			for blas, rate := range gorgonia {
				if rate > 0 && posCPU > 0 {
					b.ReportMetric(posCPU/rate, "x-gorgonia-"+blas)
				}
			}
		}
		b.Run(fmt.Sprintf("impl=ours/batch=%d", batch), func(b *testing.B) {
			net, err := model.NewNet(batch)
			if err != nil {
				b.Fatal(err)
			}
			logits, values := make([]float32, batch*shape.Actions), make([]float32, batch)
			if err := net.Forward(in, batch, logits, values); err != nil { // warm up
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := processCPUSeconds()
			b.ResetTimer()
			for range b.N {
				if err := net.Forward(in, batch, logits, values); err != nil {
					b.Fatal(err)
				}
			}
			speedup(b, report(b, b.N*batch, cpu0, 1))
		})
		if batch != 32 && batch != 256 {
			continue
		}
		b.Run(fmt.Sprintf("impl=ours-2workers/batch=%d", batch), func(b *testing.B) {
			net, err := model.NewNet(batch)
			if err != nil {
				b.Fatal(err)
			}
			nets := []*nn.Net{net, net.NewWorker()}
			outs := make([][2][]float32, len(nets))
			for i, n := range nets {
				outs[i] = [2][]float32{make([]float32, batch*shape.Actions), make([]float32, batch)}
				if err := n.Forward(in, batch, outs[i][0], outs[i][1]); err != nil { // warm up
					b.Fatal(err)
				}
			}
			// The goroutines start before the timer, so that allocs/op
			// counts the passes, not the goroutines' creation.
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i, n := range nets {
				wg.Go(func() {
					<-start
					for range b.N {
						if err := n.Forward(in, batch, outs[i][0], outs[i][1]); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			b.ReportAllocs()
			cpu0 := processCPUSeconds()
			b.ResetTimer()
			close(start)
			wg.Wait()
			speedup(b, report(b, len(nets)*b.N*batch, cpu0, len(nets)))
		})
	}
}

// maxAbsDiff is the largest absolute difference between l and refL and
// between v and refV, or +Inf when their lengths differ.
func maxAbsDiff(l, refL, v, refV []float32) float64 {
	if len(l) != len(refL) || len(v) != len(refV) {
		return math.Inf(1)
	}
	worst := 0.0
	for i := range l {
		worst = math.Max(worst, math.Abs(float64(l[i]-refL[i])))
	}
	for i := range v {
		worst = math.Max(worst, math.Abs(float64(v[i]-refV[i])))
	}
	return worst
}
