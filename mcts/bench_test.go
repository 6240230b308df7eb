package mcts

import (
	"context"
	"testing"
	"time"

	"tabula/games"
)

// benchSearch measures full searches of sims playouts from the initial
// position of g with a fresh tree each time (storage reused).
func benchSearch(b *testing.B, g games.Game, batch, sims int) {
	cfg := DefaultConfig()
	cfg.Simulations = sims
	cfg.BatchSize = batch
	cfg.TreeReuse = false
	s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(1))
	if err != nil {
		b.Fatal(err)
	}
	st := g.NewInitialState()
	timeRuns(b, sims, "sims/s", func() error {
		_, err := s.Run(context.Background(), st)
		return err
	})
}

// timeRuns calls run once untimed (warming arenas and buffers), then b.N
// times timed, and reports perRun units of work a call as unit.
func timeRuns(b *testing.B, perRun int, unit string, run func() error) {
	if err := run(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*perRun)/time.Since(start).Seconds(), unit)
}

// BenchmarkSearchUniform is the cost of the tree alone: Connect Four, uniform
// evaluator, 1000 playouts per search.
func BenchmarkSearchUniform(b *testing.B) {
	for _, tc := range []struct {
		name  string
		g     games.Game
		batch int
	}{
		{"clone/batch=1", connect4Game(b), 1},
		{"clone/batch=16", connect4Game(b), 16},
		{"copier/batch=1", copierGame{}, 1},
		{"copier/batch=16", copierGame{}, 16},
	} {
		b.Run(tc.name, func(b *testing.B) { benchSearch(b, tc.g, tc.batch, 1000) })
	}
}

// BenchmarkUCT measures UCT iterations (one random playout each) per second
// from the initial Connect Four position.
func BenchmarkUCT(b *testing.B) {
	for _, tc := range []struct {
		name string
		g    games.Game
	}{{"clone", connect4Game(b)}, {"copier", copierGame{}}} {
		b.Run(tc.name, func(b *testing.B) {
			const rollouts = 1000
			u, err := NewUCT(UCTConfig{Rollouts: rollouts, C: 1.4}, newRNG(1))
			if err != nil {
				b.Fatal(err)
			}
			st := tc.g.NewInitialState()
			timeRuns(b, rollouts, "rollouts/s", func() error {
				_, err := u.ChooseAction(context.Background(), st)
				return err
			})
		})
	}
}

// BenchmarkSelfPlay measures self-play positions (moves played) per second
// with the uniform evaluator: 100 playouts a move, 32 games in flight, batch
// 32, tree reuse.
func BenchmarkSelfPlay(b *testing.B) {
	for _, tc := range []struct {
		name string
		g    games.Game
	}{{"clone", connect4Game(b)}, {"copier", copierGame{}}} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Simulations = 100
			cfg.GamesInFlight = 32
			cfg.BatchSize = 32
			p, err := NewSelfPlay(cfg, tc.g, UniformEvaluator{}, newRNG(1))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			positions := 0
			// One op is one game.
			err = p.Run(context.Background(), b.N, func(r GameRecord) error {
				positions += len(r.Actions)
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(positions)/time.Since(start).Seconds(), "pos/s")
		})
	}
}
