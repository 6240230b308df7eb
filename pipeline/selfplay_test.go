package pipeline

import (
	"context"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"tabula/games"
	"tabula/mcts"
	"tabula/nn"
)

// playDirect plays n self-play games on each of two workers with
// evaluators from directEvaluators and returns every worker's records in the
// order it finished them. set overrides the config after the test's own
// settings.
func playDirect(t *testing.T, sharedCache bool, n int, set ...string) ([][]mcts.GameRecord, nn.EvaluatorStats) {
	t.Helper()
	cfg, err := Load("../configs/connect4-smoke.yaml", append([]string{
		"network.filters=8", "network.blocks=1", "selfplay.search.simulations=16",
		"selfplay.play.fast_simulations=4", "selfplay.play.games_in_flight=4", "selfplay.search.batch_size=8",
		"evaluator.cache_size=4096",
	}, set...))
	if err != nil {
		t.Fatal(err)
	}
	g, err := games.New(cfg.Game)
	if err != nil {
		t.Fatal(err)
	}
	p, h, w := g.ObservationShape()
	weights, err := nn.NewWeights(cfg.Network, nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(9, 9)))
	if err != nil {
		t.Fatal(err)
	}
	const workers = 2
	newEval, stats, err := directEvaluators(cfg.Evaluator, cfg.SelfPlay.MCTS.BatchSize, workers, weights, g, sharedCache)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([][]mcts.GameRecord, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		eval, err := newEval(i)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := mcts.NewSelfPlay(cfg.SelfPlay.MCTS, g, eval, rand.New(rand.NewPCG(1, uint64(i))))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = sp.Run(context.Background(), n, func(r mcts.GameRecord) error {
				recs[i] = append(recs[i], r)
				return nil
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", i, err)
		}
	}
	return recs, stats()
}

// TestDirectEvaluatorsReproduce plays the same seeded games twice with
// per-worker caches: the workers' timing must not change a single record.
func TestDirectEvaluatorsReproduce(t *testing.T) {
	first, st := playDirect(t, false, 6)
	second, _ := playDirect(t, false, 6)
	if !reflect.DeepEqual(first, second) {
		t.Fatal("two runs with one seed played different games")
	}
	for i, rs := range first {
		if len(rs) != 6 {
			t.Fatalf("worker %d finished %d games, want 6", i, len(rs))
		}
	}
	if st.Positions == 0 || st.Evaluated+st.CacheHits+st.Merged != st.Positions || st.CacheHits == 0 {
		t.Errorf("stats %+v: want positions all evaluated, answered by the cache or merged, some by the cache", st)
	}
}

func TestDirectEvaluatorsSharedCache(t *testing.T) {
	recs, st := playDirect(t, true, 4)
	for i, rs := range recs {
		if len(rs) != 4 {
			t.Fatalf("worker %d finished %d games, want 4", i, len(rs))
		}
	}
	if st.Positions == 0 || st.Evaluated+st.CacheHits+st.Merged != st.Positions || st.Batches == 0 {
		t.Errorf("stats %+v: want the counters of both workers", st)
	}
}

func TestDirectEvaluatorsErrors(t *testing.T) {
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	p, h, w := g.ObservationShape()
	weights, err := nn.NewWeights(nn.Config{Filters: 4, Blocks: 1, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 4},
		nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig().Evaluator
	for _, c := range []struct {
		batch, workers int
	}{{8, 0}, {0, 2}} {
		if _, _, err := directEvaluators(cfg, c.batch, c.workers, weights, g, true); err == nil {
			t.Errorf("batch %d, %d workers: no error", c.batch, c.workers)
		}
	}
	newEval, _, err := directEvaluators(cfg, 8, 2, weights, g, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, worker := range []int{-1, 2} {
		if _, err := newEval(worker); err == nil {
			t.Errorf("evaluator for worker %d: no error", worker)
		}
	}
}

// TestSelfPlayEvaluatorsSetModel: the self-play evaluators, given a new
// network, answer as evaluators made fresh for it (not from the cache of
// the network before), with shared and per-worker caches.
func TestSelfPlayEvaluatorsSetModel(t *testing.T) {
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	p, h, w := g.ObservationShape()
	sh := nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}
	model := func(seed uint64) *nn.Model {
		wt, err := nn.NewWeights(nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}, sh, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		m, err := nn.NewModel(wt)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m1, m2 := model(1), model(2)
	var states []games.State
	s := g.NewInitialState()
	var buf []int
	for !s.IsTerminal() && len(states) < 12 {
		states = append(states, s.Clone())
		buf = s.LegalActions(buf[:0])
		s.ApplyAction(buf[len(states)%len(buf)])
	}
	answers := func(se *selfPlayEvaluators, worker int) ([][]float32, []float32) {
		ev, err := se.newEval(worker)
		if err != nil {
			t.Fatal(err)
		}
		pol, val := make([][]float32, len(states)), make([]float32, len(states))
		for i := range pol {
			pol[i] = make([]float32, g.NumActions())
		}
		if err := ev.Evaluate(states, pol, val); err != nil {
			t.Fatal(err)
		}
		return pol, val
	}
	cfg := EvaluatorConfig{CacheSize: 1024}
	for _, shared := range []bool{true, false} {
		fresh, err := modelEvaluators(cfg, 16, 2, m2, g, shared)
		if err != nil {
			t.Fatal(err)
		}
		wantP, wantV := answers(fresh, 0)
		se, err := modelEvaluators(cfg, 16, 2, m1, g, shared)
		if err != nil {
			t.Fatal(err)
		}
		for worker := range 2 {
			answers(se, worker) // fill the cache with m1's results
		}
		if err := se.setModel(m2); err != nil {
			t.Fatal(err)
		}
		for worker := range 2 {
			gotP, gotV := answers(se, worker)
			if !reflect.DeepEqual(gotP, wantP) || !reflect.DeepEqual(gotV, wantV) {
				t.Fatalf("shared cache %v, worker %d: after setModel the answers are not the new network's", shared, worker)
			}
		}
	}
}
