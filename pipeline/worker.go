package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	"tabula/games"
	"tabula/internal/progress"
	"tabula/nn"
	"tabula/replay"
)

// WorkerOptions configure an extra self-play process.
type WorkerOptions struct {
	Options
	// ID makes this worker's replay chunk names unique among the processes
	// writing into the run (letters, digits, '-' and '_').
	ID string
	// Workers overrides the config's selfplay.workers (0: keep it).
	Workers int
	// Games stops the worker after this many games (0: until cancelled).
	Games int
	// Seed distinguishes this worker's games from the trainer's and other
	// workers'.
	Seed uint64
}

// RunWorker is cmd/selfplay: it plays games with the run's current best
// network and writes them into the run's replay folder, where the training
// process picks them up, until ctx is cancelled or opt.Games are played. It
// reloads the best network before every batch of games. It reads the config
// the training process saved in runDir.
func RunWorker(ctx context.Context, runDir string, opt WorkerOptions) error {
	log := opt.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg, err := ReadRunConfig(runDir)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("run %s: %w (start the training process first: it writes the config)", runDir, err)
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", runDir, err)
	}
	g, err := games.New(cfg.Game)
	if err != nil {
		return err
	}
	buf, err := replay.Open(filepath.Join(runDir, replayDir), g, replay.Config{Window: 1, Augment: false}, opt.ID, log)
	if err != nil {
		return err
	}
	workers := opt.Workers
	if workers == 0 {
		workers = cfg.SelfPlay.Workers
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	played := 0
	for round := uint64(1); opt.Games == 0 || played < opt.Games; round++ {
		if ctx.Err() != nil {
			return nil
		}
		bestPath, err := readBest(runDir)
		if err != nil {
			return err
		}
		if bestPath == "" {
			return fmt.Errorf("run %s has no best network yet", runDir)
		}
		best, err := nn.LoadCheckpoint(bestPath)
		if err != nil {
			return err
		}
		if err := best.CheckGame(g); err != nil {
			return fmt.Errorf("%s: %w", bestPath, err)
		}
		newEval, _, err := directEvaluators(cfg.Evaluator, cfg.SelfPlay.MCTS.BatchSize, workers, best.Weights, g, true)
		if err != nil {
			return err
		}
		n := cfg.SelfPlay.ChunkGames * workers
		if opt.Games > 0 {
			n = min(n, opt.Games-played)
		}
		bar := progress.New(opt.Progress, n, fmt.Sprintf("self-play worker round %d (%s)", round, filepath.Base(bestPath)))
		st, err := generate(ctx, g, cfg.SelfPlay, workers, n, opt.Seed<<32^round, newEval, buf, func() { bar.Add(1) })
		bar.Finish()
		played += st.Games
		log.Info("self-play worker", "best", filepath.Base(bestPath), "games", st.Games, "positions", st.Moves, "total_games", played)
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil
			}
			return err
		}
	}
	return nil
}
