package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"tabula/internal/cliflag"
	"tabula/internal/httpguard"
	"tabula/web/server"
)

func init() {
	register(subcommand{
		name:    "web",
		summary: "[-addr 127.0.0.1:8080] [-runs DIR] [-allow-host NAME]   a web page to play on",
		run:     runWeb,
	})
}

// runWeb serves the page until ctx ends (Ctrl-C).
func runWeb(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	def := server.DefaultConfig()
	fs := verbFlags("web", "play web [-addr 127.0.0.1:8080] [-runs DIR] [-allow-host NAME,...]", "", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "`address` to listen on (loopback unless you say otherwise)")
	runs := fs.String("runs", "runs", "`folder` whose checkpoints (*.tbn) the page offers; net paths are relative to it")
	moveTime := fs.Duration("movetime", def.MoveTime, "cap on one engine search")
	searches := fs.Int("searches", def.MaxSearches, "engine searches that may run at once")
	engines := fs.Int("engines", def.Engines, "loaded players (networks) kept between requests")
	allow := fs.String("allow-host", "", "more host `names`, comma-separated, that requests may name in Host (besides localhost, 127.0.0.1, [::1] and the -addr host), e.g. the name a reverse proxy forwards")
	if err := cliflag.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("web: unexpected argument %q", fs.Arg(0))
	}
	cfg := def
	runsGiven := false
	fs.Visit(func(f *flag.Flag) { runsGiven = runsGiven || f.Name == "runs" })
	if _, err := os.Stat(*runs); err != nil && !runsGiven {
		fmt.Fprintf(stderr, "play web: no %s folder here, so no checkpoints to offer (-runs DIR names one)\n", *runs)
		*runs = ""
	}
	cfg.Runs, cfg.MoveTime, cfg.MaxSearches, cfg.Engines = *runs, *moveTime, *searches, *engines
	cfg.AllowHosts = splitHosts(*allow)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("web: %w", err)
	}
	cfg.Addr = ln.Addr().String()
	log := slog.New(slog.NewTextHandler(stderr, nil))
	srv, err := server.New(cfg, log)
	if err != nil {
		ln.Close()
		return fmt.Errorf("web: %w", err)
	}
	defer srv.Close()
	hs := webHTTPServer(srv, cfg)
	fmt.Fprintf(stdout, "play web: serving http://%s/ (checkpoints from %s); Ctrl-C stops\n", ln.Addr(), cfg.Runs)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("web: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("web: shutting down: %w", err)
	}
	return nil
}

// webHTTPServer is the http.Server of play web: bounded headers, and
// timeouts on reading a request and on writing a reply (a search's MoveTime
// and some).
func webHTTPServer(h http.Handler, cfg server.Config) *http.Server {
	return httpguard.Server(h, httpguard.DefaultTimeouts(cfg.MoveTime+30*time.Second))
}

// splitHosts reads a comma-separated list of host names.
func splitHosts(list string) []string {
	var out []string
	for _, h := range strings.Split(list, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}
