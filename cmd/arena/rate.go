package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"tabula/bench"
	"tabula/games"
	"tabula/games/backgammon"
	"tabula/match"
	"tabula/players"
)

func defineRate(fs *flag.FlagSet) func(context.Context, io.Reader, io.Writer, io.Writer) error {
	gameSpec := fs.String("game", "", "game: backgammon or backgammon:scoring=money (default: with -in the records' game, else backgammon)")
	playerList := fs.String("players", "", "two player specs to play -games games and rate (or -in)")
	in := fs.String("in", "", "rate the games of this file (JSON lines of \"arena match -out\") instead of playing")
	n := fs.Int("games", 100, "games to play (with -in: the first N of the file; 0: all)")
	parallel := fs.Int("parallel", 0, "games played and gnubg processes run at once (0: one per core)")
	seed := fs.Uint64("seed", 1, "seed of the match")
	randomPlies := fs.Int("random-plies", 0, "opening plies played at random (not rated); with -in, what the match used")
	plies := fs.Int("plies", 0, "gnubg's depth: 0 (its net on every legal move) to 3 (the best moves and the one played, deeper)")
	gnubg := fs.String("gnubg", "", "gnubg program (default: gnubg on PATH or in /usr/games)")
	out := fs.String("out", "", "write gnubg's verdict on every turn as a JSON line to this file")
	quiet := fs.Bool("quiet", false, "no progress bar")
	return func(ctx context.Context, _ io.Reader, stdout, stderr io.Writer) (err error) {
		spec := *gameSpec
		if spec == "" && *in == "" {
			spec = "backgammon"
		}
		var g games.Game
		if spec != "" {
			if g, err = games.New(spec); err != nil {
				return err
			}
		}
		switch {
		case *n < 0:
			return fmt.Errorf("-games %d, want >= 0", *n)
		case *parallel < 0:
			return fmt.Errorf("-parallel %d, want >= 0", *parallel)
		case *randomPlies < 0:
			return fmt.Errorf("-random-plies %d, want >= 0", *randomPlies)
		case (*in == "") == (*playerList == ""):
			return errors.New("give either -players (play and rate) or -in FILE (rate recorded games)")
		}
		cfg := bench.GnubgConfig{Program: *gnubg, Plies: *plies, Parallel: *parallel}
		if cfg.Parallel == 0 {
			cfg.Parallel = runtime.GOMAXPROCS(0)
		}
		if err := cfg.Validate(); err != nil {
			return fmt.Errorf("-plies: %w", err)
		}
		var recs []match.GameRecord
		if *in != "" {
			if recs, err = readRecords(*in, g, *n); err != nil {
				return err
			}
			if g == nil {
				if g, err = games.New(recs[0].Game); err != nil {
					return fmt.Errorf("%s: the records' game: %w", *in, err)
				}
				if _, ok := g.(*backgammon.Game); !ok {
					return fmt.Errorf("%s: a game of %q, want backgammon (either scoring)", *in, recs[0].Game)
				}
			}
		} else {
			if *n == 0 {
				return errors.New("-games 0: nothing to play")
			}
			if recs, err = playForRating(ctx, g, *playerList, *n, *parallel, *seed, *randomPlies, stdout, stderr, *quiet); err != nil {
				return err
			}
		}
		var turns []bench.BackgammonTurn
		for _, r := range recs {
			ts, err := bench.BackgammonTurns(g, r, *randomPlies)
			if err != nil {
				return err
			}
			turns = append(turns, ts...)
		}
		if len(turns) == 0 {
			return errors.New("no turns to rate")
		}
		bar := newBar(len(turns), "gnubg", stderr, *quiet)
		cfg.Progress = func(done, total int) { _ = bar.Set(done) }
		rs, err := bench.RateWithGnubg(ctx, cfg, turns)
		_ = bar.Finish()
		if err != nil {
			return err
		}
		if *out != "" {
			jl, err := createJSONLines(*out)
			if err != nil {
				return err
			}
			for _, r := range rs {
				if err := jl.write(r); err != nil {
					jl.close()
					return fmt.Errorf("output %s: %w", *out, err)
				}
			}
			if err := jl.close(); err != nil {
				return err
			}
		}
		printRatings(stdout, g, len(recs), *plies, bench.SummariseGnubg(rs))
		return nil
	}
}

// readRecords reads the first n (0: all) game records of a file written by
// "arena match -out"; they must be games of g (with g nil: all of one game).
func readRecords(path string, g games.Game, n int) ([]match.GameRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("-in: %w", err)
	}
	defer f.Close()
	var recs []match.GameRecord
	err = eachJSONLine(f, path, func(line int, data []byte) (bool, error) {
		var r match.GameRecord
		if err := json.Unmarshal(data, &r); err != nil {
			return false, fmt.Errorf("%s:%d: not a game record: %w", path, line, err)
		}
		switch {
		case g != nil && r.Game != g.Name():
			return false, fmt.Errorf("%s:%d: a game of %q, want %s", path, line, r.Game, g.Name())
		case g == nil && len(recs) > 0 && r.Game != recs[0].Game:
			return false, fmt.Errorf("%s:%d: a game of %q, the first record's is %q", path, line, r.Game, recs[0].Game)
		}
		recs = append(recs, r)
		return n == 0 || len(recs) < n, nil
	})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no game records", path)
	}
	return recs, nil
}

// playForRating plays the two players' match (mirrored dice) and prints its
// result.
func playForRating(ctx context.Context, g games.Game, list string, n, parallel int, seed uint64, randomPlies int, stdout, stderr io.Writer, quiet bool) (recs []match.GameRecord, err error) {
	specs, err := players.ParseSpecs(list)
	if err != nil {
		return nil, fmt.Errorf("-players: %w", err)
	}
	if len(specs) != 2 {
		return nil, fmt.Errorf("-players %q names %d players, want 2", list, len(specs))
	}
	players, err := players.BuildAll(g, specs)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, p := range players {
			if cerr := p.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}
	}()
	bar := newBar(n, "games", stderr, quiet)
	res, err := match.Match(ctx, match.MatchConfig{Games: n, Parallel: parallel, Seed: seed, RandomPlies: randomPlies,
		Record:   func(r match.GameRecord) error { recs = append(recs, r); return nil },
		Progress: func(done, total int) { _ = bar.Set(done) },
	}, g, players)
	_ = bar.Finish()
	if err != nil {
		return nil, err
	}
	printMatch(stdout, g, res, 0)
	fmt.Fprintln(stdout)
	return recs, nil
}

// printRatings writes the error rates.
func printRatings(w io.Writer, g games.Game, nGames, plies int, sums []bench.GnubgSummary) {
	width := 6
	for _, s := range sums {
		width = max(width, len(s.Player))
	}
	fmt.Fprintf(w, "gnubg %d-ply referee, %s, %d games: equity lost per decision against gnubg's choice\n", plies, g.Name(), nGames)
	fmt.Fprintln(w, "(cubeless money equity, in millipoints; unforced: turns with two or more legal moves; 95% interval over games)")
	fmt.Fprintf(w, "%-*s %6s %8s %22s %9s %8s %8s %11s\n", width, "player", "turns", "unforced", "loss/unforced [95%]", "loss/turn", "best", "bad", "P(win)lost")
	for _, s := range sums {
		m, ci := 1000*s.PerUnforced(), 1000*s.Interval95()
		u := float64(max(1, s.Unforced))
		fmt.Fprintf(w, "%-*s %6d %8d %22s %9.1f %7.1f%% %7.1f%% %10.2f%%\n", width, s.Player, s.Turns, s.Unforced,
			fmt.Sprintf("%.1f [%.1f, %.1f]", m, max(0, m-ci), m+ci), 1000*s.PerTurn(),
			100*float64(s.Best)/u, 100*float64(s.Bad)/u, 100*s.WinLoss/u)
	}
	fmt.Fprintln(w, "best: unforced turns where the move was gnubg's choice; bad: unforced turns losing 60 or more (gnubg's")
	fmt.Fprintln(w, "default \"bad\" threshold); P(win)lost: winning chance lost per unforced turn.")
}
