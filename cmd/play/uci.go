package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"

	"tabula/games"
	"tabula/games/chess"
	"tabula/internal/cliflag"
	"tabula/players"
	"tabula/search"
	"tabula/uci"
)

func init() {
	register(subcommand{
		name:    "uci",
		summary: "-player SPEC [-seed S] [-name N]: a Universal Chess Interface engine on stdin/stdout (chess)",
		run:     runUCI,
	})
}

// ttBucketBytes is the size of one bucket of the alpha-beta table (two
// 32-byte slots), which converts between the Hash option and tt=.
const ttBucketBytes = 64

// runUCI serves UCI on stdin/stdout with the player's moves. Logs go to
// stderr only.
func runUCI(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := verbFlags("play uci", "play uci -player SPEC [-seed S] [-name N] [-v]", players.SpecHelp(), stderr)
	playerSpec := fs.String("player", "", "player spec (required); see arena help")
	seed := fs.Uint64("seed", 1, "seed of the player's random source")
	name := fs.String("name", "tabula", "the engine's name (id name, which adds the build's revision)")
	verbose := fs.Bool("v", false, "log every command to stderr, not only errors")
	if err := cliflag.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("play uci: unexpected arguments %q", fs.Args())
	}
	if *playerSpec == "" {
		fs.Usage()
		return errors.New("play uci: -player is required")
	}
	spec, err := players.ParseSpec(*playerSpec)
	if err != nil {
		return fmt.Errorf("play uci: %w", err)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	kind := kindInfo(spec.Kind)
	cfg := uciEngineConfig(spec, kind)
	cfg.Name = *name
	cfg.Log = log
	// Fail at start, not at the first go, for a spec that cannot play chess.
	f, err := players.Build(chess.Game{}, spec)
	if err != nil {
		return fmt.Errorf("play uci: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("play uci: %w", err)
	}
	rng := rand.New(rand.NewPCG(*seed, 0x75636920))
	build := func(o uci.Options) (uci.Searcher, error) {
		return &uciSearcher{spec: spec, kind: kind, cfg: cfg, opts: o, rng: rng, log: log, built: map[string]*uciBuilt{}}, nil
	}
	e, err := uci.NewEngine(cfg, build)
	if err != nil {
		return fmt.Errorf("play uci: %w", err)
	}
	defer e.Close()
	log.Info("play uci: ready", "player", spec.String())
	if err := e.Run(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("play uci: %w", err)
	}
	return nil
}

// uciEngineConfig declares the Hash option as the spec's table size (tt=)
// where its kind has one, and Threads up to the kind's threads= maximum.
func uciEngineConfig(spec players.Spec, kind kindParams) uci.EngineConfig {
	cfg := uci.DefaultEngineConfig()
	cfg.Author = "tabula (" + spec.String() + ")"
	if tt, ok := kind.param("tt"); ok {
		cfg.HashMB = max(1, (1<<spec.Int("tt", 16))*ttBucketBytes>>20)
		cfg.HashMax = max(cfg.HashMB, (1<<int(tt.Max))*ttBucketBytes>>20)
	}
	if th, ok := kind.param("threads"); ok {
		cfg.ThreadsMax = int(th.Max)
	}
	return cfg
}

// kindParams is a player kind's parameters.
type kindParams players.KindInfo

func kindInfo(name string) kindParams {
	for _, k := range players.Kinds() {
		if k.Name == name {
			return kindParams(k)
		}
	}
	return kindParams{Name: name}
}

func (k kindParams) param(name string) (players.ParamInfo, bool) {
	for _, p := range k.Params {
		if p.Name == name {
			return p, true
		}
	}
	return players.ParamInfo{}, false
}

// uciSearcher plays the engine's moves with players built from the spec,
// adjusted to each go command's limits and the Hash and Threads options:
// one player per adjusted spec, kept for the game (so its tables carry
// over from move to move) and closed at ucinewgame.
type uciSearcher struct {
	spec  players.Spec
	kind  kindParams
	cfg   uci.EngineConfig
	opts  uci.Options
	rng   *rand.Rand
	log   *slog.Logger
	built map[string]*uciBuilt
}

type uciBuilt struct {
	f *players.Factory
	p players.Player
}

// specFor returns the spec adjusted to the limits and options: go depth N
// and go nodes N replace the spec's limit where the kind has that
// parameter; a time limit or go infinite lifts a spec without a limit of
// its own to the kind's deepest depth, so that the clock (or stop) ends the
// search; Hash sets tt= and Threads threads= where the kind has them.
func (s *uciSearcher) specFor(lim uci.Limits) players.Spec {
	set := map[string]string{}
	limits := []string{"depth", "nodes", "time", "cpu"}
	ownLimit := false
	for _, l := range limits {
		ownLimit = ownLimit || s.spec.Has(l)
	}
	depth, hasDepth := s.kind.param("depth")
	nodes, hasNodes := s.kind.param("nodes")
	timed := lim.MoveTime > 0 || lim.WTime > 0 || lim.BTime > 0
	switch {
	case lim.Depth > 0 && hasDepth:
		set["depth"] = strconv.Itoa(min(lim.Depth, int(depth.Max)))
	case lim.Nodes > 0 && hasNodes:
		set["nodes"] = strconv.FormatInt(min(lim.Nodes, int64(nodes.Max)), 10)
	case (timed || lim.Infinite) && hasDepth && !ownLimit:
		set["depth"] = strconv.Itoa(int(depth.Max))
	}
	if len(set) == 0 {
		limits = nil // the spec's own limit stays
	}
	if s.opts.HashMB != s.cfg.HashMB {
		if tt, ok := s.kind.param("tt"); ok {
			b := bits.Len64(uint64(s.opts.HashMB)<<20/ttBucketBytes) - 1
			set["tt"] = strconv.Itoa(min(max(b, int(tt.Min), 1), int(tt.Max)))
		}
	}
	if _, ok := s.kind.param("threads"); ok && s.opts.Threads > 1 {
		set["threads"] = strconv.Itoa(s.opts.Threads)
	}
	out := players.Spec{Kind: s.spec.Kind}
	for _, p := range s.spec.Params {
		_, replaced := set[p.Key]
		isLimit := false
		for _, l := range limits {
			isLimit = isLimit || p.Key == l
		}
		if !replaced && !isLimit {
			out.Params = append(out.Params, p)
		}
	}
	for _, k := range []string{"depth", "nodes", "tt", "threads"} {
		if v, ok := set[k]; ok {
			out.Params = append(out.Params, players.Param{Key: k, Value: v})
		}
	}
	return out
}

// player returns the player of spec, built at its first use.
func (s *uciSearcher) player(spec players.Spec) (players.Player, error) {
	key := spec.String()
	if b, ok := s.built[key]; ok {
		return b.p, nil
	}
	f, err := players.Build(chess.Game{}, spec)
	if err != nil {
		return nil, err
	}
	p, err := f.New(rand.New(rand.NewPCG(s.rng.Uint64(), s.rng.Uint64())))
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	s.log.Debug("play uci: player built", "spec", key)
	s.built[key] = &uciBuilt{f: f, p: p}
	return p, nil
}

// Search plays the player's move in pos.
func (s *uciSearcher) Search(ctx context.Context, pos uci.Position, lim uci.Limits) (uci.Result, error) {
	p, err := s.player(s.specFor(lim))
	if err != nil {
		return uci.Result{}, err
	}
	if sy, ok := p.(players.Syncer); ok && pos.FEN == "" {
		sy.Sync(pos.Moves)
	}
	a, err := p.ChooseAction(ctx, pos.State.Clone())
	if err != nil {
		return uci.Result{}, err
	}
	res := uci.Result{Move: a}
	if r, ok := p.(players.SearchReporter); ok {
		res.Info = searchInfo(r.LastSearch(), pos.State)
	}
	return res, nil
}

// searchInfo converts an alpha-beta result into an info line's fields. A
// proven win or loss is a mate in moves from s; a heuristic value is shown
// in centipawns where the game says what one is worth (search.Tactical, as
// chess does), and as 1000·v of the search's own units (-1, 1) elsewhere.
func searchInfo(r search.Result, s games.State) uci.Info {
	in := uci.Info{Depth: r.Depth, Nodes: r.Nodes, PV: r.PV}
	if r.Depth == 0 {
		return in
	}
	in.Score.Known = true
	if search.IsProven(r.Value) {
		end := int(math.Round((search.WinValue - math.Abs(r.Value)) / search.MoveDecay))
		moves := (end - s.MoveNumber() + 1) / 2
		if r.Value < 0 {
			moves = -moves
		}
		in.Score.Mate = moves
		if moves == 0 { // a loss already on the board cannot be searched
			in.Score.Mate, in.Score.CP = 0, 0
		}
		return in
	}
	if t, ok := s.(search.Tactical); ok && t.Centipawn() > 0 {
		in.Score.CP = int(math.Round(r.Value / t.Centipawn()))
		return in
	}
	in.Score.CP = int(math.Round(1000 * r.Value))
	return in
}

// Close stops every player built (outside engines) and releases their
// factories' resources.
func (s *uciSearcher) Close() error {
	var errs []error
	for _, b := range s.built {
		if c, ok := b.p.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
		errs = append(errs, b.f.Close())
	}
	s.built = map[string]*uciBuilt{}
	return errors.Join(errs...)
}
