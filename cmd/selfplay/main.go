// Command selfplay is an extra self-play worker for a running training run:
// it plays games with the run's best network and writes them into the run's
// replay folder, where the training process picks them up.
//
//	go run ./cmd/selfplay -run runs/connect4 [-games N] [-workers W] [-id NAME]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"tabula/pipeline"

	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	_ "tabula/games/othello"
)

func main() {
	os.Exit(exitCode(run(os.Args[1:], os.Stderr), os.Stderr))
}

// exitCode reports err and returns the exit status: 0 for success and for
// -h (usage was printed), 1 otherwise.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "selfplay:", err)
	return 1
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("selfplay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runDir := fs.String("run", "", "run folder of a training run (required)")
	games := fs.Int("games", 0, "stop after this many games (0: until interrupted)")
	workers := fs.Int("workers", 0, "self-play goroutines (0: the run's selfplay.workers)")
	id := fs.String("id", "", "unique name of this worker in the run (default: host-pid)")
	seed := fs.Uint64("seed", 0, "seed of this worker's games (default: from the pid)")
	quiet := fs.Bool("quiet", false, "no progress display")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: selfplay -run DIR [-games N] [-workers W] [-id NAME] [-seed S] [-quiet]

An extra self-play process for a training run: it plays games with the run's
best network (config and network from the run folder, which the training
process must have created) and writes them to the run's replay folder.

flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (flags go before them; see -h)", fs.Args())
	}
	if *runDir == "" {
		return errors.New("-run DIR is required (the folder of a training run)")
	}
	if *games < 0 || *workers < 0 {
		return fmt.Errorf("-games and -workers must be >= 0")
	}
	if *id == "" {
		host, _ := os.Hostname()
		*id = "w-" + sanitize(host) + "-" + strconv.Itoa(os.Getpid())
	}
	if *seed == 0 {
		*seed = uint64(os.Getpid())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opt := pipeline.Options{Log: slog.New(slog.NewTextHandler(stderr, nil))}
	if !*quiet {
		opt.Progress = stderr
	}
	return pipeline.RunWorker(ctx, *runDir, pipeline.WorkerOptions{
		Options: opt, ID: *id, Workers: *workers, Games: *games, Seed: *seed,
	})
}

// sanitize keeps letters, digits, '-' and '_'.
func sanitize(s string) string {
	out := []rune{}
	for _, r := range s {
		if r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			out = append(out, r)
		}
	}
	return string(out)
}
