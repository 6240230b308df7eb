package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"tabula/games"
	"tabula/match"
)

func defineTally(fs *flag.FlagSet) func(context.Context, io.Reader, io.Writer, io.Writer) error {
	in := fs.String("in", "", "games written by \"arena match -out\" (required)")
	gameSpec := fs.String("game", "", "the records' game (default: the game the first record names)")
	n := fs.Int("games", 0, "only the first N records (0: all)")
	anchor := fs.Int("anchor", 0, "index of the player whose Elo is fixed at 0")
	dropForfeits := fs.Bool("drop-forfeits", false, "leave out the games lost by a forfeit (an outside engine that crashed, hung or timed out) and, where games are paired, their mirror games: the result of the games decided by play")
	return func(ctx context.Context, _ io.Reader, stdout, stderr io.Writer) error {
		if *in == "" {
			return fmt.Errorf("-in FILE is required")
		}
		if *n < 0 {
			return fmt.Errorf("-games %d, want >= 0", *n)
		}
		var g games.Game
		if *gameSpec != "" {
			var err error
			if g, err = games.New(*gameSpec); err != nil {
				return err
			}
		}
		recs, err := readRecords(*in, g, *n)
		if err != nil {
			return err
		}
		if g == nil {
			if g, err = games.New(recs[0].Game); err != nil {
				return fmt.Errorf("%s: %w", *in, err)
			}
		}
		if *dropForfeits {
			var dropped int
			if recs, dropped = match.DropForfeitPairs(g, recs); dropped > 0 {
				fmt.Fprintf(stdout, "%d game(s) left out: forfeits and their mirror games\n", dropped)
			}
			if len(recs) == 0 {
				return fmt.Errorf("%s: no game left after leaving out the forfeits", *in)
			}
		}
		res, err := match.Tally(g, recs)
		if err != nil {
			return fmt.Errorf("%s: %w", *in, err)
		}
		if *anchor < 0 || *anchor >= len(res.Players) {
			return fmt.Errorf("-anchor %d outside [0, %d)", *anchor, len(res.Players))
		}
		printMatch(stdout, g, res, *anchor)
		printForfeits(stdout, res)
		return nil
	}
}
