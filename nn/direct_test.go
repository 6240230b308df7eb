package nn

import (
	"math"
	"strings"
	"sync"
	"testing"

	"tabula/games"
	"tabula/mcts"
)

var _ mcts.Evaluator = (*NetEvaluator)(nil)

func newTestNetEvaluator(t testing.TB, w *Weights, maxBatch, cacheSize int) *NetEvaluator {
	t.Helper()
	m, err := NewModel(w)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewNetEvaluator(m, ttt{}, maxBatch, cacheSize)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestNetEvaluatorMatchesForward(t *testing.T) {
	w := tttWeights(t, 1)
	states := tttPositions(40, 1)
	wantP, wantV := expected(t, w, states)
	for _, c := range []struct{ maxBatch, cache int }{{16, 0}, {7, 100}, {64, 1}, {1, 1000}} {
		e := newTestNetEvaluator(t, w, c.maxBatch, c.cache)
		for round, ev := range []*NetEvaluator{e, e.Worker()} { // the worker shares the cache
			p, v := newPolicies(len(states)), make([]float32, len(states))
			if err := ev.Evaluate(states, p, v); err != nil {
				t.Fatalf("%+v round %d: %v", c, round, err)
			}
			checkResults(t, states, p, v, wantP, wantV)
		}
		st := e.Stats()
		if st.Requests != 2 || st.Positions != int64(2*len(states)) || st.CacheHits+st.Evaluated != st.Positions {
			t.Errorf("%+v: stats %+v, want 2 requests of %d positions, each evaluated or a hit", c, st, len(states))
		}
		// The cache is direct-mapped: a few positions may evict each other.
		if c.cache >= 100 && st.CacheHits < int64(len(states)*3/4) {
			t.Errorf("%+v: %d cache hits, want most of the second round (%d)", c, st.CacheHits, len(states))
		}
		if wantBatches := 2 * ((len(states) + c.maxBatch - 1) / c.maxBatch); c.cache == 0 && st.Batches != int64(wantBatches) {
			t.Errorf("%+v: %d forward passes, want %d", c, st.Batches, wantBatches)
		}
		if st.Forward <= 0 {
			t.Errorf("%+v: forward time %v after %d passes", c, st.Forward, st.Batches)
		}
	}
}

// TestNetEvaluatorGathersScatteredMisses evaluates a batch in which the cache
// answers every other position, so that the positions left for the network
// are not consecutive.
func TestNetEvaluatorGathersScatteredMisses(t *testing.T) {
	w := tttWeights(t, 2)
	states := tttPositions(30, 2)
	wantP, wantV := expected(t, w, states)
	e := newTestNetEvaluator(t, w, 8, 1000)
	var even []games.State
	for i := 0; i < len(states); i += 2 {
		even = append(even, states[i])
	}
	if err := e.Evaluate(even, newPolicies(len(even)), make([]float32, len(even))); err != nil {
		t.Fatal(err)
	}
	p, v := newPolicies(len(states)), make([]float32, len(states))
	if err := e.Evaluate(states, p, v); err != nil {
		t.Fatal(err)
	}
	checkResults(t, states, p, v, wantP, wantV)
	if st := e.Stats(); st.CacheHits != int64(len(even)) {
		t.Errorf("%d cache hits, want %d", st.CacheHits, len(even))
	}
}

func TestNetEvaluatorTerminalAndEmpty(t *testing.T) {
	checkTerminalAndEmpty(t, newTestNetEvaluator(t, tttWeights(t, 1), 4, 0))
}

func TestNetEvaluatorConcurrentWorkers(t *testing.T) {
	w := tttWeights(t, 3)
	states := tttPositions(40, 3)
	wantP, wantV := expected(t, w, states)
	e := newTestNetEvaluator(t, w, 16, 64)
	var wg sync.WaitGroup
	errs := make([]string, 4)
	for g := range errs {
		ev := e
		if g > 0 {
			ev = e.Worker()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				p, v := newPolicies(len(states)), make([]float32, len(states))
				if err := ev.Evaluate(states, p, v); err != nil {
					errs[g] = err.Error()
					return
				}
				for i := range states {
					if v[i] != wantV[i] || math.Abs(float64(p[i][0]-wantP[i][0])) > 1e-6 {
						errs[g] = "wrong result"
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for g, err := range errs {
		if err != "" {
			t.Errorf("goroutine %d: %s", g, err)
		}
	}
}

func TestNetEvaluatorAllocatesNothing(t *testing.T) {
	e := newTestNetEvaluator(t, tttWeights(t, 4), 16, 32)
	states := tttPositions(40, 4)
	p, v := newPolicies(len(states)), make([]float32, len(states))
	if err := e.Evaluate(states, p, v); err != nil { // grow the buffers
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		if err := e.Evaluate(states, p, v); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("Evaluate allocates %v times a call, want 0", n)
	}
}

func TestNetEvaluatorErrors(t *testing.T) {
	w := tttWeights(t, 8)
	e := newTestNetEvaluator(t, w, 8, 0)
	s := tttPositions(1, 8)
	checkEvaluateErrors(t, e, s)
	// The evaluator still works after the errors.
	wantP, wantV := expected(t, w, s)
	p, v := newPolicies(1), make([]float32, 1)
	if err := e.Evaluate(s, p, v); err != nil {
		t.Fatal(err)
	}
	checkResults(t, s, p, v, wantP, wantV)

	m, err := NewModel(w)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := NewModel(randomWeights(t, w.Config, Shape{Planes: 2, Height: 3, Width: 3, Actions: 10}, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name            string
		m               *Model
		g               games.Game
		maxBatch, cache int
		wantErr         string
	}{
		{"nil model", nil, ttt{}, 8, 0, "nil model"},
		{"nil game", m, nil, 8, 0, "nil model or game"},
		{"wrong shape", bad, ttt{}, 8, 0, "does not fit"},
		{"batch 0", m, ttt{}, 0, 0, "max_batch"},
		{"negative cache", m, ttt{}, 8, -1, "cache_size"},
	} {
		if _, err := NewNetEvaluator(c.m, c.g, c.maxBatch, c.cache); err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.wantErr)
		}
	}
}
