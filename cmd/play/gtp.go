package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"

	"tabula/games"
	"tabula/gtp"
	"tabula/internal/cliflag"
	"tabula/players"
)

func init() {
	register(subcommand{
		name:    "gtp",
		summary: "-game G -player SPEC [-seed S] [-name N]: a Go Text Protocol engine on stdin/stdout (go, othello)",
		run:     runGTP,
	})
}

// runGTP serves GTP on stdin/stdout with the player's moves. Logs go to
// stderr only.
func runGTP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := verbFlags("play gtp", "play gtp -game G -player SPEC [-seed S] [-name N] [-v]", players.SpecHelp(), stderr)
	fs.String("game", "go:size=9", "game spec: go:size=N,komi=K or othello:size=8 (GRhino's dialect); a net player's checkpoint's game when left out")
	playerSpec := fs.String("player", "", "player spec (required); see arena help")
	seed := fs.Uint64("seed", 1, "seed of the player's random source")
	name := fs.String("name", "tabula", "answer to the name command")
	verbose := fs.Bool("v", false, "log every command to stderr, not only errors")
	if err := cliflag.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("play gtp: unexpected arguments %q", fs.Args())
	}
	if *playerSpec == "" {
		fs.Usage()
		return errors.New("play gtp: -player is required")
	}
	spec, err := players.ParseSpec(*playerSpec)
	if err != nil {
		return fmt.Errorf("play gtp: %w", err)
	}
	g, err := gameFor(fs, spec) // -game, or a net player's checkpoint's game
	if err != nil {
		return fmt.Errorf("play gtp: %w", err)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	rng := rand.New(rand.NewPCG(*seed, 0x67747020))
	build := func(g games.Game) (gtp.Chooser, error) {
		f, err := players.Build(g, spec)
		if err != nil {
			return nil, err
		}
		p, err := f.New(rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())))
		if err != nil {
			_ = f.Close()
			return nil, err
		}
		return wrapGTP(p, f), nil
	}
	cfg := gtp.DefaultEngineConfig()
	cfg.Name = *name
	cfg.Log = log
	e, err := gtp.NewEngine(cfg, g, build)
	if err != nil {
		return fmt.Errorf("play gtp: %w", err)
	}
	defer e.Close()
	log.Info("play gtp: ready", "game", g.Name(), "player", spec.String())
	if err := e.Run(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("play gtp: %w", err)
	}
	return nil
}

// gtpPlayer is a player built for the engine's current game with the
// factory that owns its resources; the engine closes it when boardsize or
// komi replaces it, and at the end.
type gtpPlayer struct {
	players.Player
	f *players.Factory
}

// gtpAnalyzer is a gtpPlayer whose player's search can be watched: the
// engine offers the analysis commands for it.
type gtpAnalyzer struct {
	*gtpPlayer
	gtp.Analyzer
}

// gtpOutcomeAnalyzer is a gtpAnalyzer whose network may have the ownership
// and score heads, which kata-analyze reports.
type gtpOutcomeAnalyzer struct {
	*gtpAnalyzer
	gtp.OutcomeAnalyzer
}

// gtpTimed* are the wrappers of players whose search can stop on a time
// limit (gtp.TimeLimiter): the engine's game clock reaches them.
type gtpTimedPlayer struct {
	*gtpPlayer
	gtp.TimeLimiter
}

type gtpTimedAnalyzer struct {
	*gtpAnalyzer
	gtp.TimeLimiter
}

type gtpTimedOutcomeAnalyzer struct {
	*gtpOutcomeAnalyzer
	gtp.TimeLimiter
}

// wrapGTP wraps p, built by f, for the GTP engine, keeping each optional
// interface of p the engine looks for: gtp.Analyzer, gtp.OutcomeAnalyzer
// and gtp.TimeLimiter.
func wrapGTP(p players.Player, f *players.Factory) gtp.Chooser {
	gp := &gtpPlayer{Player: p, f: f}
	tl, timed := p.(gtp.TimeLimiter)
	an, ok := p.(gtp.Analyzer)
	if !ok {
		if timed {
			return &gtpTimedPlayer{gtpPlayer: gp, TimeLimiter: tl}
		}
		return gp
	}
	ga := &gtpAnalyzer{gtpPlayer: gp, Analyzer: an}
	oa, ok := p.(gtp.OutcomeAnalyzer)
	if !ok {
		if timed {
			return &gtpTimedAnalyzer{gtpAnalyzer: ga, TimeLimiter: tl}
		}
		return ga
	}
	goa := &gtpOutcomeAnalyzer{gtpAnalyzer: ga, OutcomeAnalyzer: oa}
	if timed {
		return &gtpTimedOutcomeAnalyzer{gtpOutcomeAnalyzer: goa, TimeLimiter: tl}
	}
	return goa
}

// Sync passes the game's moves on to players that keep their own board.
func (p *gtpPlayer) Sync(actions []int) {
	if sy, ok := p.Player.(players.Syncer); ok {
		sy.Sync(actions)
	}
}

// Close stops the player (an outside engine) and releases its factory's
// resources (a network evaluator).
func (p *gtpPlayer) Close() error {
	var err error
	if c, ok := p.Player.(io.Closer); ok {
		err = c.Close()
	}
	return errors.Join(err, p.f.Close())
}
