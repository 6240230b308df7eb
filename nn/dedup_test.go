package nn

import (
	"testing"

	"tabula/games"
	"tabula/mcts"
)

// withDuplicates returns each position of distinct followed by clones of
// the first few (up to three, and only those seen already), so that clones
// are separate states with equal hashes, as transpositions are.
func withDuplicates(distinct []games.State) []games.State {
	var out []games.State
	for i, s := range distinct {
		out = append(out, s)
		for j := 0; j <= i && j < 3; j++ {
			out = append(out, distinct[j].Clone())
		}
	}
	return out
}

// TestEvaluateMergesDuplicates checks that with the cache on a position
// asked for several times in one call goes through the network once and
// every copy gets exactly the network's result; with the cache off every
// copy is evaluated.
func TestEvaluateMergesDuplicates(t *testing.T) {
	w := tttWeights(t, 21)
	distinct := tttPositions(6, 21)
	states := withDuplicates(distinct)
	wantP, wantV := expected(t, w, states)
	type statser interface {
		mcts.Evaluator
		Stats() EvaluatorStats
	}
	for _, cache := range []int{0, 64} {
		evals := map[string]statser{
			"Evaluator":    newTestEvaluator(t, EvaluatorConfig{MaxBatch: 4, Workers: 2, CacheSize: cache}, w),
			"NetEvaluator": newTestNetEvaluator(t, w, 4, cache),
		}
		for name, e := range evals {
			p, v := newPolicies(len(states)), make([]float32, len(states))
			if err := e.Evaluate(states, p, v); err != nil {
				t.Fatalf("%s cache %d: %v", name, cache, err)
			}
			checkResults(t, states, p, v, wantP, wantV)
			st := e.Stats()
			wantEval, wantMerged := int64(len(distinct)), int64(len(states)-len(distinct))
			if cache == 0 {
				wantEval, wantMerged = int64(len(states)), 0
			}
			if st.Evaluated != wantEval || st.Merged != wantMerged || st.Positions != int64(len(states)) {
				t.Errorf("%s cache %d: stats %+v, want %d evaluated and %d merged of %d positions",
					name, cache, st, wantEval, wantMerged, len(states))
			}
			if st.Evaluated+st.Merged+st.CacheHits != st.Positions {
				t.Errorf("%s cache %d: stats %+v: evaluated+merged+hits != positions", name, cache, st)
			}
		}
	}
}

// TestEvaluateCollisionNotMerged gives one call two different positions
// with the same State.Hash: the check hash keeps them apart.
func TestEvaluateCollisionNotMerged(t *testing.T) {
	w := tttWeights(t, 22)
	pos := tttPositions(3, 22)
	states := []games.State{sameHash{pos[0]}, sameHash{pos[1]}, sameHash{pos[0].Clone()}, sameHash{pos[2]}}
	wantP, wantV := expected(t, w, states)
	if wantV[0] == wantV[1] {
		t.Fatal("test positions have equal values; the test proves nothing")
	}
	e := newTestNetEvaluator(t, w, 8, 64)
	p, v := newPolicies(len(states)), make([]float32, len(states))
	if err := e.Evaluate(states, p, v); err != nil {
		t.Fatal(err)
	}
	checkResults(t, states, p, v, wantP, wantV)
	if st := e.Stats(); st.Evaluated != 3 || st.Merged != 1 {
		t.Errorf("stats %+v, want 3 evaluated and 1 merged", st)
	}
}

func TestNetEvaluatorMergingAllocatesNothing(t *testing.T) {
	e := newTestNetEvaluator(t, tttWeights(t, 23), 4, 1)
	states := withDuplicates(tttPositions(12, 23))
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
	if st := e.Stats(); st.Merged == 0 {
		t.Fatalf("stats %+v: nothing merged; the test proves nothing", st)
	}
}
