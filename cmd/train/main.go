// Command train runs a whole training run from a YAML config: self-play,
// training, gating, ladder and benchmark, resuming where a previous run in
// the same folder stopped.
//
//	go run ./cmd/train -config configs/connect4.yaml [-set key.path=value ...] [-run DIR]
//	    [-listen HOST:PORT [-token T] | -nats URL]
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
	"strings"
	"syscall"

	_ "tabula/games/all"
	"tabula/internal/cliflag"
	"tabula/pipeline"
)

// setFlags collects repeated -set flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, " ") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	os.Exit(exitCode(run(os.Args[1:], os.Stderr), os.Stderr))
}

// exitCode reports err and returns the exit status: 0 for success and for
// -h (usage was printed), 1 otherwise.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "train:", err)
	return 1
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "configs/connect4.yaml", "YAML config of the run")
	runDir := fs.String("run", "", "run folder (overrides run_dir in the config)")
	quiet := fs.Bool("quiet", false, "no progress bars")
	showVersion := versionFlag(fs)
	verbose := fs.Bool("v", false, "debug logging")
	listen := fs.String("listen", "", "address of the embedded NATS server, e.g. 0.0.0.0:4222 for workers on other machines (default: loopback only)")
	token := fs.String("token", os.Getenv("TABULA_BUS_TOKEN"), "token that bus clients must present; required with -listen beyond loopback (default $TABULA_BUS_TOKEN)")
	natsURL := fs.String("nats", "", "use this NATS server (JetStream enabled) instead of the embedded one, e.g. nats://nats.example:4222")
	var sets setFlags
	fs.Var(&sets, "set", "override a config value, key.path=value (repeatable), e.g. -set selfplay.search.simulations=200")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: train -config FILE [-run DIR] [-set key.path=value ...] [-quiet] [-v]
             [-listen HOST:PORT [-token T] | -nats URL]

Runs a whole training run (self-play, training, gating, ladder, benchmark) from
a YAML config; run it again on the same folder to resume. The config must name
its game; every other key has a default (see configs/ and pipeline/config.go).
It stops at iterations or after duration (counted per process), whichever comes
first; with neither it runs until Ctrl-C.

Finished games travel over NATS JetStream: the process embeds a server (storage
in the run folder, loopback only) unless -nats names another. With -listen
0.0.0.0:4222 -token T, other machines join with
  selfplay -connect nats://THIS-HOST:4222 -token T [-bus-run NAME]

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
	if *runDir != "" {
		sets = append(sets, "run_dir="+*runDir)
	}
	cfg, err := pipeline.Load(*config, sets)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	opt := pipeline.Options{Log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
		Bus: pipeline.BusOptions{Listen: *listen, Token: *token, URL: *natsURL}}
	if !*quiet {
		opt.Progress = stderr
	}
	for _, w := range cfg.Warnings {
		opt.Log.Warn("config " + *config + ": " + w)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t, err := pipeline.New(cfg, opt)
	if err != nil {
		return err
	}
	runErr := t.Run(ctx)
	fmt.Fprint(stderr, t.Summary())
	if err := t.Close(); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}
