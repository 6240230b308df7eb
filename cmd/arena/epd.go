package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"tabula/bench"
	"tabula/games/chess"
	"tabula/players"
)

func defineEPD(fs *flag.FlagSet) func(context.Context, io.Reader, io.Writer, io.Writer) error {
	file := fs.String("file", "", "EPD suite, one position a line with bm and/or am moves in SAN (required), e.g. data/chess/wac.epd")
	playerSpec := fs.String("player", "", "player spec (required), e.g. alphabeta:time=1s")
	first := fs.Int("n", 0, "use only the first N positions of the file (0: all)")
	out := fs.String("out", "", "write one JSON line per position to this file")
	seed := fs.Uint64("seed", 1, "seed of the player")
	quiet := fs.Bool("quiet", false, "no progress bar")
	return func(ctx context.Context, _ io.Reader, stdout, stderr io.Writer) (err error) {
		if *file == "" {
			return errors.New("-file FILE is required")
		}
		if *first < 0 {
			return fmt.Errorf("-n %d, want >= 0", *first)
		}
		spec, err := players.ParseSpec(*playerSpec)
		if err != nil {
			return fmt.Errorf("-player: %w", err)
		}
		f, err := os.Open(*file)
		if err != nil {
			return err
		}
		recs, err := chess.ReadEPD(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *file, err)
		}
		if len(recs) == 0 {
			return fmt.Errorf("%s: no positions", *file)
		}
		if *first > 0 && len(recs) > *first {
			recs = recs[:*first]
		}
		fac, err := players.Build(chess.Game{}, spec)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := fac.Close(); err == nil {
				err = cerr
			}
		}()
		jl, err := openJSONLines(*out)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := jl.close(); err == nil {
				err = cerr
			}
		}()
		bar := newBar(len(recs), "positions", stderr, *quiet)
		done := 0
		var werr error
		res, err := bench.RunEPD(ctx, fac, recs, *seed, func(r bench.EPDRecord) {
			done++
			_ = bar.Set(done)
			if werr == nil {
				werr = jl.write(r)
			}
		})
		_ = bar.Finish()
		if err != nil {
			return err
		}
		if werr != nil {
			return fmt.Errorf("-out: %w", werr)
		}
		writeEPDResult(stdout, *file, fac.Name, res)
		if ctx.Err() != nil {
			fmt.Fprintf(stdout, "interrupted after %d of %d positions\n", res.Positions, len(recs))
		}
		return nil
	}
}

// openJSONLines creates path for JSON lines, or returns nil (which writes
// nothing) when path is empty.
func openJSONLines(path string) (*jsonLines, error) {
	if path == "" {
		return nil, nil
	}
	return createJSONLines(path)
}

// writeEPDResult prints the failures, one a line, then the solved count with
// its Wilson 95% interval and the time spent.
func writeEPDResult(w io.Writer, file, player string, res bench.EPDResult) {
	for _, r := range res.Failed {
		want := "bm " + strings.Join(r.Best, " ")
		if len(r.Best) == 0 {
			want = "am " + strings.Join(r.Avoid, " ")
		}
		fmt.Fprintf(w, "failed %-8s %-16s played %-7s depth %2d  %s\n", r.ID, want, r.Move, r.Depth, r.FEN)
	}
	lo, hi := res.Interval95()
	pct := 0.0
	if res.Positions > 0 {
		pct = 100 * float64(res.Solved) / float64(res.Positions)
	}
	fmt.Fprintf(w, "%s: %s solved %d/%d (%.1f%%, 95%% Wilson interval %.1f-%.1f%%); %.1f s wall, %.1f s CPU\n",
		file, player, res.Solved, res.Positions, pct, 100*lo, 100*hi, res.Time.Seconds(), res.CPU.Seconds())
}
