package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/connect4"
	"tabula/mcts"
	"tabula/search/c4solver"
)

// BenchmarkValueTargetError measures how far the value targets of
// experimental.value_target_mix are from the game-theoretic value, on Connect
// Four self-play with configs/connect4.yaml's search settings guided by
// random rollouts (one per leaf, uniform priors: a search that knows
// something, with no network to train). For every position with a policy
// target and at least 12 stones (the solver is quick there) it compares
// (1-mix)*z + mix*q with the solver's result for the mover (+1, 0, -1):
// mse-mix=M is the mean squared error of the target with mix M, and
// sign-mix=M the share of positions whose target has the wrong sign (or is
// 0 where the result is not a draw). z carries the mistakes of both sides
// after the position (temperature moves included), q the search's error.
//
//	go test ./pipeline -run '^$' -bench ValueTargetError -benchtime 64x
func BenchmarkValueTargetError(b *testing.B) {
	cfg, err := Load("../configs/connect4.yaml", nil)
	if err != nil {
		b.Fatal(err)
	}
	g, err := games.New(cfg.Game)
	if err != nil {
		b.Fatal(err)
	}
	eval, err := mcts.NewRolloutEvaluator(1, rand.New(rand.NewPCG(cfg.Seed, 2)))
	if err != nil {
		b.Fatal(err)
	}
	sp, err := mcts.NewSelfPlay(cfg.SelfPlay.MCTS, g, eval, rand.New(rand.NewPCG(cfg.Seed, 1)))
	if err != nil {
		b.Fatal(err)
	}
	solver, err := c4solver.New(22)
	if err != nil {
		b.Fatal(err)
	}
	mixes := []float64{0, 0.25, 0.5, 0.75, 1}
	se, wrong := make([]float64, len(mixes)), make([]int, len(mixes))
	n := 0
	err = sp.Run(context.Background(), b.N, func(rec mcts.GameRecord) error {
		return rec.MixedExamples(g, 0, func(s games.State, _ []float32, _ float32) error {
			if s.MoveNumber() < 12 {
				return nil
			}
			truth := float64(solver.Outcome(s.(*connect4.State)))
			z := rec.Returns[s.CurrentPlayer()]
			q := float64(rec.RootValues[s.MoveNumber()])
			for k, m := range mixes {
				v := (1-m)*z + m*q
				se[k] += (v - truth) * (v - truth)
				if (truth == 0) != (v == 0) || v*truth < 0 {
					wrong[k]++
				}
			}
			n++
			return nil
		})
	})
	if err != nil {
		b.Fatal(err)
	}
	for k, m := range mixes {
		b.ReportMetric(se[k]/float64(max(n, 1)), fmt.Sprintf("mse-mix=%g", m))
		b.ReportMetric(100*float64(wrong[k])/float64(max(n, 1)), fmt.Sprintf("%%sign-mix=%g", m))
	}
	b.ReportMetric(float64(n)/float64(b.N), "positions/game")
}
