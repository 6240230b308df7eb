package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"tabula/bench"
	"tabula/elo"
	"tabula/games/othello"
	"tabula/players"
)

// benchOthello benchmarks a player on Othello position sets (data/othello):
// one summary line per set, naming the set and its bucket of empties.
func benchOthello(ctx context.Context, g *othello.Game, playerSpec, paths, out string, seed uint64, first int, quiet bool, stdout, stderr io.Writer) (err error) {
	spec, err := players.ParseSpec(playerSpec)
	if err != nil {
		return fmt.Errorf("-player: %w", err)
	}
	if first < 0 {
		return fmt.Errorf("-n %d, want >= 0", first)
	}
	var sets []*bench.OthelloSet
	for _, path := range strings.Split(paths, ",") {
		path = strings.TrimSpace(path)
		if path == "" {
			return fmt.Errorf("-positions %q: empty file name in the list", paths)
		}
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("%w", err)
		}
		set, err := bench.ReadOthelloSet(f, path, g)
		f.Close()
		if err != nil {
			return fmt.Errorf("%w", err)
		}
		if len(set.Positions) == 0 {
			return fmt.Errorf("%s: no positions", path)
		}
		if first > 0 && len(set.Positions) > first {
			set.Positions = set.Positions[:first]
		}
		sets = append(sets, set)
	}
	player, err := players.Build(g, spec)
	if err != nil {
		return fmt.Errorf("%w", err)
	}
	defer func() {
		if cerr := player.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	var jl *jsonLines
	if out != "" {
		if jl, err = createJSONLines(out); err != nil {
			return fmt.Errorf("%w", err)
		}
	}
	defer func() {
		if cerr := jl.close(); err == nil {
			err = cerr
		}
	}()
	for _, set := range sets {
		bar := newBar(len(set.Positions), set.Name, stderr, quiet)
		cfg := bench.OthelloBenchConfig{
			Seed:     seed,
			Record:   func(r bench.OthelloRecord) error { return jl.write(r) },
			Progress: func(done, total int) { _ = bar.Set(done) },
		}
		res, err := bench.BenchOthello(ctx, cfg, player, set)
		_ = bar.Finish()
		if err != nil {
			return fmt.Errorf("%w", err)
		}
		lo, hi := elo.Wilson(res.Mistakes, res.Positions, elo.Z95)
		fmt.Fprintf(stdout, "%s on %s (%s, %s empties): %d positions, %d mistakes (%.1f%% [%.1f%%, %.1f%%]; %.1f%% of the %d where one was possible), mean disc loss %.2f, best move %.1f%%, %.3f ms per move\n",
			player.Name, set.Name, g.Name(), set.Bucket(), res.Positions, res.Mistakes, 100*res.MistakeRate(), 100*lo, 100*hi,
			100*res.CriticalMistakeRate(), res.Critical, res.MeanDiscLoss(), 100*float64(res.Perfect)/float64(res.Positions),
			float64(res.TimePerMove().Microseconds())/1000)
	}
	return nil
}
