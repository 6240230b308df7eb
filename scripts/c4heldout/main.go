// Command c4heldout makes a Connect Four evaluation set that no setting was
// chosen on: positions from seeded games between varied players (random,
// alpha-beta at several depths, UCT with rollouts, and networks given with
// -net), one position per game at a ply drawn uniformly from MIN..MAX,
// none of them (nor its mirror image) in Pons' sets or twice in the set;
// then every legal column of every position labelled win/draw/loss by the
// exact solver (search/c4solver), written as shipped verdicts.
//
//	go run ./scripts/c4heldout -n 2000 -seed 1 -out data/connect4/heldout \
//	    -verdicts data/connect4/verdicts/heldout.json -pons ../shared/refdata/connect4
//
// The positions file is in Pons' format without scores (moves only), so
// `arena bench -positions data/connect4/heldout` reads it and finds the
// verdicts in data/connect4/verdicts/heldout.json. The same flags give the
// same files. The labelling is resumable: -verdicts is extended where it
// holds the first positions.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"tabula/bench"
	"tabula/games"
	"tabula/games/connect4"
	"tabula/internal/atomicfile"
	"tabula/internal/cputime"
	"tabula/players"
	"tabula/search/c4solver"
)

// DefaultPlayers is the mix of players the games are played by.
const DefaultPlayers = "random alphabeta:depth=1 alphabeta:depth=2 alphabeta:depth=4 alphabeta:depth=6 alphabeta:depth=8 mcts:rollouts=200 mcts:rollouts=2000"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "c4heldout:", err)
		}
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("c4heldout", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 2000, "positions")
	minPly := fs.Int("min", 8, "fewest stones on the board")
	maxPly := fs.Int("max", 32, "most stones on the board")
	seed := fs.Uint64("seed", 1, "seed of the games")
	playerList := fs.String("players", DefaultPlayers, "player specs the games are played by (each side drawn at random)")
	nets := fs.String("net", "", "network checkpoints whose players (net:path=FILE,sims=200) join the mix, comma-separated")
	epsilon := fs.Float64("epsilon", 0.05, "chance of a random move at each ply")
	pons := fs.String("pons", "../shared/refdata/connect4", "folder of Pons' sets (Test_*), whose positions are left out")
	out := fs.String("out", "data/connect4/heldout", "positions file")
	verdicts := fs.String("verdicts", "data/connect4/verdicts/heldout.json", "verdicts file (shipped verdicts: VERDICTS_DIR/<positions file name>.json)")
	tt := fs.Int("tt", c4solver.DefaultTableLog2, "log2 of the solver's table entries")
	positionsOnly := fs.Bool("positions-only", false, "write the positions and stop before labelling")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case *n < 1:
		return fmt.Errorf("-n %d, want >= 1", *n)
	case *minPly < 0 || *maxPly < *minPly || *maxPly > 41:
		return fmt.Errorf("-min %d -max %d: want 0 <= min <= max <= 41", *minPly, *maxPly)
	case *epsilon < 0 || *epsilon > 1:
		return fmt.Errorf("-epsilon %g, want 0..1", *epsilon)
	}
	specs, err := players.ParseSpecs(*playerList)
	if err != nil {
		return fmt.Errorf("-players: %w", err)
	}
	for _, p := range strings.Split(*nets, ",") {
		if p = strings.TrimSpace(p); p != "" {
			s, err := players.ParseSpec(fmt.Sprintf("net:path=%q,sims=200", p))
			if err != nil {
				return fmt.Errorf("-net: %w", err)
			}
			specs = append(specs, s)
		}
	}
	exclude, err := ponsKeys(*pons)
	if err != nil {
		return err
	}
	g := connect4.Game{}
	var factories []*players.Factory
	for _, s := range specs {
		f, err := players.Build(g, s)
		if err != nil {
			return err
		}
		defer f.Close()
		factories = append(factories, f)
	}
	rng := rand.New(rand.NewPCG(*seed, 0xc4))
	seen := map[[2]uint64]bool{}
	var lines []string
	perPly := map[int]int{}
	perPlayer := map[string]int{}
	gamesPlayed := 0
	start := time.Now()
	for len(lines) < *n {
		if err := ctx.Err(); err != nil {
			return err
		}
		if gamesPlayed > 100**n {
			return fmt.Errorf("only %d positions after %d games", len(lines), gamesPlayed)
		}
		gamesPlayed++
		target := *minPly + rng.IntN(*maxPly-*minPly+1)
		a, b := rng.IntN(len(factories)), rng.IntN(len(factories))
		moves, st, err := playTo(ctx, g, [2]*players.Factory{factories[a], factories[b]}, target, *epsilon, rng)
		if err != nil {
			return err
		}
		if st == nil {
			continue // the game ended before the target ply
		}
		k := key(st)
		if seen[k] || exclude[k] {
			continue
		}
		seen[k] = true
		lines = append(lines, moves)
		perPly[target]++
		perPlayer[specs[a].String()+" vs "+specs[b].String()]++
	}
	header := fmt.Sprintf("%d positions from %d games (%s); plies %d-%d; players %s; epsilon %g; seed %d",
		len(lines), gamesPlayed, time.Since(start).Round(time.Second), *minPly, *maxPly, *playerList, *epsilon, *seed)
	fmt.Fprintln(stdout, header)
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(*out, []byte(strings.Join(lines, "\n")+"\n")); err != nil {
		return err
	}
	plies := make([]int, 0, len(perPly))
	for p := range perPly {
		plies = append(plies, p)
	}
	sort.Ints(plies)
	var hist []string
	for _, p := range plies {
		hist = append(hist, fmt.Sprintf("%d:%d", p, perPly[p]))
	}
	fmt.Fprintf(stdout, "wrote %s; positions by ply %s\n", *out, strings.Join(hist, " "))
	if *positionsOnly {
		return nil
	}
	positions, err := c4solver.ReadSetFile(*out)
	if err != nil {
		return err
	}
	last := time.Now()
	c0 := cputime.Process()
	t0 := time.Now()
	v, err := bench.LoadOrSolveVerdicts(ctx, *verdicts, positions, *tt, false, func(done, total int) {
		if !*quiet && (time.Since(last) > 10*time.Second || done == total) {
			last = time.Now()
			fmt.Fprintf(stderr, "labelled %d/%d, %s\n", done, total, time.Since(t0).Round(time.Second))
		}
	})
	if err != nil {
		return err
	}
	open := 0
	for _, o := range v.Outcomes {
		if bench.AdmitsMistake(o) {
			open++
		}
	}
	fmt.Fprintf(stdout, "wrote %s: %d positions labelled in %.0f CPU-s; %d (%.1f%%) admit a mistake\n",
		*verdicts, len(v.Outcomes), (cputime.Process() - c0).Seconds(), open, 100*float64(open)/float64(len(v.Outcomes)))
	return nil
}

// playTo plays a game between the two players (a random move instead with
// probability epsilon) and returns the moves and the position after target
// plies, or a nil state when the game ends first or the position then has
// a single legal move or a win in one for the side to move (nothing to
// judge).
func playTo(ctx context.Context, g games.Game, fs [2]*players.Factory, target int, epsilon float64, rng *rand.Rand) (string, *connect4.State, error) {
	var ps [2]players.Player
	for i, f := range fs {
		p, err := f.New(rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())))
		if err != nil {
			return "", nil, err
		}
		ps[i] = p
	}
	s := g.NewInitialState().(*connect4.State)
	var sb strings.Builder
	var legal []int
	for ply := 0; ply < target; ply++ {
		if s.IsTerminal() {
			return "", nil, nil
		}
		var a int
		if rng.Float64() < epsilon {
			legal = s.LegalActions(legal)
			a = legal[rng.IntN(len(legal))]
		} else {
			var err error
			if a, err = ps[ply%2].ChooseAction(ctx, s.Clone()); err != nil {
				return "", nil, err
			}
		}
		if err := games.Play(s, a); err != nil {
			return "", nil, err
		}
		sb.WriteByte(byte('1' + a))
	}
	if s.IsTerminal() {
		return "", nil, nil
	}
	legal = s.LegalActions(legal)
	if len(legal) < 2 {
		return "", nil, nil
	}
	for _, a := range legal {
		c := s.Clone()
		c.ApplyAction(a)
		if c.IsTerminal() && c.Returns()[s.CurrentPlayer()] > 0 {
			return "", nil, nil
		}
	}
	return sb.String(), s, nil
}

// key identifies a position up to the left-right mirror.
func key(s *connect4.State) [2]uint64 {
	m := connect4.Game{}.TransformState(1, s).(*connect4.State)
	a, b := s.Hash(), m.Hash()
	if b < a {
		a, b = b, a
	}
	return [2]uint64{a, b}
}

// ponsKeys returns the keys of every position of Pons' sets in dir.
func ponsKeys(dir string) (map[[2]uint64]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "Test_L*"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("-pons %s: no Pons sets (Test_L*) there", dir)
	}
	keys := map[[2]uint64]bool{}
	for _, f := range files {
		ps, err := c4solver.ReadSetFile(f)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			keys[key(p.State)] = true
		}
	}
	return keys, nil
}
