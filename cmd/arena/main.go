// Command arena plays matches between players with Elo ratings, benchmarks a
// player's mistake rate on Connect Four positions against the exact solver,
// and runs the solver as a tool.
//
//	arena match -game G -players "SPEC SPEC ..." -games N [-parallel P] [-seed S] [-out FILE] [-anchor I]
//	arena bench -game connect4 -player SPEC -positions FILE [-out FILE]
//	arena solve -game connect4 [-positions FILE] [-all]
//
// A player spec is kind or kind:key=value,...; "arena help" lists the kinds.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"tabula/arena"
	"tabula/elo"
	"tabula/games"
	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	_ "tabula/games/othello"
	"tabula/search/c4solver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "arena:", err)
		}
		os.Exit(2)
	}
}

const usage = `usage:
  arena match -game G -players "SPEC SPEC ..." -games N [-parallel P] [-seed S] [-out FILE] [-anchor I] [-random-plies K]
  arena bench -game connect4 -player SPEC -positions FILE [-out FILE] [-seed S]
  arena solve -game connect4 [-positions FILE] [-all]
`

// run is the whole command; main only wires the process to it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no subcommand (match, bench, solve)")
	}
	switch args[0] {
	case "match":
		return runMatch(ctx, args[1:], stdout, stderr)
	case "bench":
		return runBench(ctx, args[1:], stdout, stderr)
	case "solve":
		return runSolve(ctx, args[1:], stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage, "\n", arena.SpecHelp(), "\ngames:\n", games.Describe())
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown subcommand %q; valid: match, bench, solve, help", args[0])
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("arena "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

func newBar(total int, desc string, stderr io.Writer, quiet bool) *progressbar.ProgressBar {
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetVisibility(!quiet),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

// jsonLines writes values as JSON lines to a file created at path.
type jsonLines struct {
	f   *os.File
	enc *json.Encoder
}

func createJSONLines(path string) (*jsonLines, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	return &jsonLines{f: f, enc: json.NewEncoder(f)}, nil
}

func (j *jsonLines) write(v any) error {
	if j == nil {
		return nil
	}
	return j.enc.Encode(v)
}

func (j *jsonLines) close() error {
	if j == nil {
		return nil
	}
	if err := j.f.Close(); err != nil {
		return fmt.Errorf("output %s: %w", j.f.Name(), err)
	}
	return nil
}

func runMatch(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("match", stderr)
	gameSpec := fs.String("game", "", "game spec, e.g. connect4 or othello:size=6")
	playerList := fs.String("players", "", "player specs separated by spaces (quote the list) or commas before a kind")
	n := fs.Int("games", 10, "games per pair of players")
	parallel := fs.Int("parallel", 0, "games played at once (0: one per core)")
	seed := fs.Uint64("seed", 1, "seed of the match")
	out := fs.String("out", "", "write every game as a JSON line to this file")
	anchor := fs.Int("anchor", 0, "index of the player whose Elo is fixed at 0")
	randomPlies := fs.Int("random-plies", 0, "opening plies played at random before the players take over")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *gameSpec == "" {
		return fmt.Errorf("match: -game is required; valid games: %s", strings.Join(games.Names(), ", "))
	}
	g, err := games.New(*gameSpec)
	if err != nil {
		return fmt.Errorf("match: %w", err)
	}
	specs, err := arena.ParseSpecs(*playerList)
	if err != nil {
		return fmt.Errorf("match: -players: %w", err)
	}
	if len(specs) < 2 {
		return fmt.Errorf("match: -players %q names %d player, want at least 2", *playerList, len(specs))
	}
	if *anchor < 0 || *anchor >= len(specs) {
		return fmt.Errorf("match: -anchor %d outside [0, %d)", *anchor, len(specs))
	}
	players, err := arena.BuildAll(g, specs)
	if err != nil {
		return fmt.Errorf("match: %w", err)
	}
	defer func() {
		for _, p := range players {
			if cerr := p.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}
	}()
	var jl *jsonLines
	if *out != "" {
		if jl, err = createJSONLines(*out); err != nil {
			return fmt.Errorf("match: %w", err)
		}
	}
	pairs := len(players) * (len(players) - 1) / 2
	bar := newBar(pairs**n, "games", stderr, *quiet)
	cfg := arena.MatchConfig{
		Games: *n, Parallel: *parallel, Seed: *seed, RandomPlies: *randomPlies,
		Record:   func(r arena.GameRecord) error { return jl.write(r) },
		Progress: func(done, total int) { _ = bar.Set(done) },
	}
	res, err := arena.Match(ctx, cfg, g, players)
	_ = bar.Finish()
	if cerr := jl.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("match: %w", err)
	}
	ecfg := elo.DefaultConfig()
	ecfg.Anchor = *anchor
	ratings, err := res.Ratings(ecfg)
	if err != nil {
		return fmt.Errorf("match: ratings: %w", err)
	}
	printMatch(stdout, g, res, ratings, *anchor)
	return nil
}

// printMatch writes the win/draw/loss table and the ratings.
func printMatch(w io.Writer, g games.Game, res *arena.MatchResult, r elo.Ratings, anchor int) {
	width := 6
	for _, p := range res.Players {
		width = max(width, len(p))
	}
	fmt.Fprintf(w, "%s: wins-draws-losses of the row player against the column player\n", g.Name())
	fmt.Fprintf(w, "%-*s", width+4, "")
	for i := range res.Players {
		fmt.Fprintf(w, " %12s", fmt.Sprintf("[%d]", i))
	}
	fmt.Fprintf(w, " %14s\n", "total")
	for i, p := range res.Players {
		fmt.Fprintf(w, "[%d] %-*s", i, width, p)
		for j := range res.Players {
			if i == j {
				fmt.Fprintf(w, " %12s", "-")
				continue
			}
			x := res.WDL[i][j]
			fmt.Fprintf(w, " %12s", fmt.Sprintf("%d-%d-%d", x.Wins, x.Draws, x.Losses))
		}
		t := res.Total(i)
		fmt.Fprintf(w, " %14s\n", fmt.Sprintf("%d-%d-%d", t.Wins, t.Draws, t.Losses))
	}
	fmt.Fprintf(w, "\nElo (anchor [%d] = 0; 95%% interval):\n", anchor)
	for i, p := range res.Players {
		t := res.Total(i)
		note := ""
		if r.Extreme[i] && i != anchor {
			note = "  (all wins or all losses: bounded by the prior)"
		}
		fmt.Fprintf(w, "[%d] %-*s %7.0f  [%6.0f, %6.0f]  score %5.1f%%%s\n", i, width, p, r.Elo[i], r.Low[i], r.High[i], 100*t.Score(), note)
	}
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("bench", stderr)
	gameSpec := fs.String("game", "connect4", "game (connect4 only)")
	playerSpec := fs.String("player", "", "player spec")
	posPath := fs.String("positions", "", "Pons-format positions file")
	out := fs.String("out", "", "write one JSON line per position to this file")
	seed := fs.Uint64("seed", 1, "seed of the player")
	ttBits := fs.Int("solver-tt", c4solver.DefaultTableLog2, "log2 of the reference solver's table entries")
	exact := fs.Bool("scores", false, "also write the exact score of every column (slow on early positions)")
	first := fs.Int("n", 0, "use only the first N positions of the file (0: all)")
	cache := fs.String("verdicts", "", "JSON file caching the solver's verdicts for these positions (read if it holds them, written if it is missing; its folder must exist)")
	force := fs.Bool("force", false, "with -verdicts: replace a file that holds anything but verdicts of these positions")
	known := fs.String("known-verdicts", "data/connect4/verdicts", "with -verdicts: folder of shipped verdicts, DIR/<positions file name>.json, used instead of solving when they cover these positions")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	g, err := games.New(*gameSpec)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if g.Name() != "connect4" {
		return fmt.Errorf("bench: game %s: bench needs connect4 (the solver decides mistakes)", g.Name())
	}
	if *posPath == "" {
		return errors.New("bench: -positions FILE is required")
	}
	spec, err := arena.ParseSpec(*playerSpec)
	if err != nil {
		return fmt.Errorf("bench: -player: %w", err)
	}
	f, err := os.Open(*posPath)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	positions, err := arena.ReadPositions(f, *posPath)
	f.Close()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if *first < 0 {
		return fmt.Errorf("bench: -n %d, want >= 0", *first)
	}
	if *first > 0 && len(positions) > *first {
		positions = positions[:*first]
	}
	var verdicts *arena.Verdicts
	if *cache != "" {
		vbar := newBar(len(positions), "solving", stderr, *quiet)
		var shipped []string
		if *known != "" {
			shipped = append(shipped, filepath.Join(*known, filepath.Base(*posPath)+".json"))
		}
		verdicts, err = arena.LoadOrSolveVerdicts(ctx, *cache, positions, *ttBits, *force, func(done, total int) { _ = vbar.Set(done) }, shipped...)
		_ = vbar.Finish()
		if errors.Is(err, arena.ErrOtherVerdicts) {
			return fmt.Errorf("bench: %w; give another -verdicts file name, or -force to replace it", err)
		}
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	player, err := arena.Build(g, spec)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer func() {
		if cerr := player.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	var jl *jsonLines
	if *out != "" {
		if jl, err = createJSONLines(*out); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	bar := newBar(len(positions), "positions", stderr, *quiet)
	cfg := arena.BenchConfig{
		SolverTableLog2: *ttBits, Seed: *seed, ExactScores: *exact, Verdicts: verdicts,
		Record:   func(r arena.BenchRecord) error { return jl.write(r) },
		Progress: func(done, total int) { _ = bar.Set(done) },
	}
	res, err := arena.Bench(ctx, cfg, player, positions)
	_ = bar.Finish()
	if cerr := jl.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintf(stdout, "%s on %s: %d positions, %d mistakes (%.1f%%), %.3f ms per move\n",
		player.Name, *posPath, res.Positions, res.Mistakes, 100*res.MistakeRate(), float64(res.TimePerMove().Microseconds())/1000)
	return nil
}

func runSolve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("solve", stderr)
	gameSpec := fs.String("game", "connect4", "game (connect4 only)")
	posPath := fs.String("positions", "", "Pons-format positions file (default: standard input)")
	all := fs.Bool("all", false, "print the score of every column (-1000: full)")
	ttBits := fs.Int("tt", c4solver.DefaultTableLog2, "log2 of the solver's table entries")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	g, err := games.New(*gameSpec)
	if err != nil {
		return fmt.Errorf("solve: %w", err)
	}
	if g.Name() != "connect4" {
		return fmt.Errorf("solve: game %s: the solver plays connect4 only", g.Name())
	}
	sv, err := c4solver.New(*ttBits)
	if err != nil {
		return fmt.Errorf("solve: %w", err)
	}
	in, name := stdin, "stdin"
	if *posPath != "" {
		f, err := os.Open(*posPath)
		if err != nil {
			return fmt.Errorf("solve: %w", err)
		}
		defer f.Close()
		in, name = f, *posPath
	}
	if err := arena.Solve(ctx, in, name, stdout, *all, sv); err != nil {
		return fmt.Errorf("solve: %w", err)
	}
	return nil
}
