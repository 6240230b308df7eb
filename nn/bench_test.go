package nn

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
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

// reportForward reports positions/s, the FLOPs per position and the fraction
// of the FMA peak of the cores used.
func reportForward(b *testing.B, m *Model, positions int, cores int) {
	sec := b.Elapsed().Seconds()
	pos := float64(positions) / sec
	gflops := pos * float64(m.FLOPsPerPosition()) / 1e9
	b.ReportMetric(pos, "pos/s")
	b.ReportMetric(float64(m.FLOPsPerPosition())/1e6, "MFLOP/pos")
	b.ReportMetric(gflops, "GFLOP/s")
	b.ReportMetric(100*gflops/(peakGFLOPsPerCore*float64(cores)), "%peak")
}

// BenchmarkForward runs the Connect Four net (DefaultConfig) on one goroutine.
func BenchmarkForward(b *testing.B) {
	for _, batch := range []int{1, 8, 32, 128, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			net, obs, logits, values := benchNet(b, batch)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := net.Forward(obs, batch, logits, values); err != nil {
					b.Fatal(err)
				}
			}
			reportForward(b, net.Model(), b.N*batch, 1)
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
				reportForward(b, net.Model(), workers*b.N*batch, workers)
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
			for range b.N {
				if err := net.Forward(obs, batch, logits, values); err != nil {
					b.Fatal(err)
				}
			}
			reportForward(b, net.Model(), b.N*batch, 1)
		})
	}
}
