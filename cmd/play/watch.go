package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"tabula/internal/cliflag"
	"tabula/watch"
)

func init() {
	register(subcommand{
		name:    "watch",
		summary: "-run DIR [-addr 127.0.0.1:8081] [-allow-host NAME]   a live web page of a training run: curves and recent games",
		run:     runWatch,
	})
}

// runWatch serves the watch page of a run folder until ctx is done.
func runWatch(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	cfg := watch.DefaultConfig()
	fs := verbFlags("watch", "play watch -run DIR [-addr 127.0.0.1:8081]", "", stderr)
	fs.StringVar(&cfg.Run, "run", "", "run `folder` to watch (holding metrics.jsonl and replay/; required)")
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "`address` to listen on (loopback by default)")
	fs.IntVar(&cfg.Games, "games", cfg.Games, "recent self-play games offered for replay")
	fs.DurationVar(&cfg.Refresh, "refresh", cfg.Refresh, "how often the page polls for new data")
	allow := fs.String("allow-host", "", "more host `names`, comma-separated, that requests may name in Host (besides localhost, 127.0.0.1, [::1] and the -addr host), e.g. the name a reverse proxy forwards")
	if err := cliflag.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("watch: unexpected argument %q", fs.Arg(0))
	}
	if cfg.Run == "" {
		return errors.New("watch: -run is required")
	}
	cfg.AllowHosts = splitHosts(*allow)
	log := slog.New(slog.NewTextHandler(stderr, nil))
	s, err := watch.New(cfg, log)
	if err != nil {
		return err
	}
	if err := checkRunFolder(cfg.Run); err != nil {
		return err
	}
	return s.Run(ctx, func(addr string) {
		fmt.Fprintf(stdout, "watching %s at http://%s/ (Ctrl-C to stop)\n", cfg.Run, addr)
	})
}

// checkRunFolder refuses a folder that holds no training run: none of the
// files a run writes from its start (config.yaml, metrics.jsonl, replay/).
func checkRunFolder(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("watch: run folder: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("watch: -run %s is not a folder", dir)
	}
	for _, name := range []string{"config.yaml", "metrics.jsonl", "replay"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("watch: %s holds no training run (no config.yaml, metrics.jsonl or replay/): give the run_dir a training run writes to", dir)
}
