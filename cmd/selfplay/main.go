// Command selfplay is an extra self-play worker for a training run: it
// plays games with the run's best network and hands them to the training
// process, over the bus from any machine (-connect), or through the run
// folder on the trainer's machine (-run).
//
//	go run ./cmd/selfplay -connect nats://HOST:4222 [-token T] [-bus-run NAME] [-games N] [-workers W] [-id NAME]
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
	"strings"
	"syscall"

	_ "tabula/games/all"
	"tabula/internal/cliflag"
	"tabula/pipeline"
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
	runDir := fs.String("run", "", "run folder of a training run on this machine (games go into its replay folder)")
	connect := fs.String("connect", "", "join a run over the bus: the trainer's NATS server, e.g. nats://trainer-host:4222")
	natsURL := fs.String("nats", "", "the same as -connect, for a run whose trainer uses an existing NATS server (train -nats)")
	token := fs.String("token", os.Getenv("TABULA_BUS_TOKEN"), "token the NATS server requires (default $TABULA_BUS_TOKEN)")
	busRun := fs.String("bus-run", "tabula", "the run's name on the NATS server (the trainer's bus.run)")
	verbose := fs.Bool("v", false, "debug logging (every game published, with its id)")
	games := fs.Int("games", 0, "stop after this many games (0: until interrupted)")
	workers := fs.Int("workers", 0, "self-play goroutines (0: the run's selfplay.workers)")
	id := fs.String("id", "", "unique name of this worker in the run (default: host-pid)")
	seed := fs.Uint64("seed", 0, "seed of this worker's games (default: from the pid)")
	quiet := fs.Bool("quiet", false, "no progress display")
	showVersion := versionFlag(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: selfplay -connect nats://HOST:4222 [-token T] [-bus-run NAME] [-games N] [-workers W] [-id NAME] [-seed S] [-quiet] [-v]
       selfplay -run DIR [-games N] [-workers W] [-id NAME] [-seed S] [-quiet]

An extra self-play process for a training run: it plays games with the run's
best network and hands them to the training process.

With -connect (or -nats) it joins over NATS from any machine: the config and
the best network come from the bus, every finished game is published there
tagged with the worker's name (-id), and a newer best is taken up as soon as
the trainer promotes one. It waits for a trainer that is not up yet and rides
out its restarts. The trainer must listen beyond loopback for other machines
(train -listen 0.0.0.0:4222 -token T).

With -run it works on the trainer's machine through the run folder: config
and network from there (the training process must have created them), games
written into its replay folder.

flags:
`)
		fs.PrintDefaults()
	}
	if err := cliflag.Parse(fs, args); err != nil {
		return err
	}
	if showVersion() {
		return nil
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (flags go before them; see -h)", fs.Args())
	}
	if *connect != "" && *natsURL != "" {
		return errors.New("-connect and -nats both given: they mean the same, give one")
	}
	if *natsURL != "" {
		*connect = *natsURL
	}
	if *runDir == "" && *connect == "" {
		return errors.New("-connect nats://HOST:PORT (a run's NATS server) or -run DIR (a run folder on this machine) is required")
	}
	if *runDir != "" && *connect != "" {
		return errors.New("-run and -connect both given: choose the run folder (this machine) or the bus (any machine)")
	}
	if *connect != "" && !strings.Contains(*connect, "://") {
		return fmt.Errorf("-connect %q: want a URL such as nats://trainer-host:4222", *connect)
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
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	opt := pipeline.Options{Log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))}
	if !*quiet {
		opt.Progress = stderr
	}
	wo := pipeline.WorkerOptions{Options: opt, ID: *id, Workers: *workers, Games: *games, Seed: *seed}
	if *connect != "" {
		return pipeline.RunRemoteWorker(ctx, pipeline.RemoteOptions{WorkerOptions: wo, URL: *connect, Token: *token, Run: *busRun})
	}
	return pipeline.RunWorker(ctx, *runDir, wo)
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
