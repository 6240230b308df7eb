// Package server is the HTTP side of play's web page: it serves the embedded
// page (web.Assets) and a small JSON API over any player spec that arena
// knows.
//
//	GET  /api/games                the games the page offers, with their layouts
//	GET  /api/players?game=SPEC    opponents for a game: built-in players and the
//	                               checkpoints of that game under the runs folder
//	POST /api/state  {game, moves}           the position after moves (validated)
//	POST /api/player {game, player}          checks that the player can play the
//	                                         game here (loads it), before a game
//	POST /api/move   {game, player, moves}   the engine's move there, its move
//	                                         probabilities and value
//
// The server keeps no game state: each request carries the whole move list,
// which is replayed through the checked path, so a bad game, move or spec is
// an HTTP 400 with a message. Bodies are size-limited (413 beyond), engine
// searches run one per request under a deadline, and at most MaxSearches run
// at a time (503 when the server stays busy), so requests cannot exhaust it.
//
// Only the server's own page may use it (package httpguard): a request must
// name the server in Host (403 otherwise, against DNS rebinding), carry no
// Origin of another site (403, against cross-site requests), and a POST must
// be application/json (415). A player spec from a request must be on an
// allow-list of kinds that run inside tabula (webKinds), within bounds that
// cap one search's memory; outside engines (gtp, gnugo, grhino, pachi) and any kind
// not listed are refused with 400, and a net's checkpoint must lie inside the
// runs folder, symbolic links included.
package server

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"tabula/games"
	"tabula/internal/httpguard"
	"tabula/nn"
	"tabula/players"
	"tabula/web"
)

// Config sets the server's folders and limits.
type Config struct {
	// Runs is the folder searched for checkpoints (*.tbn); a net spec's path
	// is read relative to it and may not leave it. Empty: no net players.
	Runs string
	// MoveTime caps one engine search (the request's context deadline).
	MoveTime time.Duration
	// MaxSearches is how many engine searches may run at once.
	MaxSearches int
	// MaxBody is the largest request body accepted, in bytes.
	MaxBody int64
	// MaxCheckpoints caps how many checkpoints a listing shows.
	MaxCheckpoints int
	// Engines is how many loaded players (a network each) are kept between
	// requests.
	Engines int
	// Seed makes the engines' tie-breaking reproducible: a request's random
	// source is seeded from Seed and the request.
	Seed uint64
	// Addr is the address the server listens on (host:port), whose host a
	// request's Host may name besides the loopback names; empty: loopback
	// names only.
	Addr string
	// AllowHosts are more host names a request's Host may name (the name a
	// reverse proxy forwards, a machine's name on the network).
	AllowHosts []string
}

// DefaultConfig returns a 10 s cap per move, one search per core, 64 KiB
// bodies, 200 checkpoints and 4 loaded engines.
func DefaultConfig() Config {
	return Config{
		MoveTime:       10 * time.Second,
		MaxSearches:    runtime.GOMAXPROCS(0),
		MaxBody:        64 << 10,
		MaxCheckpoints: 200,
		Engines:        4,
		Seed:           1,
	}
}

// Validate names the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.MoveTime <= 0 || c.MoveTime > time.Hour:
		return fmt.Errorf("server: move time %v, want (0, 1h]", c.MoveTime)
	case c.MaxSearches < 1 || c.MaxSearches > 1024:
		return fmt.Errorf("server: max searches %d, want 1..1024", c.MaxSearches)
	case c.MaxBody < 1024 || c.MaxBody > 64<<20:
		return fmt.Errorf("server: max body %d, want 1 KiB..64 MiB", c.MaxBody)
	case c.MaxCheckpoints < 1 || c.MaxCheckpoints > 100000:
		return fmt.Errorf("server: max checkpoints %d, want 1..100000", c.MaxCheckpoints)
	case c.Engines < 1 || c.Engines > 64:
		return fmt.Errorf("server: engines %d, want 1..64", c.Engines)
	}
	return nil
}

// Server serves the page and its API. Close releases the loaded engines.
type Server struct {
	cfg      Config
	runs     string // absolute, "" when none
	realRuns string // runs with symbolic links resolved
	log      *slog.Logger
	sem      chan struct{}
	mux      *http.ServeMux
	guard    *httpguard.Guard

	dealer *web.Dealer // keeps the card games' deals and backgammon's dice the server's

	mu      sync.Mutex
	engines map[string]*list.Element // of *engine, most recent at the front
	lru     *list.List
	closed  bool
}

// engine is a loaded player factory shared by requests.
type engine struct {
	key     string
	f       *players.Factory
	refs    int
	evicted bool
}

// New returns a server with cfg; log may be nil.
func New(cfg Config, log *slog.Logger) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := mustBeAllowList(); err != nil {
		return nil, err
	}
	guard, err := httpguard.New(cfg.Addr, cfg.AllowHosts)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	dealer, err := web.NewDealer()
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s := &Server{cfg: cfg, log: log, sem: make(chan struct{}, cfg.MaxSearches),
		engines: map[string]*list.Element{}, lru: list.New(), guard: guard, dealer: dealer}
	if cfg.Runs != "" {
		abs, err := filepath.Abs(cfg.Runs)
		if err != nil {
			return nil, fmt.Errorf("server: runs folder %s: %w", cfg.Runs, err)
		}
		if fi, err := os.Stat(abs); err != nil {
			return nil, fmt.Errorf("server: runs folder: %w", err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("server: runs folder %s is not a folder", cfg.Runs)
		}
		s.runs = abs
		if s.realRuns, err = filepath.EvalSymlinks(abs); err != nil {
			return nil, fmt.Errorf("server: runs folder: %w", err)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.only("GET", http.FileServerFS(web.Assets).ServeHTTP))
	mux.HandleFunc("/api/games", s.only("GET", s.handleGames))
	mux.HandleFunc("/api/players", s.only("GET", s.handlePlayers))
	mux.HandleFunc("/api/state", s.only("POST", s.handleState))
	mux.HandleFunc("/api/player", s.only("POST", s.handlePlayer))
	mux.HandleFunc("/api/move", s.only("POST", s.handleMove))
	mux.HandleFunc("/api/record", s.only("POST", s.handleRecord))
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		s.reply(w, r, nil, fail(http.StatusNotFound, "no API %s; there are /api/games, /api/players, /api/state, /api/player, /api/move and /api/record", r.URL.Path))
	})
	s.mux = mux
	return s, nil
}

// only serves requests of one method and answers others with 405.
func (s *Server) only(method string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method && !(method == "GET" && r.Method == "HEAD") {
			w.Header().Set("Allow", method)
			s.reply(w, r, nil, fail(http.StatusMethodNotAllowed, "%s takes %s, not %s", r.URL.Path, method, r.Method))
			return
		}
		h(w, r)
	}
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s }

// ServeHTTP serves one request that the guard accepts (Host, Origin,
// Content-Type), with headers that keep the page from loading anything from
// other hosts or being framed by them.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	err := s.guard.Check(r)
	if err == nil && httpguard.HasBody(r) {
		err = httpguard.RequireJSON(r)
	}
	if err != nil {
		s.reply(w, r, nil, fail(err.(*httpguard.Error).Status, "%v", err))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Close releases every loaded engine not in use, and the others as their
// requests finish.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var errs []error
	for e := s.lru.Front(); e != nil; e = e.Next() {
		en := e.Value.(*engine)
		en.evicted = true
		if en.refs == 0 {
			errs = append(errs, en.f.Close())
		}
	}
	s.lru.Init()
	clear(s.engines)
	return errors.Join(errs...)
}

// httpError is an error with its HTTP status.
type httpError struct {
	status int
	err    error
}

func (e *httpError) Error() string { return e.err.Error() }

func fail(status int, format string, args ...any) error {
	return &httpError{status: status, err: fmt.Errorf(format, args...)}
}

// reply writes v as JSON, or err as a JSON {"error": message} with its
// status: 400 for a bad request, the httpError's status, 500 otherwise.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, v any, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		status := http.StatusInternalServerError
		var he *httpError
		switch {
		case errors.As(err, &he):
			status = he.status
		case web.IsBadRequest(err):
			status = http.StatusBadRequest
		}
		if status >= 500 {
			s.log.Error("request failed", "path", r.URL.Path, "status", status, "err", err)
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		return
	}
	if err := json.NewEncoder(w).Encode(v); err != nil {
		s.log.Warn("writing reply", "path", r.URL.Path, "err", err)
	}
}

// decode reads a size-limited JSON request body into req, strictly.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, req *web.Request) error {
	body := http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fail(http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", s.cfg.MaxBody)
		}
		return fail(http.StatusBadRequest, "request body: %v", err)
	}
	if dec.More() {
		return fail(http.StatusBadRequest, "request body: more than one JSON value")
	}
	return nil
}

// gameInfo is one game of the /api/games listing.
type gameInfo struct {
	web.GameChoice
	Layout web.Layout `json:"layout"`
}

func (s *Server) handleGames(w http.ResponseWriter, r *http.Request) {
	out := make([]gameInfo, 0, len(web.Choices)+len(web.CardChoices))
	for _, c := range append(slices.Clone(web.Choices), web.CardChoices...) {
		_, l, err := web.NewGame(c.Spec)
		if err != nil {
			s.reply(w, r, nil, err)
			return
		}
		out = append(out, gameInfo{GameChoice: c, Layout: l})
	}
	s.reply(w, r, out, nil)
}

// Opponent is one entry of the /api/players listing.
type Opponent struct {
	Spec  string `json:"spec"`
	Title string `json:"title"`
}

// builtins lists the classical players offered for g.
func builtins(g games.Game) []Opponent {
	if web.IsCardGame(g) {
		out := []Opponent{
			{"pimc:samples=20", "PIMC, 20 deals a move"},
			{"ismcts:iters=2000", "IS-MCTS, 2000 iterations"},
			{"random", "random cards or bets"},
		}
		if g.Name() == "whist" || strings.HasPrefix(g.Name(), "whist:") {
			out = append(out, Opponent{"cardrules", "simple rules"})
		} else {
			out = append([]Opponent{{"cfr:iters=10000", "CFR+ equilibrium, 10000 iterations"}}, out...)
		}
		return out
	}
	if g.Name() == "backgammon" || strings.HasPrefix(g.Name(), "backgammon:") { // either scoring
		return []Opponent{
			{"expectimax:depth=1,eval=pubeval,bearoff=mem", "expectimax, 1 ply, pubeval"},
			{"pubeval", "pubeval (Tesauro's linear evaluation)"},
			{"random", "random moves"},
		}
	}
	out := []Opponent{
		{"random", "random moves"},
		{"greedy", "greedy (one ply and a heuristic)"},
		{"alphabeta:depth=4", "alpha-beta, depth 4"},
	}
	if games.RulesName(g) != "chess" { // random chess rollouts run to the 50-move rule: slow and weak
		out = append(out, Opponent{"mcts:rollouts=1000", "MCTS, 1000 random rollouts"})
	}
	if g.Name() == "connect4" {
		out = append(out, Opponent{"solver", "perfect play (the solver)"})
	}
	return out
}

func (s *Server) handlePlayers(w http.ResponseWriter, r *http.Request) {
	g, _, err := web.NewGame(r.URL.Query().Get("game"))
	if err != nil {
		s.reply(w, r, nil, err)
		return
	}
	ck, err := s.checkpoints(g)
	if err != nil {
		s.reply(w, r, nil, err)
		return
	}
	s.reply(w, r, map[string][]Opponent{"checkpoints": ck, "builtin": builtins(g)}, nil)
}

// checkpoints lists the checkpoints of g under the runs folder, newest path
// last within each folder, as net specs with paths relative to the folder.
func (s *Server) checkpoints(g games.Game) ([]Opponent, error) {
	if s.runs == "" {
		return []Opponent{}, nil
	}
	out := []Opponent{}
	const maxDepth = 4
	err := filepath.WalkDir(s.runs, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder is left out of the listing
		}
		rel, rerr := filepath.Rel(s.runs, path)
		if rerr != nil {
			return nil
		}
		if d.IsDir() {
			if rel != "." && (strings.Count(rel, string(filepath.Separator)) >= maxDepth || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || filepath.Ext(path) != ".tbn" {
			return nil
		}
		game, perr := nn.PeekCheckpointGame(path)
		if perr != nil || (game != g.Name() && !sameRules(game, g)) {
			return nil
		}
		slashed := filepath.ToSlash(rel)
		out = append(out, Opponent{Spec: netSpec(slashed, 200), Title: slashed})
		if len(out) >= s.cfg.MaxCheckpoints {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing checkpoints under %s: %w", s.runs, err)
	}
	return out, nil
}

// netSpec writes a net spec for a checkpoint path, quoting the path when it
// holds characters that would end a spec value.
func netSpec(path string, sims int) string {
	if strings.ContainsAny(path, ", =\"\\:") {
		path = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(path) + `"`
	}
	return fmt.Sprintf("net:path=%s,sims=%d", path, sims)
}

func (s *Server) handleState(w http.ResponseWriter, r *http.Request) {
	var req web.Request
	if err := s.decode(w, r, &req); err != nil {
		s.reply(w, r, nil, err)
		return
	}
	if req.Player != "" {
		s.reply(w, r, nil, fail(http.StatusBadRequest, "/api/state takes no player; ask /api/move for an engine move"))
		return
	}
	if g, err := games.New(req.Game); err == nil && web.IsCardGame(g) {
		if req.Resigned != nil {
			s.reply(w, r, nil, fail(http.StatusBadRequest, "resigned: the card games are not resigned; play the deal out or deal again"))
			return
		}
		pos, err := s.dealer.State(req)
		s.reply(w, r, pos, err)
		return
	}
	var pos web.Position
	if g, err := games.New(req.Game); err == nil && web.IsDiceGame(g) {
		dg, err := s.dealer.Dice(req)
		if err != nil {
			s.reply(w, r, nil, err)
			return
		}
		if req.Resigned == nil {
			// The dice of the player to move are rolled here.
			dg.Roll()
		}
		pos = dg.Describe()
	} else {
		g, l, st, err := req.Replay()
		if err != nil {
			s.reply(w, r, nil, err)
			return
		}
		pos = web.Describe(g, l, st, req.Moves)
	}
	if err := req.Resign(&pos); err != nil {
		s.reply(w, r, nil, err)
		return
	}
	s.reply(w, r, pos, nil)
}

// handleRecord answers /api/record: the record of the game the page sent
// (its moves, a resignation, the person's seat and the engine's spec),
// replayed and checked like any other request. The file name comes from
// the game's kind, never from the request.
func (s *Server) handleRecord(w http.ResponseWriter, r *http.Request) {
	var req web.Request
	if err := s.decode(w, r, &req); err != nil {
		s.reply(w, r, nil, err)
		return
	}
	g, _, err := web.NewGame(req.Game)
	if err != nil {
		s.reply(w, r, nil, err)
		return
	}
	if web.IsCardGame(g) {
		s.reply(w, r, nil, fail(http.StatusBadRequest, "game %s: a deal's record is not offered (its cards are hidden)", g.Name()))
		return
	}
	if web.IsDiceGame(g) {
		// Its rolls must be the server's, as in play.
		if _, err := s.dealer.Dice(req); err != nil {
			s.reply(w, r, nil, err)
			return
		}
	}
	// The engine's spec goes into the record only when it is one the page
	// may play against.
	player := ""
	if strings.TrimSpace(req.Player) != "" {
		if _, err := s.parseSpec(g, req.Player); err != nil {
			s.reply(w, r, nil, err)
			return
		}
		player = strings.TrimSpace(req.Player)
	}
	rec, err := req.Record(player)
	s.reply(w, r, rec, err)
}

// parseSpec reads a player spec from a request for game g, checks it
// against the allow-list (checkAllowed), and resolves a net's path in the
// runs folder.
func (s *Server) parseSpec(g games.Game, text string) (players.Spec, error) {
	if strings.TrimSpace(text) == "" {
		return players.Spec{}, fail(http.StatusBadRequest, "no player given")
	}
	if len(text) > web.MaxSpecLen {
		return players.Spec{}, fail(http.StatusBadRequest, "player spec is %d bytes long, more than %d", len(text), web.MaxSpecLen)
	}
	spec, err := players.ParseSpec(text)
	if err != nil {
		return players.Spec{}, fail(http.StatusBadRequest, "%v", err)
	}
	if err := checkAllowed(g, spec, text); err != nil {
		return players.Spec{}, err
	}
	if spec.Kind == "net" {
		p := spec.Str("path", "")
		if s.runs == "" {
			return players.Spec{}, fail(http.StatusBadRequest, "player spec %q: this server has no runs folder, so no net players (start it with -runs DIR)", text)
		}
		local := filepath.FromSlash(p)
		if p == "" || !filepath.IsLocal(local) {
			return players.Spec{}, fail(http.StatusBadRequest, "player spec %q: path %q must be a relative path inside the runs folder", text, p)
		}
		full := filepath.Join(s.runs, local)
		if err := s.inRuns(full); err != nil {
			return players.Spec{}, fail(http.StatusBadRequest, "player spec %q: path %q %v", text, p, err)
		}
		spec.Params = slices.Clone(spec.Params)
		for i := range spec.Params {
			if spec.Params[i].Key == "path" {
				spec.Params[i].Value = full
			}
		}
	}
	return spec, nil
}

// inRuns returns an error when path does not exist or, with its symbolic
// links resolved, lies outside the runs folder. Both say the same for any
// path that cannot be resolved, so that the answer tells nothing of files
// outside the folder.
func (s *Server) inRuns(path string) error {
	notHere := errors.New("is not a file inside the runs folder (no such file, or a symbolic link out of the folder)")
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return notHere
	}
	rel, err := filepath.Rel(s.realRuns, real)
	if err != nil || !filepath.IsLocal(rel) {
		return notHere
	}
	return nil
}

// acquire returns the loaded engine for spec in g, loading it if needed.
// The caller releases it.
func (s *Server) acquire(g games.Game, spec players.Spec) (*engine, error) {
	key := g.Name() + "\x00" + spec.String()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, fail(http.StatusServiceUnavailable, "server is shutting down")
	}
	if el, ok := s.engines[key]; ok {
		en := el.Value.(*engine)
		en.refs++
		s.lru.MoveToFront(el)
		s.mu.Unlock()
		return en, nil
	}
	s.mu.Unlock()

	f, err := players.Build(g, spec)
	if err != nil {
		// Name net paths as the request did, relative to the runs folder.
		msg := err.Error()
		if s.runs != "" {
			msg = strings.ReplaceAll(msg, s.runs+string(filepath.Separator), "")
		}
		return nil, &web.BadRequestError{Err: errors.New(msg)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.engines[key]; ok || s.closed { // loaded meanwhile by another request
		_ = f.Close()
		if s.closed {
			return nil, fail(http.StatusServiceUnavailable, "server is shutting down")
		}
		en := el.Value.(*engine)
		en.refs++
		s.lru.MoveToFront(el)
		return en, nil
	}
	en := &engine{key: key, f: f, refs: 1}
	s.engines[key] = s.lru.PushFront(en)
	for s.lru.Len() > s.cfg.Engines {
		old := s.lru.Back()
		oe := old.Value.(*engine)
		s.lru.Remove(old)
		delete(s.engines, oe.key)
		oe.evicted = true
		if oe.refs == 0 {
			if err := oe.f.Close(); err != nil {
				s.log.Warn("closing engine", "engine", oe.f.Name, "err", err)
			}
		}
	}
	return en, nil
}

func (s *Server) release(en *engine) {
	s.mu.Lock()
	defer s.mu.Unlock()
	en.refs--
	if en.refs == 0 && en.evicted {
		if err := en.f.Close(); err != nil {
			s.log.Warn("closing engine", "engine", en.f.Name, "err", err)
		}
	}
}

func (s *Server) handleMove(w http.ResponseWriter, r *http.Request) {
	var req web.Request
	if err := s.decode(w, r, &req); err != nil {
		s.reply(w, r, nil, err)
		return
	}
	rep, err := s.Move(r.Context(), req)
	s.reply(w, r, rep, err)
}

// PlayerReply is the answer of /api/player: the player, as the server reads
// its spec, is ready to play the game.
type PlayerReply struct {
	Player string `json:"player"`
	Game   string `json:"game"`
}

func (s *Server) handlePlayer(w http.ResponseWriter, r *http.Request) {
	var req web.Request
	if err := s.decode(w, r, &req); err != nil {
		s.reply(w, r, nil, err)
		return
	}
	rep, err := s.CheckPlayer(r.Context(), req)
	s.reply(w, r, rep, err)
}

// CheckPlayer answers whether req's player can play req's game here: the spec
// is on the allow-list and within bounds, and the player loads (a net's
// checkpoint exists, is inside the runs folder and is of the game). The
// loaded player is kept for the moves to come. The moves, if any, are
// checked too.
func (s *Server) CheckPlayer(ctx context.Context, req web.Request) (PlayerReply, error) {
	g, _, err := web.NewGame(req.Game)
	if err != nil {
		return PlayerReply{}, err
	}
	switch {
	case web.IsDiceGame(g):
		if _, err := s.dealer.Dice(req); err != nil {
			return PlayerReply{}, err
		}
	case !web.IsCardGame(g):
		if _, _, _, err := req.Replay(); err != nil {
			return PlayerReply{}, err
		}
	}
	spec, err := s.parseSpec(g, req.Player)
	if err != nil {
		return PlayerReply{}, err
	}
	_, err = s.search(ctx, g, spec, func(ctx context.Context, en *engine) (web.Reply, error) {
		_, err := en.f.New(rand.New(rand.NewPCG(s.cfg.Seed, 0)))
		if err != nil {
			return web.Reply{}, &web.BadRequestError{Err: err}
		}
		return web.Reply{}, nil
	})
	if err != nil {
		return PlayerReply{}, err
	}
	return PlayerReply{Player: strings.TrimSpace(req.Player), Game: g.Name()}, nil
}

// Move answers one engine-move request: it replays the moves, loads (or
// reuses) the player, and runs one search under the configured deadline,
// waiting at most that long for a free search slot.
func (s *Server) Move(ctx context.Context, req web.Request) (web.Reply, error) {
	if g, err := games.New(req.Game); err == nil && web.IsCardGame(g) {
		return s.cardMove(ctx, g, req)
	}
	if req.Resigned != nil {
		return web.Reply{}, fail(http.StatusBadRequest, "resigned: the game is over, there is no move to make")
	}
	if g, err := games.New(req.Game); err == nil && web.IsDiceGame(g) {
		return s.diceMove(ctx, req)
	}
	g, l, st, err := req.Replay()
	if err != nil {
		return web.Reply{}, err
	}
	spec, err := s.parseSpec(g, req.Player)
	if err != nil {
		return web.Reply{}, err
	}
	if st.IsTerminal() {
		return web.Reply{}, fail(http.StatusBadRequest, "game %s: the game is over, there is no move to make", g.Name())
	}
	return s.search(ctx, g, spec, func(ctx context.Context, en *engine) (web.Reply, error) {
		p, err := en.f.New(rand.New(rand.NewPCG(s.cfg.Seed, requestSeed(g, req))))
		if err != nil {
			return web.Reply{}, &web.BadRequestError{Err: err}
		}
		rep, err := web.Think(ctx, p, g, l, st, req.Moves)
		return rep, s.cannotMove(ctx, req, err)
	})
}

// cannotMove turns an engine's failure to choose a move, while time is left
// (a solver given too many empty squares), into a 400: the request asked for
// what the player cannot do. Other errors are returned as they are.
func (s *Server) cannotMove(ctx context.Context, req web.Request, err error) error {
	var ee *web.EngineError
	if errors.As(err, &ee) && ctx.Err() == nil {
		return fail(http.StatusBadRequest, "player %s cannot move here: %v", req.Player, ee.Err)
	}
	return err
}

// diceMove answers an engine-move request in a game of dice: the moves'
// rolls are checked against the dice token's, and the rolls before and
// after the engine's move are drawn from it.
func (s *Server) diceMove(ctx context.Context, req web.Request) (web.Reply, error) {
	dg, err := s.dealer.Dice(req)
	if err != nil {
		return web.Reply{}, err
	}
	spec, err := s.parseSpec(dg.Game, req.Player)
	if err != nil {
		return web.Reply{}, err
	}
	if dg.State.IsTerminal() {
		return web.Reply{}, fail(http.StatusBadRequest, "game %s: the game is over, there is no move to make", dg.Game.Name())
	}
	dg.Roll()
	req.Moves = dg.Moves
	return s.search(ctx, dg.Game, spec, func(ctx context.Context, en *engine) (web.Reply, error) {
		p, err := en.f.New(rand.New(rand.NewPCG(s.cfg.Seed, requestSeed(dg.Game, req))))
		if err != nil {
			return web.Reply{}, &web.BadRequestError{Err: err}
		}
		rep, err := dg.Think(ctx, p)
		return rep, s.cannotMove(ctx, req, err)
	})
}

// cardMove answers an engine-move request in a card game: the deal stays
// the dealer's secret, and the reply shows the engine's card or bet only.
func (s *Server) cardMove(ctx context.Context, g games.Game, req web.Request) (web.Reply, error) {
	spec, err := s.parseSpec(g, req.Player)
	if err != nil {
		return web.Reply{}, err
	}
	return s.search(ctx, g, spec, func(ctx context.Context, en *engine) (web.Reply, error) {
		p, err := en.f.New(rand.New(rand.NewPCG(s.cfg.Seed, requestSeed(g, req))))
		if err != nil {
			return web.Reply{}, &web.BadRequestError{Err: err}
		}
		rep, err := s.dealer.Think(ctx, p, req)
		return rep, s.cannotMove(ctx, req, err)
	})
}

// search takes a search slot (waiting at most MoveTime), loads or reuses the
// engine of spec, and runs do with it under the MoveTime deadline.
func (s *Server) search(ctx context.Context, g games.Game, spec players.Spec, do func(context.Context, *engine) (web.Reply, error)) (web.Reply, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.MoveTime)
	defer cancel()
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return web.Reply{}, fail(http.StatusServiceUnavailable, "server busy: no search slot free within %v", s.cfg.MoveTime)
	}
	type result struct {
		rep web.Reply
		err error
	}
	done := make(chan result, 1)
	// The search runs in its own goroutine, which holds the search slot until
	// it really ends, so that a player that overruns its deadline still
	// counts against MaxSearches.
	go func() {
		defer func() { <-s.sem }()
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("engine panicked", "player", spec.String(), "panic", p)
				done <- result{err: fmt.Errorf("engine panicked: %v", p)}
			}
		}()
		en, err := s.acquire(g, spec)
		if err != nil {
			done <- result{err: err}
			return
		}
		// The engine is released before the reply is handed over (and on a
		// panic, before the recovery's), so a caller that has its reply finds
		// the engine's users counted down.
		rep, err := func() (web.Reply, error) {
			defer s.release(en)
			return do(ctx, en)
		}()
		done <- result{rep, err}
	}()
	select {
	case res := <-done:
		var he *httpError
		if res.err != nil && ctx.Err() != nil && !web.IsBadRequest(res.err) && !errors.As(res.err, &he) {
			return web.Reply{}, fail(http.StatusServiceUnavailable, "engine did not answer within %v: %v", s.cfg.MoveTime, res.err)
		}
		return res.rep, res.err
	case <-ctx.Done():
		return web.Reply{}, fail(http.StatusServiceUnavailable, "engine did not answer within %v", s.cfg.MoveTime)
	}
}

// requestSeed hashes the game, player and moves of a request.
func requestSeed(g games.Game, req web.Request) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%v\x00%s", g.Name(), req.Player, req.Moves, req.Deal)
	return h.Sum64()
}

// sameRules reports whether a checkpoint's game spec names g's game with
// other adjudication parameters only (games.Adjudicated), so that its
// network plays g (nn.Checkpoint.CheckGame agrees).
func sameRules(spec string, g games.Game) bool {
	cg, err := games.New(spec)
	return err == nil && games.RulesName(cg) == games.RulesName(g)
}
