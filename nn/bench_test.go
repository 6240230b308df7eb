package nn

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tabula/games"
)

// peakGFLOPsPerCore is the FP32 FMA peak measured on one core of the
// development machine (AMD Zen 5, two 512-bit FMA units; docs/benchmarks.md,
// "Machines").
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

// timeForward times b.N forward passes of net on one batch, on this
// goroutine, and reports their figures.
func timeForward(b *testing.B, net *Net, obs []float32, batch int, logits, values []float32) {
	b.ReportAllocs()
	b.ResetTimer()
	clk := startCPUClock()
	for range b.N {
		if err := net.Forward(obs, batch, logits, values); err != nil {
			b.Fatal(err)
		}
	}
	reportForward(b, clk, net.Model(), b.N*batch, 1)
}

// BenchmarkForward runs the Connect Four net (DefaultConfig) on one goroutine.
func BenchmarkForward(b *testing.B) {
	for _, batch := range []int{1, 8, 32, 128, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			net, obs, logits, values := benchNet(b, batch)
			timeForward(b, net, obs, batch, logits, values)
		})
	}
}

// BenchmarkForwardFilters runs the Connect Four net with other tower widths
// (DefaultConfig otherwise): widths that are not a multiple of 64 hit the
// narrower SGEMM tiles.
func BenchmarkForwardFilters(b *testing.B) {
	for _, filters := range []int{48, 64, 80, 96} {
		b.Run(fmt.Sprintf("filters=%d/batch=32", filters), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Filters = filters
			net, err := NewNet(randomWeights(b, cfg, connect4Shape, 1), 32)
			if err != nil {
				b.Fatal(err)
			}
			obs := randomObs(connect4Shape, 32, rand.New(rand.NewPCG(1, 2)))
			timeForward(b, net, obs, 32, make([]float32, 32*connect4Shape.Actions), make([]float32, 32))
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
			timeForward(b, net.Model().newNet(batch, chunk), obs, batch, logits, values)
		})
	}
}

// benchGame is a game with Connect Four's shapes whose positions carry
// fixed random observations and all actions legal, for the evaluator
// benchmark (cache off, so every position goes through the network).
type benchGame struct{}

func (benchGame) Name() string                      { return "bench" }
func (benchGame) NumActions() int                   { return 7 }
func (benchGame) ObservationShape() (int, int, int) { return 2, 6, 7 }
func (benchGame) MaxGameLength() int                { return 42 }
func (benchGame) NewInitialState() games.State      { return &benchState{obs: make([]float32, 84)} }

type benchState struct {
	obs  []float32
	hash uint64
}

func (s *benchState) Game() games.Game          { return benchGame{} }
func (s *benchState) CurrentPlayer() int        { return 0 }
func (s *benchState) IsLegal(a int) bool        { return a >= 0 && a < 7 }
func (s *benchState) ApplyAction(int)           {}
func (s *benchState) IsTerminal() bool          { return false }
func (s *benchState) Returns() [2]float64       { return [2]float64{} }
func (s *benchState) Observation(dst []float32) { copy(dst, s.obs) }
func (s *benchState) Clone() games.State        { c := *s; return &c }
func (s *benchState) Hash() uint64              { return s.hash }
func (s *benchState) MoveNumber() int           { return 0 }
func (s *benchState) String() string            { return "bench" }
func (s *benchState) LegalActions(buf []int) []int {
	return append(buf[:0], 0, 1, 2, 3, 4, 5, 6)
}

// BenchmarkEvaluator runs 64 goroutines that each evaluate one position per
// call through an Evaluator, the way concurrent MCTS games do, and reports
// evaluations per second, the mean batch and the overhead against raw
// Forward calls of that batch size on as many Nets as workers.
func BenchmarkEvaluator(b *testing.B) {
	const callers = 64
	for _, cfg := range []EvaluatorConfig{
		{MaxBatch: 64, MaxWait: time.Millisecond, Workers: 1},
		{MaxBatch: 32, MaxWait: time.Millisecond, Workers: 2},
		{MaxBatch: 64, MaxWait: 0, Workers: 1},
		{MaxBatch: 32, MaxWait: 0, Workers: 2},
	} {
		b.Run(fmt.Sprintf("workers=%d/max_batch=%d/max_wait=%v", cfg.Workers, cfg.MaxBatch, cfg.MaxWait), func(b *testing.B) {
			w := randomWeights(b, DefaultConfig(), connect4Shape, 1)
			e, err := NewEvaluator(cfg, w, benchGame{})
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := e.Close(); err != nil {
					b.Error(err)
				}
			}()
			rng := rand.New(rand.NewPCG(1, 2))
			obs := randomObs(connect4Shape, callers, rng)
			states := make([]games.State, callers)
			for i := range states {
				states[i] = &benchState{obs: obs[i*84 : (i+1)*84], hash: rng.Uint64()}
			}
			if err := e.Evaluate(states[:1], [][]float32{make([]float32, 7)}, make([]float32, 1)); err != nil {
				b.Fatal(err)
			}
			before := e.Stats()
			var left atomic.Int64
			left.Store(int64(b.N))
			b.ReportAllocs()
			b.ResetTimer()
			clk := startCPUClock()
			var wg sync.WaitGroup
			for c := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					p, v := [][]float32{make([]float32, 7)}, make([]float32, 1)
					for left.Add(-1) >= 0 {
						if err := e.Evaluate(states[c:c+1], p, v); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			cpu, ok := processCPU()
			s := e.Stats()
			batches := s.Batches - before.Batches
			mean := float64(s.Evaluated-before.Evaluated) / float64(max(batches, 1))
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
			b.ReportMetric(mean, "batch")
			if !ok || !clk.ok {
				return
			}
			evalCPU := (cpu - clk.start).Seconds() / float64(b.N)

			// Raw Forward at the mean batch size, per CPU second.
			batch := max(1, int(mean+0.5))
			net, err := NewNet(w, batch)
			if err != nil {
				b.Fatal(err)
			}
			logits, values := make([]float32, batch*7), make([]float32, batch)
			start, _ := processCPU()
			n := 0
			for n < b.N {
				if err := net.Forward(obs[:batch*84], batch, logits, values); err != nil {
					b.Fatal(err)
				}
				n += batch
			}
			end, _ := processCPU()
			rawCPU := (end - start).Seconds() / float64(n)
			b.ReportMetric(1/evalCPU, "evals/cpu-s")
			b.ReportMetric(100*(evalCPU-rawCPU)/rawCPU, "%overhead-cpu")
		})
	}
}

// BenchmarkForwardPooling runs the go7 network (configs/go7.yaml: 64 filters,
// 5 blocks, 7x7 Go input) at batch 32 without and with global pooling
// (blocks 1 and 3, 16 channels pooled) at each precision: the cost of
// pooling at inference. The auxiliary heads are skipped by Forward, so they
// cost nothing here.
func BenchmarkForwardPooling(b *testing.B) {
	sh := Shape{Planes: 9, Height: 7, Width: 7, Actions: 50}
	var cfgs []Config
	for _, pool := range []bool{false, true} {
		cfgs = append(cfgs, Config{Filters: 64, Blocks: 5, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 64,
			Ownership: pool, Score: pool, GlobalPooling: pool})
	}
	benchTowerVariants(b, sh, cfgs, []Precision{FP32, BF16, Int8}, func(c Config) string { return fmt.Sprintf("pool=%v", c.GlobalPooling) })
}

// benchTowerVariants times Forward at batch 32 for each of cfgs on shape
// sh at each of precisions, in sub-benchmarks named NAME/PRECISION.
func benchTowerVariants(b *testing.B, sh Shape, cfgs []Config, precisions []Precision, name func(Config) string) {
	obs := randomObs(sh, 256, rand.New(rand.NewPCG(1, 2)))
	const batch = 32
	for _, cfg := range cfgs {
		m, err := NewModel(randomWeights(b, cfg, sh, 1))
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range precisions {
			mp := m
			if p != FP32 {
				if mp, err = m.WithPrecision(p, obs, 256); err != nil {
					b.Fatal(err)
				}
			}
			b.Run(fmt.Sprintf("%s/%s", name(cfg), p), func(b *testing.B) {
				net, err := mp.NewNet(batch)
				if err != nil {
					b.Fatal(err)
				}
				timeForward(b, net, obs, batch, make([]float32, batch*sh.Actions), make([]float32, batch))
			})
		}
	}
}

// BenchmarkCheckHash times the evaluation cache's check hash of one
// observation the size of Othello 8x8's (3x8x8) and Go 9x9's (9x9x9), with
// a dozen legal moves.
func BenchmarkCheckHash(b *testing.B) {
	for _, n := range []int{192, 729} {
		b.Run(fmt.Sprintf("obs=%d", n), func(b *testing.B) {
			obs := make([]float32, n)
			for i := range obs {
				obs[i] = float32(i % 3 / 2)
			}
			legal := []int{3, 7, 11, 19, 20, 21, 30, 41, 42, 50, 58, 61}
			var h uint64
			for b.Loop() {
				h += checkHash(obs, legal)
			}
			sinkHash = h
		})
	}
}

var sinkHash uint64

// BenchmarkForwardAux runs the go7 network with both auxiliary heads
// (configs/go7.yaml's tower: 64 filters, 5 blocks) at batch 1 and 32: Forward,
// the search's pass, which skips the heads, against ForwardAux with both
// heads, analysis' pass. MFLOP/pos counts the tower and the policy and value
// heads only.
func BenchmarkForwardAux(b *testing.B) {
	sh := Shape{Planes: 9, Height: 7, Width: 7, Actions: 50}
	cfg := Config{Filters: 64, Blocks: 5, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 64, Ownership: true, Score: true}
	m, err := NewModel(randomWeights(b, cfg, sh, 1))
	if err != nil {
		b.Fatal(err)
	}
	for _, batch := range []int{1, 32} {
		obs := randomObs(sh, batch, rand.New(rand.NewPCG(1, 2)))
		for _, aux := range []bool{false, true} {
			b.Run(fmt.Sprintf("batch=%d/aux=%v", batch, aux), func(b *testing.B) {
				net, err := m.NewNet(batch)
				if err != nil {
					b.Fatal(err)
				}
				logits, values := make([]float32, batch*sh.Actions), make([]float32, batch)
				if !aux {
					timeForward(b, net, obs, batch, logits, values)
					return
				}
				own, scores := make([]float32, batch*sh.Height*sh.Width), make([]float32, batch)
				b.ReportAllocs()
				b.ResetTimer()
				clk := startCPUClock()
				for range b.N {
					if err := net.ForwardAux(obs, batch, logits, values, own, scores); err != nil {
						b.Fatal(err)
					}
				}
				reportForward(b, clk, m, b.N*batch, 1)
			})
		}
	}
}

// BenchmarkForwardSE runs a Go 9x9 network of 32 filters and 6 blocks (the
// shape the SE figures in docs/methods.md were measured on) at batch 32
// without and with squeeze-and-excitation in every block, at each precision:
// the cost of SE at inference.
func BenchmarkForwardSE(b *testing.B) {
	var cfgs []Config
	for _, se := range []bool{false, true} {
		cfgs = append(cfgs, Config{Filters: 32, Blocks: 6, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 64, SqueezeExcite: se})
	}
	benchTowerVariants(b, Shape{Planes: 9, Height: 9, Width: 9, Actions: 82}, cfgs, []Precision{FP32, Int8},
		func(c Config) string { return fmt.Sprintf("se=%v", c.SqueezeExcite) })
}
