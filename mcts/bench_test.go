package mcts

import (
	"context"
	"testing"
	"time"

	"tabula/games"
	"tabula/games/backgammon"
)

// benchSearch measures full searches of sims playouts from the initial
// position of g with a fresh tree each time (storage reused).
func benchSearch(b *testing.B, g games.Game, batch, sims int, solver bool, search string) {
	cfg := DefaultConfig()
	cfg.Search = search
	cfg.Simulations = sims
	cfg.BatchSize = batch
	cfg.Solver = solver
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
// evaluator, 1000 playouts per search; the solver on unless the name says
// otherwise (with it, every expansion also checks the children with Connect
// Four's games.Threats).
func BenchmarkSearchUniform(b *testing.B) {
	for _, tc := range []struct {
		name   string
		g      games.Game
		batch  int
		solver bool
		search string
	}{
		{"clone/batch=1", connect4Game(b), 1, true, SearchPUCT},
		{"clone/batch=16", connect4Game(b), 16, true, SearchPUCT},
		{"copier/batch=1", copierGame{}, 1, true, SearchPUCT},
		{"copier/batch=16", copierGame{}, 16, true, SearchPUCT},
		{"copier/batch=16/solver=off", copierGame{}, 16, false, SearchPUCT},
		{"copier/batch=16/gumbel", copierGame{}, 16, true, SearchGumbel},
		{"copier/batch=16/solver=off/gumbel", copierGame{}, 16, false, SearchGumbel},
	} {
		b.Run(tc.name, func(b *testing.B) { benchSearch(b, tc.g, tc.batch, 1000, tc.solver, tc.search) })
	}
}

// BenchmarkSearchEndgame searches a Connect Four endgame (a position of
// Pons' Test_L3_R1, 35 plies played, one winning move), where the tree
// reaches terminals and the solver has work: up to 2000 playouts per search
// (fewer once the root is solved), uniform evaluator.
func BenchmarkSearchEndgame(b *testing.B) {
	for _, solver := range []bool{false, true} {
		name := "solver=off"
		if solver {
			name = "solver=on"
		}
		b.Run(name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Simulations = 2000
			cfg.BatchSize = 16
			cfg.TreeReuse = false
			cfg.Solver = solver
			s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(1))
			if err != nil {
				b.Fatal(err)
			}
			st := position(b, "24555313265147651622632244317534477")
			sims := 0
			timeRuns(b, 1, "searches/s", func() error {
				r, err := s.Run(context.Background(), st)
				sims += r.Simulations
				return err
			})
			b.ReportMetric(float64(sims)/float64(b.N+1), "sims/search")
		})
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

// BenchmarkSearchBackgammon is the cost of the tree with chance nodes:
// backgammon after the opening roll 3-1, uniform evaluator, 1000 playouts
// per search, a fresh tree each time; every descent samples the dice at the
// chance nodes it crosses.
//
//	go test -run XXX -bench SearchBackgammon ./mcts
func BenchmarkSearchBackgammon(b *testing.B) {
	g, err := games.New("backgammon")
	if err != nil {
		b.Fatal(err)
	}
	st := g.NewInitialState()
	if err := games.Play(st, backgammon.RollAction(3, 1)); err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Simulations = 1000
	cfg.BatchSize = 16
	cfg.TreeReuse = false
	s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(1))
	if err != nil {
		b.Fatal(err)
	}
	timeRuns(b, 1000, "sims/s", func() error {
		_, err := s.Run(context.Background(), st)
		return err
	})
}
