// Command othellosets makes the Othello ground-truth position sets of
// data/othello: positions from seeded games between varied players,
// bucketed by the number of empty squares, every legal move labelled with
// its exact final disc margin by the endgame solver (search/othelloend).
// The same flags give the same files.
//
//	go run ./scripts/othellosets -game othello:size=6 -buckets 8-12:500,13-16:500 -seed 1 -out data/othello
//
// It writes OUT/<prefix>-eAA-BB.txt per bucket (prefix: othello6 or
// othello8) and prints, per bucket, the positions and the solver's time.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"tabula/bench"
	"tabula/games"
	"tabula/games/othello"
	"tabula/internal/atomicfile"
	"tabula/players"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "othellosets:", err)
		}
		os.Exit(2)
	}
}

// DefaultPlayers is the mix of players the games are played by.
const DefaultPlayers = "random greedy alphabeta:depth=1 alphabeta:depth=2 alphabeta:depth=3 alphabeta:depth=4"

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("othellosets", flag.ContinueOnError)
	fs.SetOutput(stderr)
	gameSpec := fs.String("game", "othello:size=6", "othello:size=6 or othello (8x8)")
	buckets := fs.String("buckets", "8-12:300,13-16:300", "buckets of empty squares with their counts, A-B:N,...")
	seed := fs.Uint64("seed", 1, "seed of the games")
	playerList := fs.String("players", DefaultPlayers, "player specs the games are played by (each side drawn at random)")
	opening := fs.Int("opening", 6, "each game opens with 0..N random moves")
	epsilon := fs.Float64("epsilon", 0.1, "chance of a random move at each later ply")
	workers := fs.Int("workers", 1, "solver goroutines")
	tt := fs.Int("tt", 20, "log2 of each solver's table entries")
	out := fs.String("out", "data/othello", "folder of the files")
	prefix := fs.String("prefix", "", "file name prefix (default othello6 or othello8)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	critical := fs.Bool("critical", false, "keep only positions where some legal move is a mistake (labels several times as many)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	gg, err := games.New(*gameSpec)
	if err != nil {
		return err
	}
	g, ok := gg.(*othello.Game)
	if !ok {
		return fmt.Errorf("game %s: want othello", gg.Name())
	}
	bs, err := parseBuckets(*buckets)
	if err != nil {
		return fmt.Errorf("-buckets: %w", err)
	}
	specs, err := players.ParseSpecs(*playerList)
	if err != nil {
		return fmt.Errorf("-players: %w", err)
	}
	cfg := bench.OthelloSetsConfig{
		Game: g, Buckets: bs, Seed: *seed, OpeningPlies: *opening, Epsilon: *epsilon,
		TTBits: *tt, Workers: *workers, Critical: *critical,
	}
	for _, s := range specs {
		cfg.Players = append(cfg.Players, s.String())
	}
	last := time.Now()
	cfg.Progress = func(done, total int) {
		if !*quiet && (time.Since(last) > 5*time.Second || done == total) {
			last = time.Now()
			fmt.Fprintf(stderr, "labelled %d/%d\n", done, total)
		}
	}
	if *prefix == "" {
		*prefix = "othello" + strconv.Itoa(g.Size())
	}
	start := time.Now()
	sets, stats, err := bench.GenerateOthelloSets(ctx, cfg)
	if err != nil {
		return err
	}
	command := "go run ./scripts/othellosets " + strings.Join(args, " ")
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d games, %s in all\n", g.Name(), stats.Games, time.Since(start).Round(time.Second))
	for i, s := range sets {
		s.Header = []string{
			"made by: " + command,
			fmt.Sprintf("players: %s; opening 0..%d random moves, then a random move with probability %g", strings.Join(cfg.Players, " "), *opening, *epsilon),
		}
		if *critical {
			s.Header = append(s.Header, "critical: only positions where some legal move is a mistake (a worse win/draw/loss result than the best)")
		}
		s.Header = append(s.Header,
			"line: <moves from the start> then MOVE:SCORE for every legal move, SCORE the exact final disc margin for the side to move after MOVE (empties to the winner)")
		path := filepath.Join(*out, fmt.Sprintf("%s-e%02d-%02d.txt", *prefix, s.MinEmpties, s.MaxEmpties))
		data := bench.WriteOthelloSet(s)
		if err := atomicfile.Write(path, data); err != nil {
			return err
		}
		n := len(s.Positions)
		fmt.Fprintf(stdout, "%s: %d positions, %d bytes; solver %.1f ms a position (CPU %.1f ms), %.0f knodes a position\n",
			path, n, len(data), stats.SolveTime[i].Seconds()*1000/float64(n), stats.SolveCPU[i].Seconds()*1000/float64(n), float64(stats.Nodes[i])/1000/float64(n))
	}
	return nil
}

// parseBuckets reads "A-B:N,..." (N defaults to 300).
func parseBuckets(text string) ([]bench.OthelloBucket, error) {
	var out []bench.OthelloBucket
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		rng, cnt, hasCount := strings.Cut(part, ":")
		b := bench.OthelloBucket{Count: 300}
		a, z, ok := strings.Cut(rng, "-")
		var err1, err2 error
		b.MinEmpties, err1 = strconv.Atoi(a)
		b.MaxEmpties, err2 = strconv.Atoi(z)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bucket %q: want A-B or A-B:N", part)
		}
		if hasCount {
			n, err := strconv.Atoi(cnt)
			if err != nil {
				return nil, fmt.Errorf("bucket %q: count %q is not a number", part, cnt)
			}
			b.Count = n
		}
		out = append(out, b)
	}
	return out, nil
}
