package nn

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"tabula/games"
	"tabula/internal/refdata/refdatatest"
	"tabula/mcts"
	"tabula/nn/gemm"
)

// ponsSets are Pascal Pons' Connect Four test sets in ../shared/refdata.
var ponsSets = []string{"Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3"}

// ponsPositions reads the first n positions (all if n <= 0) of a Pons set
// as states, observations and legal actions.
func ponsPositions(t testing.TB, g games.Game, set string, n int) ([]games.State, []float32, [][]int) {
	t.Helper()
	f, err := os.Open(refdatatest.Path(t, "connect4", set))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var states []games.State
	var obs []float32
	var legal [][]int
	per := 2 * 42
	sc := bufio.NewScanner(f)
	for sc.Scan() && (n <= 0 || len(states) < n) {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		s, _, err := games.ParseAndReplay(g, fields[0])
		if err != nil {
			t.Fatalf("%s: %q: %v", set, fields[0], err)
		}
		la := s.LegalActions(nil)
		if len(la) == 0 {
			continue
		}
		states = append(states, s)
		legal = append(legal, la)
		obs = append(obs, make([]float32, per)...)
		s.Observation(obs[len(obs)-per:])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return states, obs, legal
}

// precisionTestWeights returns the network the Pons checks run: the
// checkpoint named by TABULA_CHECKPOINT if set (a trained Connect Four net:
// the real check), else the trainer's initial weights (NewWeights, seed 1).
func precisionTestWeights(t testing.TB) (*Weights, string) {
	t.Helper()
	if path := os.Getenv("TABULA_CHECKPOINT"); path != "" {
		ck, err := LoadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		return ck.Weights, path
	}
	w, err := NewWeights(DefaultConfig(), connect4Shape, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return w, "initial weights (NewWeights, seed 1)"
}

// TestPrecisionOnPons compares bf16 and int8 with FP32 on Pons positions:
// the network's argmax move (over legal moves) and its value. By default it
// checks the first 200 positions of two sets; TABULA_PRECISION_REPORT=1 runs
// all six sets whole, and adds the move of a 200-simulation search on the
// first TABULA_SEARCH_POSITIONS positions of each (default 50).
func TestPrecisionOnPons(t *testing.T) {
	g := connect4Game(t)
	w, name := precisionTestWeights(t)
	trained := os.Getenv("TABULA_CHECKPOINT") != ""
	report := os.Getenv("TABULA_PRECISION_REPORT") == "1"
	sets, n := []string{"Test_L2_R1", "Test_L1_R1"}, 200
	if report {
		sets, n = ponsSets, 0
	}
	ref, err := NewModelFor(w, g, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("network: %s; kernels: %s", name, lowKernelName())
	for _, p := range []string{"bf16", "int8"} {
		m, err := NewModelFor(w, g, p)
		if err != nil {
			t.Fatal(err)
		}
		var all Agreement
		for _, set := range sets {
			states, obs, legal := ponsPositions(t, g, set, n)
			a, err := Compare(ref, m, obs, legal)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: %v", p, set, a)
			all = all.Merge(a)
			if report {
				k := 50
				if s := os.Getenv("TABULA_SEARCH_POSITIONS"); s != "" {
					if k, err = strconv.Atoi(s); err != nil {
						t.Fatal(err)
					}
				}
				same := searchAgreement(t, g, ref, m, states[:min(k, len(states))])
				t.Logf("%s %s: 200-sim search (solver on) picks FP32's move on %.1f%% of the first %d", p, set, 100*same, min(k, len(states)))
			}
		}
		t.Logf("%s all: %v", p, all)
		// A trained net must agree on 99% of all positions; the initial
		// weights' logits are nearly tied, so there only the positions
		// with a clear best move are held to 99%.
		same := all.ArgmaxSame
		if !trained {
			same = all.ClearSame
		}
		// The value bounds are those of precision auto's check.
		if over := float64(all.OverDV) / float64(all.Positions); same < 0.99 || over > checkMaxOver || !(all.MeanDV <= checkMeanDV) {
			t.Errorf("%s: %v, want argmax equal on >= 99%% (trained: %v), |dv| > %g on <= %g%%, mean <= %g",
				p, all, trained, TailDV, 100*checkMaxOver, checkMeanDV)
		}
	}
}

func lowKernelName() string {
	switch gemm.LowPrecisionKernel() {
	case "avx512":
		return "avx512 (AVX512_BF16, AVX512_VNNI)"
	case "avx2":
		return "avx2 (int8 through VPMADDUBSW; bf16 in portable Go)"
	}
	return "portable Go"
}

// searchAgreement returns the fraction of states on which a 200-simulation
// PUCT search (mcts defaults, solver on) with model m picks the same move as
// with ref.
func searchAgreement(t *testing.T, g games.Game, ref, m *Model, states []games.State) float64 {
	t.Helper()
	choose := func(model *Model, s games.State) int {
		ev, err := NewNetEvaluator(model, g, 16, 0)
		if err != nil {
			t.Fatal(err)
		}
		cfg := mcts.DefaultConfig()
		cfg.Simulations = 200
		p, err := mcts.NewPlayer(cfg, ev, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		a, err := p.ChooseAction(context.Background(), s.Clone())
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	same := 0
	for _, s := range states {
		if choose(ref, s) == choose(m, s) {
			same++
		}
	}
	return float64(same) / float64(len(states))
}
