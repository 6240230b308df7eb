package watch

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"tabula/internal/httpguard"
)

//go:embed assets
var assets embed.FS

// Config sets up a watch server.
type Config struct {
	// Run is the run folder (holding metrics.jsonl, replay/ and, with
	// selfplay.records, records/).
	Run string
	// Addr is the address to listen on; loopback unless told otherwise.
	Addr string
	// Games is the number of recent self-play games offered for replay.
	Games int
	// Refresh is how often the page polls for new data.
	Refresh time.Duration
	// AllowHosts are host names a request's Host may name besides the
	// loopback names and Addr's host (the name a reverse proxy forwards).
	AllowHosts []string
}

// DefaultConfig listens on 127.0.0.1:8081 and offers 8 games, refreshed
// every 5 s.
func DefaultConfig() Config {
	return Config{Addr: "127.0.0.1:8081", Games: 8, Refresh: 5 * time.Second}
}

// Validate names the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Run == "":
		return errors.New("watch: run folder not set")
	case c.Games < 1 || c.Games > maxGames:
		return fmt.Errorf("watch: games = %d, want 1..%d", c.Games, maxGames)
	case c.Refresh < 100*time.Millisecond || c.Refresh > time.Hour:
		return fmt.Errorf("watch: refresh = %v, want 100ms..1h", c.Refresh)
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("watch: addr %q: %w", c.Addr, err)
	}
	if _, err := httpguard.New(c.Addr, c.AllowHosts); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}

const maxGames = 64

// Server serves the watch page of one run folder.
type Server struct {
	cfg   Config
	log   *slog.Logger
	guard *httpguard.Guard

	mu       sync.Mutex // guards cache and recCache
	cache    ChunkCache
	recCache RecordCache
}

// New checks cfg and that the run folder exists.
func New(cfg Config, log *slog.Logger) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	fi, err := os.Stat(cfg.Run)
	if err != nil {
		return nil, fmt.Errorf("watch: run folder: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("watch: run folder %s is not a folder", cfg.Run)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	guard, err := httpguard.New(cfg.Addr, cfg.AllowHosts)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	return &Server{cfg: cfg, log: log, guard: guard}, nil
}

// Handler returns the page, its assets and the JSON endpoints, for requests
// that name this server in Host and come from no other origin (package
// httpguard; 403 otherwise); it serves only GET and HEAD, and reads nothing
// but the run folder's metrics.jsonl, records/, replay/ and gating/ (no path
// comes from the request):
//
//	GET /                 the page
//	GET /assets/...       its script and style
//	GET /api/plots        {"run", "iterations", "updated", "refresh_ms", "plots": [Plot...], "last": metrics.Record,
//	                       "run_seconds" (the run's time at the last line)}
//	GET /api/games?n=N    {"games": [Game...] (self-play, newest first), "source": "records" (from records/, as
//	                       played) or "rebuilt" (from replay/ chunks, for runs without records), "skipped":
//	                       damaged records files and games passed over, "unlinked": positions not linked to a
//	                       rebuilt game, "gating": [Game...] (the newest iteration's gating games)}
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded folder is part of the binary
	}
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		b, err := assets.ReadFile("assets/index.html")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	})
	mux.HandleFunc("GET /api/plots", s.plots)
	mux.HandleFunc("GET /api/games", s.games)
	return securityHeaders(s.guard.Wrap(mux))
}

// securityHeaders forbids loading anything from other hosts and framing the
// page in theirs.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func (s *Server) plots(w http.ResponseWriter, r *http.Request) {
	path := filepath.Join(s.cfg.Run, "metrics.jsonl")
	recs, err := ReadMetrics(path)
	var updated string
	switch {
	case errors.Is(err, os.ErrNotExist):
		recs, err = nil, nil // no iteration finished yet
	case err != nil:
		s.log.Warn("watch: metrics", "err", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if fi, err := os.Stat(path); err == nil {
		updated = fi.ModTime().UTC().Format(time.RFC3339)
	}
	resp := map[string]any{
		"run": s.cfg.Run, "iterations": Iterations(recs), "updated": updated,
		"refresh_ms": s.cfg.Refresh.Milliseconds(), "plots": Plots(recs),
	}
	if len(recs) > 0 {
		resp["last"] = recs[len(recs)-1]
		resp["run_seconds"] = RunSeconds(recs)[len(recs)-1]
	}
	writeJSON(w, resp)
}

func (s *Server) games(w http.ResponseWriter, r *http.Request) {
	n := s.cfg.Games
	if q := r.URL.Query().Get("n"); q != "" {
		v, err := strconv.Atoi(q)
		if err != nil || v < 1 || v > maxGames {
			http.Error(w, fmt.Sprintf("n = %q, want 1..%d", q, maxGames), http.StatusBadRequest)
			return
		}
		n = v
	}
	// The run's game records when it keeps them; otherwise games rebuilt
	// from its replay chunks.
	s.mu.Lock()
	gs, skipped, err := RecordGames(filepath.Join(s.cfg.Run, "records"), n, &s.recCache, s.log)
	s.mu.Unlock()
	if err != nil {
		s.log.Warn("watch: records", "err", err)
	}
	source, unlinked := "records", 0
	dir := filepath.Join(s.cfg.Run, "replay")
	if len(gs) == 0 {
		source, err = "rebuilt", nil
		if _, serr := os.Stat(dir); serr == nil {
			s.mu.Lock()
			gs, unlinked, err = RecentGames(dir, n, &s.cache)
			s.mu.Unlock()
		}
	}
	if err != nil {
		s.log.Warn("watch: games", "err", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if gs == nil {
		gs = []Game{}
	}
	gating, err := GatingGames(filepath.Join(s.cfg.Run, "gating"), n)
	if err != nil {
		s.log.Warn("watch: gating games", "err", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if gating == nil {
		gating = []Game{}
	}
	writeJSON(w, map[string]any{"games": gs[:min(n, len(gs))], "source": source, "skipped": skipped, "unlinked": unlinked, "gating": gating})
}

// httpServer is the http.Server of Run: bounded headers, and timeouts on
// reading a request and writing a reply.
func (s *Server) httpServer() *http.Server {
	return httpguard.Server(s.Handler(), httpguard.DefaultTimeouts(30*time.Second))
}

// Run listens on cfg.Addr and serves until ctx is done. ready, if not nil,
// gets the address actually bound (useful with port 0).
func (s *Server) Run(ctx context.Context, ready func(addr string)) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	srv := s.httpServer()
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("watch: %w", err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		<-errc
		return nil
	}
}
