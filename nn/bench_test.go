package nn

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// peakGFLOPsPerCore is the FP32 FMA peak measured on one core of the
// development machine (AMD Zen 5, two 512-bit FMA units; see DESIGN.md).
const peakGFLOPsPerCore = 217

// connect4Shape is the Connect Four observation and action shape.
var connect4Shape = Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}

func benchNet(b *testing.B, maxBatch int) (*Net, []float32, []float32, []float32) {
	b.Helper()
	w := randomWeights(b, DefaultConfig(), connect4Shape, 1)
	net, err := NewNet(w, maxBatch)
	if err != nil {
		b.Fatal(err)
	}
	obs := randomObs(connect4Shape, maxBatch, rand.New(rand.NewPCG(1, 2)))
	return net, obs, make([]float32, maxBatch*connect4Shape.Actions), make([]float32, maxBatch)
}

// cpuClock measures the process's CPU time over a benchmark: the machine is
// shared, so rates per CPU second are steadier than wall-clock ones.
type cpuClock struct {
	start time.Duration
	ok    bool
}

func startCPUClock() cpuClock {
	d, ok := processCPU()
	return cpuClock{d, ok}
}

// reportForward reports positions/s, the FLOPs per position and the fraction
// of the FMA peak of the cores used, in wall-clock time and, where it can be
// measured, per CPU second (pos/cpu-s, %peak-cpu: the fraction of one core's
// peak while running).
func reportForward(b *testing.B, clk cpuClock, m *Model, positions int, cores int) {
	flop := float64(m.FLOPsPerPosition())
	pos := float64(positions) / b.Elapsed().Seconds()
	b.ReportMetric(pos, "pos/s")
	b.ReportMetric(flop/1e6, "MFLOP/pos")
	b.ReportMetric(pos*flop/1e9, "GFLOP/s")
	b.ReportMetric(100*pos*flop/1e9/(peakGFLOPsPerCore*float64(cores)), "%peak")
	if end, ok := processCPU(); ok && clk.ok && end > clk.start {
		posCPU := float64(positions) / (end - clk.start).Seconds()
		b.ReportMetric(posCPU, "pos/cpu-s")
		b.ReportMetric(100*posCPU*flop/1e9/peakGFLOPsPerCore, "%peak-cpu")
	}
}

// BenchmarkForward runs the Connect Four net (DefaultConfig) on one goroutine.
func BenchmarkForward(b *testing.B) {
	for _, batch := range []int{1, 8, 32, 128, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			net, obs, logits, values := benchNet(b, batch)
			b.ReportAllocs()
			b.ResetTimer()
			clk := startCPUClock()
			for range b.N {
				if err := net.Forward(obs, batch, logits, values); err != nil {
					b.Fatal(err)
				}
			}
			reportForward(b, clk, net.Model(), b.N*batch, 1)
		})
	}
}

// BenchmarkForwardWorkers runs one Net per goroutine over a shared Model, as
// the evaluator does with one worker per core; %peak is relative to as many
// cores as workers.
func BenchmarkForwardWorkers(b *testing.B) {
	for _, workers := range []int{1, 2} {
		for _, batch := range []int{32, 128} {
			b.Run(fmt.Sprintf("workers=%d/batch=%d", workers, batch), func(b *testing.B) {
				net, obs, _, _ := benchNet(b, batch)
				nets := []*Net{net}
				for len(nets) < workers {
					nets = append(nets, net.NewWorker())
				}
				b.ReportAllocs()
				b.ResetTimer()
				clk := startCPUClock()
				var wg sync.WaitGroup
				for _, n := range nets {
					wg.Add(1)
					go func() {
						defer wg.Done()
						logits, values := make([]float32, batch*connect4Shape.Actions), make([]float32, batch)
						for range b.N {
							if err := n.Forward(obs, batch, logits, values); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				reportForward(b, clk, net.Model(), workers*b.N*batch, workers)
			})
		}
	}
}

// BenchmarkForwardChunk measures how many positions to push through the
// tower at a time (the chunkRows constant) at batch 256.
func BenchmarkForwardChunk(b *testing.B) {
	const batch = 256
	for _, chunk := range []int{1, 2, 4, 8, 16, 32, 64} {
		b.Run(fmt.Sprintf("chunk=%d", chunk), func(b *testing.B) {
			net, obs, logits, values := benchNet(b, batch)
			net = net.Model().newNet(batch, chunk)
			b.ResetTimer()
			clk := startCPUClock()
			for range b.N {
				if err := net.Forward(obs, batch, logits, values); err != nil {
					b.Fatal(err)
				}
			}
			reportForward(b, clk, net.Model(), b.N*batch, 1)
		})
	}
}
