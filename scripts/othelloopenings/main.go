// Command othelloopenings writes distinct random Othello openings for
// colour-paired arena matches (arena match -openings FILE: each opening is
// played twice, once with each colour): -n sequences of -plies uniformly
// random legal moves from the initial position, seeded.
//
//	go run ./scripts/othelloopenings -n 100 -plies 6 -seed 1 -out data/othello/openings-6ply.txt
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"

	"tabula/games"
	_ "tabula/games/all"
	"tabula/internal/atomicfile"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "othelloopenings:", err)
		}
		os.Exit(2)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("othelloopenings", flag.ContinueOnError)
	fs.SetOutput(stderr)
	game := fs.String("game", "othello", "game spec")
	n := fs.Int("n", 100, "openings to write")
	plies := fs.Int("plies", 6, "random plies per opening")
	seed := fs.Uint64("seed", 1, "seed")
	out := fs.String("out", "", "file to write (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || *n < 1 || *plies < 1 {
		return fmt.Errorf("want -out FILE, -n >= 1 and -plies >= 1")
	}
	g, err := games.New(*game)
	if err != nil {
		return err
	}
	nt, ok := g.(games.Notation)
	if !ok {
		return fmt.Errorf("game %s has no move notation", g.Name())
	}
	rng := rand.New(rand.NewPCG(*seed, 0x6f70656e))
	var b strings.Builder
	fmt.Fprintf(&b, "# %d distinct openings of %d random plies for %s\n# made by: go run ./scripts/othelloopenings -game %s -n %d -plies %d -seed %d -out %s\n",
		*n, *plies, g.Name(), *game, *n, *plies, *seed, *out)
	seen := map[string]bool{}
	for tries := 0; len(seen) < *n; tries++ {
		if tries > 1000*(*n) {
			return fmt.Errorf("found only %d distinct openings of %d plies", len(seen), *plies)
		}
		s := g.NewInitialState()
		var moves []int
		for len(moves) < *plies && !s.IsTerminal() {
			legal := s.LegalActions(nil)
			a := legal[rng.IntN(len(legal))]
			s.ApplyAction(a)
			moves = append(moves, a)
		}
		line := nt.FormatActions(moves)
		if s.IsTerminal() || seen[line] {
			continue
		}
		seen[line] = true
		b.WriteString(line + "\n")
	}
	return atomicfile.Write(*out, []byte(b.String()))
}
