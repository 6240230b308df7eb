// Command probcutfit makes the ProbCut and Multi-ProbCut fits for Othello
// (data/othello/probcut.json; search/probcut.go): it plays seeded games
// (a few random opening moves, then a depth-2 alpha-beta player with some
// random moves), samples positions along them, searches each position with
// plain alpha-beta to every depth up to -deep, and fits
// v_deep = a*v_shallow + b by least squares for each depth pair, per stage
// of empty squares for Multi-ProbCut and over all stages for ProbCut. The
// same flags give the same file.
//
//	go run ./scripts/probcutfit -games 200 -seed 1 -out data/othello/probcut.json
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"tabula/games"
	_ "tabula/games/all"
	"tabula/internal/cputime"
	"tabula/search"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "probcutfit:", err)
		}
		os.Exit(2)
	}
}

// options are the flags.
type options struct {
	game              string
	games             int
	seed              uint64
	deep              int
	minEmpties, every int
	randomPlies       int
	epsilon           float64
	probcut, mpc      string
	stageWidth        int
	out               string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("probcutfit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.game, "game", "othello", "game spec (its states must count empty squares)")
	fs.IntVar(&o.games, "games", 200, "games played to collect positions")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the games")
	fs.IntVar(&o.deep, "deep", 6, "deepest search of each position, in plies")
	fs.IntVar(&o.minEmpties, "min-empties", 14, "sample positions with at least this many empty squares")
	fs.IntVar(&o.every, "every", 3, "sample every N-th position of a game (from a random offset)")
	fs.IntVar(&o.randomPlies, "random-plies", 8, "opening plies played at random: 0..N, uniformly")
	fs.Float64Var(&o.epsilon, "epsilon", 0.1, "probability of a random move after the opening")
	fs.StringVar(&o.probcut, "probcut", "4:2", "ProbCut's depth pairs DEEP:SHALLOW, comma-separated, fitted over all stages")
	fs.StringVar(&o.mpc, "mpc", "3:1,4:2,5:1,5:3,6:2,6:4", "Multi-ProbCut's depth pairs DEEP:SHALLOW, comma-separated, fitted per stage")
	fs.IntVar(&o.stageWidth, "stage", 8, "Multi-ProbCut's stage width in empty squares")
	fs.StringVar(&o.out, "out", "", "file to write (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch {
	case o.out == "":
		return fmt.Errorf("-out is required")
	case o.games < 1:
		return fmt.Errorf("-games %d, want >= 1", o.games)
	case o.deep < 1 || o.deep > 12:
		return fmt.Errorf("-deep %d, want 1..12", o.deep)
	case o.every < 1:
		return fmt.Errorf("-every %d, want >= 1", o.every)
	case o.stageWidth < 1:
		return fmt.Errorf("-stage %d, want >= 1", o.stageWidth)
	case o.epsilon < 0 || o.epsilon > 1:
		return fmt.Errorf("-epsilon %v, want 0..1", o.epsilon)
	}
	pcPairs, err := parsePairs("-probcut", o.probcut, o.deep)
	if err != nil {
		return err
	}
	mpcPairs, err := parsePairs("-mpc", o.mpc, o.deep)
	if err != nil {
		return err
	}
	g, err := games.New(o.game)
	if err != nil {
		return err
	}
	if _, ok := g.NewInitialState().(search.EmptySquares); !ok {
		return fmt.Errorf("game %s does not count empty squares", g.Name())
	}
	cpu0 := cputime.Process()
	samples, err := collect(ctx, g, o)
	if err != nil {
		return err
	}
	maxE := 0
	for _, s := range samples {
		maxE = max(maxE, s.Empties)
	}
	all := [][2]int{{o.minEmpties, maxE}}
	var stages [][2]int
	for lo := o.minEmpties; lo <= maxE; lo += o.stageWidth {
		stages = append(stages, [2]int{lo, min(lo+o.stageWidth-1, maxE)})
	}
	pc, err := search.FitProbCut(samples, pcPairs, all)
	if err != nil {
		return err
	}
	mpc, err := search.FitProbCut(samples, mpcPairs, stages)
	if err != nil {
		return err
	}
	m := search.ProbCutModel{
		Game: g.Name(),
		MadeBy: fmt.Sprintf("go run ./scripts/probcutfit -game %s -games %d -seed %d -deep %d -min-empties %d -every %d -random-plies %d -epsilon %v -probcut %s -mpc %s -stage %d -out %s",
			o.game, o.games, o.seed, o.deep, o.minEmpties, o.every, o.randomPlies, o.epsilon, o.probcut, o.mpc, o.stageWidth, o.out),
		Method: fmt.Sprintf("positions from %d games: 0..%d random opening plies, then alphabeta depth 2 with probability %v of a random move; every %d-th position with at least %d empties; each searched by plain alpha-beta (no selective features) to every depth 0..%d (0: the static evaluation); least squares of the deep on the shallow value over the pairs where neither is a proven result",
			o.games, o.randomPlies, o.epsilon, o.every, o.minEmpties, o.deep),
		Positions: len(samples),
		ProbCut:   pc,
		MPC:       mpc,
	}
	if err := search.WriteProbCut(o.out, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d positions from %d games, %.1f CPU-seconds; wrote %s\n", len(samples), o.games, (cputime.Process() - cpu0).Seconds(), o.out)
	for _, sec := range []struct {
		name string
		pc   search.ProbCut
	}{{"probcut", pc}, {"mpc", mpc}} {
		for _, c := range sec.pc.Checks {
			for _, f := range c.Fits {
				fmt.Fprintf(stdout, "%-7s deep %d shallow %d empties %2d..%2d: a %.3f b %+.4f sigma %.4f r %.3f n %d\n",
					sec.name, c.Deep, c.Shallow, f.MinEmpties, f.MaxEmpties, f.A, f.B, f.Sigma, f.R, f.N)
			}
		}
	}
	return nil
}

// parsePairs reads DEEP:SHALLOW pairs.
func parsePairs(flagName, s string, deepest int) ([][2]int, error) {
	var pairs [][2]int
	for _, f := range strings.Split(s, ",") {
		d, sh, ok := strings.Cut(strings.TrimSpace(f), ":")
		deep, err1 := strconv.Atoi(d)
		shallow, err2 := strconv.Atoi(sh)
		if !ok || err1 != nil || err2 != nil || shallow < 0 || deep <= shallow || deep > deepest {
			return nil, fmt.Errorf("%s: pair %q, want DEEP:SHALLOW with 0 <= SHALLOW < DEEP <= -deep (%d)", flagName, f, deepest)
		}
		pairs = append(pairs, [2]int{deep, shallow})
	}
	return pairs, nil
}

// collect plays o.games games and returns the sampled positions with their
// values at every depth 0..o.deep.
func collect(ctx context.Context, g games.Game, o options) ([]search.ProbCutSample, error) {
	h := g.(games.Heuristic)
	rng := rand.New(rand.NewPCG(o.seed, 0x70726f6263757421))
	play, err := search.New(g, search.Config{Depth: 2, Ordering: true})
	if err != nil {
		return nil, err
	}
	cfg := search.Config{Depth: o.deep, TableBits: 18, Ordering: true, Killers: true, History: true, PVS: true}
	deep, err := search.New(g, cfg)
	if err != nil {
		return nil, err
	}
	var samples []search.ProbCutSample
	buf := make([]int, 0, g.NumActions())
	for n := 0; n < o.games; n++ {
		st := g.NewInitialState()
		opening := rng.IntN(o.randomPlies + 1)
		offset := rng.IntN(o.every)
		for ply := 0; !st.IsTerminal(); ply++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			e := st.(search.EmptySquares).Empties()
			if ply >= opening && ply%o.every == offset && e >= o.minEmpties {
				vals := make([]float64, o.deep+1)
				for i := range vals {
					vals[i] = math.NaN()
				}
				vals[0] = h.Evaluate(st)
				_, err := deep.SearchLimits(ctx, st, search.Limits{Depth: o.deep, Info: func(r search.Result) { vals[r.Depth] = r.Value }})
				if err != nil {
					return nil, err
				}
				samples = append(samples, search.ProbCutSample{Empties: e, Values: vals})
			}
			var a int
			if ply < opening || rng.Float64() < o.epsilon {
				moves := st.LegalActions(buf[:0])
				a = moves[rng.IntN(len(moves))]
			} else {
				r, err := play.Search(ctx, st)
				if err != nil {
					return nil, err
				}
				a = r.Move
			}
			st.ApplyAction(a)
		}
	}
	return samples, nil
}
