package gtp_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"tabula/games"
	"tabula/gtp"
	"tabula/nn"
	"tabula/players"
)

// BenchmarkGenmove measures one genmove of `play gtp` with a network player
// at a fixed number of simulations, in games in progress (each genmove
// plays the side to move; a game restarts after 40 moves or at its end),
// so that the evaluator's cache helps as much as it does in real play. The
// network is 64 filters x 6 blocks (random weights: the time does not
// depend on them); configs/go9.yaml and configs/othello8.yaml have 32, and 64
// is kept so that the figures in docs/benchmarks.md compare.
func BenchmarkGenmove(b *testing.B) {
	for _, c := range []struct {
		name, game string
		sims       string
	}{
		{"go9/sims=100", "go:size=9,komi=7.5", "100"},
		{"go9/sims=200", "go:size=9,komi=7.5", "200"},
		{"othello8/sims=200", "othello:size=8", "200"},
	} {
		b.Run(c.name, func(b *testing.B) {
			g, err := games.New(c.game)
			if err != nil {
				b.Fatal(err)
			}
			p, h, w := g.ObservationShape()
			wts, err := nn.NewWeights(nn.Config{Filters: 64, Blocks: 6, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 64},
				nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(b.TempDir(), "net.tbn")
			if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: g.Name(), Weights: wts}); err != nil {
				b.Fatal(err)
			}
			spec, err := players.ParseSpec("net:path=" + path + ",sims=" + c.sims)
			if err != nil {
				b.Fatal(err)
			}
			f, err := players.Build(g, spec)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			e, err := gtp.NewEngine(gtp.DefaultEngineConfig(), g, func(games.Game) (gtp.Chooser, error) {
				return f.New(rand.New(rand.NewPCG(3, 4)))
			})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			clear := gtp.Command{Name: "clear_board"}
			start := time.Now()
			for b.Loop() {
				if s := e.Position().State(); s.IsTerminal() || s.MoveNumber() >= 40 {
					if _, err := e.Handle(ctx, clear); err != nil {
						b.Fatal(err)
					}
				}
				gen := gtp.Command{Name: "genmove", Args: []string{gtp.ColorName(e.Position().State().CurrentPlayer())}}
				if _, err := e.Handle(ctx, gen); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/genmove")
		})
	}
}
