//go:build unix

package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tabula/games"
	"tabula/internal/cputime"
	"tabula/mcts"
	"tabula/nn"
	"tabula/search/endgame"
)

// timedEvaluator counts the positions passed to an evaluator and the CPU
// time its thread spends inside Evaluate calls. One per self-play worker,
// whose goroutine is locked to its thread: it is not safe for concurrent
// use.
type timedEvaluator struct {
	e         mcts.Evaluator
	calls     int64
	positions int64
	inside    time.Duration // thread CPU time inside Evaluate
	total     time.Duration // thread CPU time of the whole worker
}

func (t *timedEvaluator) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	t0 := cputime.Thread()
	err := t.e.Evaluate(states, policies, values)
	t.inside += cputime.Thread() - t0
	t.calls++
	t.positions += int64(len(states))
	return err
}

// timedProvers makes provers that count the time of their proofs: the
// exact evaluations' part of the search, reported apart from the tree's.
// The time is the monotonic clock's (vDSO, ~20 ns), not the thread CPU
// clock's: that one is a system call, ~5% of a proof's time at 10 empties.
// The worker's thread is locked and has a core of its own (-cpu 1), so on a
// quiet machine the two agree.
type timedProvers struct {
	inner  mcts.ProverMaker
	inside atomic.Int64 // nanoseconds inside Prove
	proofs atomic.Int64 // Prove calls
}

func (m *timedProvers) NewProver() mcts.Prover { return &timedProver{p: m.inner.NewProver(), m: m} }

type timedProver struct {
	p mcts.Prover
	m *timedProvers
}

func (t *timedProver) Prove(s games.State) (float32, bool) {
	t0 := time.Now()
	v, ok := t.p.Prove(s)
	t.m.inside.Add(int64(time.Since(t0)))
	t.m.proofs.Add(1)
	return v, ok
}

func (t *timedProver) Reaches(s games.State) bool { return t.p.Reaches(s) }

// selfPlayBench is one variant of BenchmarkSelfPlayNet.
type selfPlayBench struct {
	name    string
	workers int
	// config is the config file, configs/connect4.yaml when empty.
	config string
	// set overrides the headline config, as -set would.
	set []string
	// direct gives each worker its own nn.NetEvaluator (directEvaluators)
	// instead of one shared nn.Evaluator.
	direct bool
	// ownCache gives each direct evaluator its own cache.
	ownCache bool
	// weights is a checkpoint to play with instead of random initial
	// weights (games as long as a trained network's).
	weights string
	// filters, when above zero, is the width the variant is named after: a
	// checkpoint of another width skips it.
	filters int
}

// BenchmarkSelfPlayNet plays Connect Four self-play games with the network
// size, search settings and evaluator settings of configs/connect4.yaml and
// random initial weights: b.N games spread over W workers, each playing its
// share as pipeline.generate does (so -benchtime 200x is one iteration of
// the config). "shared" is one nn.Evaluator for all workers, as the pipeline
// has it; "direct" gives each worker an nn.NetEvaluator (directEvaluators:
// the network runs in the worker's goroutine, one cache shared by all).
//
// It reports positions (moves played) and evaluations (leaves sent to the
// evaluator) per second of wall time and per CPU second of the process, the
// forward passes a position costs (net-evals/pos: leaves less cache hits), and
// the share of the process's CPU time that the self-play workers' threads
// spent outside Evaluate (%search-cpu: tree search, state copies, game
// records) and inside it (%eval-cpu: with direct, the network plus
// observation encoding, cache and softmax; with shared, only the encoding,
// the cache and the hand-over to the evaluator's goroutines). A CPU profile
// tells the network's own share:
//
//	go test ./pipeline -run '^$' -bench SelfPlayNet/ -benchtime 200x -cpuprofile cpu.out
//	go tool pprof -top pipeline.test cpu.out | grep 'nn.(\*Net).Forward$'
func BenchmarkSelfPlayNet(b *testing.B) {
	variants := []selfPlayBench{
		{name: "shared/W=1", workers: 1},
		{name: "shared/W=2", workers: 2},
		{name: "direct/W=1", workers: 1, direct: true},
		{name: "direct/W=2", workers: 2, direct: true},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) { benchSelfPlay(b, v) })
	}
}

// BenchmarkSelfPlayNetSettings varies one setting of configs/connect4.yaml at
// a time, with two workers, to choose the config's values.
//
//	go test ./pipeline -run '^$' -bench SelfPlayNetSettings -benchtime 200x
func BenchmarkSelfPlayNetSettings(b *testing.B) {
	variants := []selfPlayBench{
		{name: "shared/config", workers: 2},
		{name: "direct/config", workers: 2, direct: true},
		{name: "direct/batch=16", workers: 2, direct: true, set: []string{"selfplay.search.batch_size=16"}},
		{name: "direct/batch=64", workers: 2, direct: true, set: []string{"selfplay.search.batch_size=64"}},
		{name: "direct/in-flight=32", workers: 2, direct: true, set: []string{"selfplay.play.games_in_flight=32"}},
		{name: "direct/in-flight=128", workers: 2, direct: true, set: []string{"selfplay.play.games_in_flight=128"}},
		{name: "direct/own-cache", workers: 2, direct: true, ownCache: true},
		{name: "direct/cache=0", workers: 2, direct: true, set: []string{"evaluator.cache_size=0"}},
		{name: "direct/cache=2^18", workers: 2, direct: true, set: []string{"evaluator.cache_size=262144"}},
		{name: "direct/tree_reuse=false", workers: 2, direct: true, set: []string{"selfplay.search.tree_reuse=false"}},
		{name: "direct/count_reused", workers: 2, direct: true, set: []string{"selfplay.search.count_reused=true"}},
		{name: "direct/count_reused/cache=2^18", workers: 2, direct: true,
			set: []string{"selfplay.search.count_reused=true", "evaluator.cache_size=262144"}},
		{name: "direct/count_reused/cache=2^18/own-cache", workers: 2, direct: true, ownCache: true,
			set: []string{"selfplay.search.count_reused=true", "evaluator.cache_size=262144"}},
		{name: "direct/filters=64", workers: 2, direct: true, set: []string{"network.filters=64"}},
		{name: "direct/filters=64/count_reused", workers: 2, direct: true,
			set: []string{"network.filters=64", "selfplay.search.count_reused=true"}},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) { benchSelfPlay(b, v) })
	}
}

// BenchmarkSelfPlayPrecision runs self-play as BenchmarkSelfPlayNet's
// direct/W=1 at each inference precision (evaluator.precision), random
// initial weights: pos/cpu-s is the end-to-end gain of bf16 and int8.
//
//	go test ./pipeline -run '^$' -bench SelfPlayPrecision -benchtime 32x -count 3 -cpu 1
func BenchmarkSelfPlayPrecision(b *testing.B) {
	for _, p := range []string{"fp32", "bf16", "int8"} {
		v := selfPlayBench{name: p, workers: 1, direct: true, set: []string{"evaluator.precision=" + p}}
		b.Run(v.name, func(b *testing.B) { benchSelfPlay(b, v) })
	}
}

// BenchmarkSelfPlayGumbel compares PUCT and Gumbel AlphaZero self-play at
// the simulations of configs/connect4.yaml (direct/W=1, random initial
// weights): net-evals/pos is the network's cost of a position.
//
//	go test ./pipeline -run '^$' -bench SelfPlayGumbel -benchtime 32x -cpu 1
func BenchmarkSelfPlayGumbel(b *testing.B) {
	gumbel := func(name string, set ...string) selfPlayBench {
		return selfPlayBench{name: name, workers: 1, direct: true, set: append([]string{"selfplay.search.algorithm=gumbel"}, set...)}
	}
	for _, v := range []selfPlayBench{
		{name: "puct", workers: 1, direct: true, set: []string{"selfplay.search.algorithm=puct"}},
		gumbel("gumbel"),
		gumbel("gumbel/count_reused=false", "selfplay.search.count_reused=false"),
		gumbel("gumbel/sims=50,fast=16", "selfplay.search.simulations=50", "selfplay.play.fast_simulations=16"),
		gumbel("gumbel/sims=32,no-cap", "selfplay.search.simulations=32", "selfplay.play.playout_cap=false"),
	} {
		b.Run(v.name, func(b *testing.B) { benchSelfPlay(b, v) })
	}
}

// BenchmarkSelfPlayEndgame measures Connect Four self-play with exact
// endgames in the tree (selfplay.search.endgame: every leaf within N empty
// cells of the end is proven by the solver instead of evaluated), at the
// settings of configs/connect4.yaml (50/16 simulations, gumbel_m 8),
// direct/W=1. TABULA_BENCH_WEIGHTS names a checkpoint to play with (a
// trained network's games are longer and closer than random weights').
//
//	TABULA_BENCH_WEIGHTS=runs/c4-cheap/checkpoints/ckpt-000072.tbn \
//	go test ./pipeline -run '^$' -bench SelfPlayEndgame -benchtime 64x -cpu 1
func BenchmarkSelfPlayEndgame(b *testing.B) {
	weights := benchWeights()
	for _, e := range []int{0, 12, 14, 16, 18} {
		v := selfPlayBench{name: fmt.Sprintf("endgame=%d", e), workers: 1, direct: true, weights: weights,
			set: []string{"selfplay.search.simulations=50", "selfplay.play.fast_simulations=16", "selfplay.search.gumbel_m=8",
				fmt.Sprintf("selfplay.search.endgame=%d", e)}}
		b.Run(v.name, func(b *testing.B) { benchSelfPlay(b, v) })
	}
}

// benchWeights returns the checkpoint that TABULA_BENCH_WEIGHTS names
// (relative to the repository root), or "" for random initial weights.
func benchWeights() string {
	weights := os.Getenv("TABULA_BENCH_WEIGHTS")
	if weights != "" && !filepath.IsAbs(weights) {
		weights = filepath.Join("..", weights)
	}
	return weights
}

// BenchmarkSelfPlayBackgammon plays backgammon self-play games with the
// network and search settings of configs/backgammon.yaml and random initial
// weights, as BenchmarkSelfPlayNet's direct variants; positions count the
// searched moves, not the dice.
//
//	go test ./pipeline -run '^$' -bench SelfPlayBackgammon -benchtime 4x
func BenchmarkSelfPlayBackgammon(b *testing.B) {
	for _, w := range []int{1, 2} {
		v := selfPlayBench{name: fmt.Sprintf("direct/W=%d", w), workers: w, direct: true, config: "../configs/backgammon.yaml"}
		b.Run(v.name, func(b *testing.B) { benchSelfPlay(b, v) })
	}
}

// BenchmarkSelfPlayWidth plays Othello 8x8 and Go 9x9 self-play with each
// game's shipped config at 32, 48 and 64 filters, in int8 (one worker with
// its own evaluator, random initial weights): the evaluations per
// CPU-second a smaller network buys, the lever that carried Connect Four
// (docs/benchmarks.md). Compare evals/cpu-s: random weights play games of
// different lengths and evaluations a position at each width.
// TABULA_BENCH_WEIGHTS names a trained checkpoint to play with instead; the
// variants of its game and width run and the others are skipped.
//
//	go test ./pipeline -run '^$' -bench SelfPlayWidth -benchtime 8x -cpu 1
func BenchmarkSelfPlayWidth(b *testing.B) {
	weights := benchWeights()
	for _, game := range []string{"othello8", "go9"} {
		for _, f := range []int{32, 48, 64} {
			v := selfPlayBench{name: fmt.Sprintf("%s/filters=%d", game, f), workers: 1, direct: true, weights: weights, filters: f,
				config: "../configs/" + game + ".yaml", set: []string{fmt.Sprintf("network.filters=%d", f), "evaluator.precision=int8"}}
			b.Run(v.name, func(b *testing.B) { benchSelfPlay(b, v) })
		}
	}
}

func benchSelfPlay(b *testing.B, v selfPlayBench) {
	path := v.config
	if path == "" {
		path = "../configs/connect4.yaml"
	}
	cfg, err := Load(path, v.set)
	if err != nil {
		b.Fatal(err)
	}
	g, err := games.New(cfg.Game)
	if err != nil {
		b.Fatal(err)
	}
	p, h, w := g.ObservationShape()
	shape := nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}
	weights, err := nn.NewWeights(cfg.Network, shape, rand.New(rand.NewPCG(cfg.Seed, 1)))
	if err != nil {
		b.Fatal(err)
	}
	if v.weights != "" {
		ck, err := nn.LoadCheckpoint(v.weights)
		if err != nil {
			b.Fatal(err)
		}
		if err := ck.CheckGame(g); err != nil {
			b.Skip(err)
		}
		if v.filters > 0 && ck.Weights.Config.Filters != v.filters {
			b.Skipf("%s has %d filters, not %d", v.weights, ck.Weights.Config.Filters, v.filters)
		}
		weights = ck.Weights
	}
	mc := cfg.SelfPlay.MCTS // with the game's exact endgame prover, as generate has it
	if err := endgame.Configure(&mc, g); err != nil {
		b.Fatal(err)
	}
	provers := &timedProvers{inner: mc.Prover}
	if mc.Prover != nil {
		mc.Prover = provers
	}
	evals := make([]*timedEvaluator, v.workers)
	var stats func() nn.EvaluatorStats
	if v.direct {
		newEval, st, err := directEvaluators(cfg.Evaluator, cfg.SelfPlay.MCTS.BatchSize, v.workers, weights, g, !v.ownCache)
		if err != nil {
			b.Fatal(err)
		}
		stats = st
		for i := range evals {
			e, err := newEval(i)
			if err != nil {
				b.Fatal(err)
			}
			evals[i] = &timedEvaluator{e: e}
		}
	} else {
		shared, err := nn.NewEvaluator(cfg.Evaluator.NN(), weights, g)
		if err != nil {
			b.Fatal(err)
		}
		defer shared.Close()
		if err := shared.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		stats = shared.Stats
		for i := range evals {
			evals[i] = &timedEvaluator{e: shared}
		}
	}
	var (
		mu    sync.Mutex
		moves int
		games int
	)
	emit := func(rec mcts.GameRecord) error {
		mu.Lock()
		moves += len(rec.Actions) - rec.ChanceOutcomes
		games++
		mu.Unlock()
		return nil
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	errs := make([]error, v.workers)
	var wg sync.WaitGroup
	for i := range v.workers {
		share := b.N / v.workers
		if i < b.N%v.workers {
			share++
		}
		sp, err := mcts.NewSelfPlay(mc, g, evals[i], rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1)))
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // so that the thread's CPU clock is this worker's
			defer runtime.UnlockOSThread()
			t0 := cputime.Thread()
			if share > 0 {
				errs[i] = sp.Run(context.Background(), share, emit)
			}
			evals[i].total = cputime.Thread() - t0
		}()
	}
	wg.Wait()
	cpu := (cputime.Process() - cpu0).Seconds()
	wall := b.Elapsed().Seconds()
	b.StopTimer()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	if games != b.N {
		b.Fatalf("%d games emitted, want %d", games, b.N)
	}
	var positions, calls int64
	var inside, total time.Duration
	for _, e := range evals {
		positions += e.positions
		calls += e.calls
		inside += e.inside
		total += e.total
	}
	b.ReportMetric(float64(moves)/wall, "pos/s")
	b.ReportMetric(float64(moves)/cpu, "pos/cpu-s")
	b.ReportMetric(float64(positions)/wall, "evals/s")
	b.ReportMetric(float64(positions)/cpu, "evals/cpu-s")
	b.ReportMetric(float64(positions)/float64(max(calls, 1)), "leaves/call")
	b.ReportMetric(float64(moves)/float64(b.N), "moves/game")
	b.ReportMetric(100*(total-inside).Seconds()/cpu, "%search-cpu")
	b.ReportMetric(100*inside.Seconds()/cpu, "%eval-cpu")
	if mc.Prover != nil {
		// Part of %search-cpu: the endgame prover's exact evaluations.
		b.ReportMetric(100*time.Duration(provers.inside.Load()).Seconds()/cpu, "%prove-cpu")
		b.ReportMetric(float64(provers.proofs.Load())/float64(moves), "proofs/pos")
	}
	st := stats()
	if v.direct {
		// The forward passes alone, which the workers' goroutines run:
		// the network without the encoding, cache and softmax of %eval-cpu.
		b.ReportMetric(100*st.Forward.Seconds()/cpu, "%net-cpu")
	}
	b.ReportMetric(float64(st.Evaluated)/float64(max(st.Batches, 1)), "net-batch")
	// The cost of a position in forward passes: steadier than the rates,
	// it is what the settings change (the pass itself costs the same).
	b.ReportMetric(float64(st.Evaluated)/float64(moves), "net-evals/pos")
	b.ReportMetric(100*float64(st.CacheHits)/float64(max(st.CacheHits+st.CacheMisses, 1)), "%cache-hits")
	b.ReportMetric(float64(st.Merged)/float64(moves), "merged/pos")
}
