package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"tabula/games"
	"tabula/mcts"
	"tabula/search/c4solver"
)

// BenchmarkPolicyTarget measures how good the policy target of a search is
// without a network: uniform priors, values from 4 random rollouts a leaf,
// no root noise, solver off (the search alone), on the first 300 positions of
// Pons' Test_L2_R2 (Middle-Medium) with the solver's verdicts from
// data/connect4/verdicts. It reports the share of the target's mass on moves
// of the best outcome (opt-mass%: a uniform policy scores the share of
// optimal moves, reported as uniform-opt%) and the mistake rate of the move
// the search plays (mistakes%) and of the target's most likely move
// (argmax-mistakes%), for PUCT (the visit distribution) and
// Gumbel (pi'), at a few simulation counts.
//
//	go test ./bench -run '^$' -bench PolicyTarget -benchtime 1x -cpu 1
func BenchmarkPolicyTarget(b *testing.B) {
	data, err := os.ReadFile("../data/connect4/verdicts/Test_L2_R2.json")
	if err != nil {
		b.Skip(err)
	}
	var v Verdicts
	if err := json.Unmarshal(data, &v); err != nil {
		b.Fatal(err)
	}
	g, err := games.New("connect4")
	if err != nil {
		b.Fatal(err)
	}
	const n = 300
	var states []games.State
	var outcomes [][7]int
	for i := 0; i < len(v.Positions) && len(states) < n; i++ {
		s, _, err := games.ParseAndReplay(g, v.Positions[i])
		if err != nil {
			b.Fatal(err)
		}
		states = append(states, s)
		outcomes = append(outcomes, v.Outcomes[i])
	}
	for _, variant := range []struct {
		search string
		cScale float64
	}{{mcts.SearchPUCT, 0}, {mcts.SearchGumbel, 1}, {mcts.SearchGumbel, 0.3}, {mcts.SearchGumbel, 0.1}} {
		search := variant.search
		name := search
		if search == mcts.SearchGumbel {
			name = fmt.Sprintf("gumbel/c_scale=%g", variant.cScale)
		}
		for _, sims := range []int{8, 16, 32, 100} {
			b.Run(fmt.Sprintf("%s/sims=%d", name, sims), func(b *testing.B) {
				var mass, uniform float64
				mistakes, argmaxMistakes := 0, 0
				for range b.N {
					mass, uniform, mistakes, argmaxMistakes = 0, 0, 0, 0
					for i, s := range states {
						rev, err := mcts.NewRolloutEvaluator(4, rand.New(rand.NewPCG(uint64(i), 1)))
						if err != nil {
							b.Fatal(err)
						}
						cfg := mcts.DefaultConfig()
						cfg.Search = search
						if variant.cScale > 0 {
							cfg.GumbelCScale = variant.cScale
						}
						cfg.Simulations = sims
						cfg.DirichletEpsilon = 0
						cfg.Solver = false
						cfg.TreeReuse = false
						cfg.BatchSize = 1
						sr, err := mcts.NewSearch(cfg, rev, rand.New(rand.NewPCG(uint64(i), 2)))
						if err != nil {
							b.Fatal(err)
						}
						r, err := sr.Run(context.Background(), s)
						if err != nil {
							b.Fatal(err)
						}
						o := outcomes[i]
						legal, opt := 0, 0
						for a := range 7 {
							if o[a] == c4solver.Invalid {
								continue
							}
							legal++
							if !IsMistake(o, a) {
								opt++
								mass += float64(r.Policy[a])
							}
						}
						uniform += float64(opt) / float64(legal)
						if IsMistake(o, r.Action) {
							mistakes++
						}
						best := 0
						for a := range r.Policy {
							if r.Policy[a] > r.Policy[best] {
								best = a
							}
						}
						if IsMistake(o, best) {
							argmaxMistakes++
						}
					}
				}
				b.ReportMetric(100*mass/float64(len(states)), "opt-mass%")
				b.ReportMetric(100*uniform/float64(len(states)), "uniform-opt%")
				b.ReportMetric(100*float64(mistakes)/float64(len(states)), "mistakes%")
				b.ReportMetric(100*float64(argmaxMistakes)/float64(len(states)), "argmax-mistakes%")
			})
		}
	}
}
