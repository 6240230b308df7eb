// Package pipeline wires self-play, the replay buffer, training and the
// gating arena into a training run driven by one YAML config: what cmd/train
// and cmd/selfplay call.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"tabula/bus"
	"tabula/games"
	"tabula/internal/cputime"
	"tabula/internal/progress"
	"tabula/nn"
	"tabula/nn/train"
	"tabula/replay"
)

// Options are what a command adds to a Config.
type Options struct {
	// Log receives structured progress; nil discards it.
	Log *slog.Logger
	// Progress receives the progress bars; nil hides them.
	Progress io.Writer
	// Bus says where the run's data plane is (cmd/train's -listen, -token
	// and -nats); the zero value embeds a server bound to loopback.
	Bus BusOptions
}

// Trainer runs one training run. Build it with New, then call Run.
type Trainer struct {
	cfg         *Config
	opt         Options
	log         *slog.Logger
	g           games.Game
	dir         *runDir
	buf         *replay.Buffer
	metrics     *metricsLog
	trainer     *train.Trainer
	weights     *nn.Weights // trained in place by trainer
	rng         *rand.Rand
	iter        int       // iterations completed
	started     time.Time // when Run began: schedule timed counts from it
	precision   string    // of the latest self-play round's network (logged when it changes); under mu
	spModel     *nn.Model // the self-play loop's network, built from the checkpoint spModelPath
	spModelPath string
	// spEval are the self-play workers' evaluators over spModel, kept
	// from round to round and from one best network to the next
	// (setModel): their cache (2^18 results, tens of MiB) stays warm, and
	// is not allocated and faulted in anew each round (Go 9x9: 2% of
	// self-play's CPU went to those page faults).
	spEval *selfPlayEvaluators
	// bestUnpublished: the best network's publication to the bus failed
	// (retryPublishBest tries again each iteration).
	bestUnpublished bool
	// initFrom holds the checkpoint metadata that records the network the
	// run started from (Config.Init), copied into every checkpoint it saves.
	initFrom  map[string]string
	iterSteps int          // training steps of iteration iter+1 already taken (saved by an interrupted run)
	iterLoss  train.Losses // the sums of those steps' losses
	// tail is iteration iter when its checkpoint is saved and its metrics
	// line is not yet written: the stages after the checkpoint that are
	// still to run (a restart finishes them before it trains again).
	tail *iterTail
	// runBase is the run's time before this process's Run: the run_seconds
	// of the last metrics line or of the checkpoint resumed, whichever is
	// later.
	runBase     float64
	workers     int
	lastRefresh time.Time // when the replay folder was last scanned for other writers' chunks
	lastMetrics time.Time // when the last metrics line was written (or the run started)
	ladderBest  string    // the checkpoint the last ladder rated (from metrics.jsonl on resume)

	server *bus.Server // the embedded NATS server; nil with Options.Bus.URL
	bus    *bus.Bus
	feed   gameFeed // the trainer's durable consumer of games
	in     *ingest
	meter  rateMeter // the trainer's own self-play, for its heartbeat
	// folderBeats holds each folder worker's heartbeat at the last metrics
	// line: its games since are the difference.
	folderBeats map[string]bus.Heartbeat

	promoted map[string]bool // checkpoint names that have been the best
	rejected map[string]bool // checkpoint names that gating turned down

	mu       sync.Mutex
	bestPath string        // checkpoint that plays self-play games
	bestGen  int           // its generation: promotions before it (bus.Best.Generation)
	spStats  selfPlayStats // self-play since the last metrics line
	spTime   time.Duration // self-play wall time in spStats

	// CPU clocks for the metrics line's cpu section: the training steps'
	// thread CPU since the last line, and the process clock at that line.
	trainCPU time.Duration
	procCPU  time.Duration
}

// stageHook, when set (by tests), is called as each stage of iteration n
// begins, with the context the stage runs under: "training", "checkpoint"
// (saved, with the iterations' context), "gating", "gated" (the decision on
// disk), "publishing" (a promotion), "ladder", "bench" and "metrics" (the
// line about to be written).
var stageHook func(ctx context.Context, stage string, n int)

func atStage(ctx context.Context, stage string, n int) {
	if stageHook != nil {
		stageHook(ctx, stage, n)
	}
}

// New opens (or resumes) the run in cfg.RunDir: it takes the folder's lock,
// writes the resolved config, loads the latest checkpoint and the replay
// window. It starts no goroutines.
func New(cfg *Config, opt Options) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := opt.Bus.validate(); err != nil {
		return nil, err
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	log.Info("run starting", "dir", cfg.RunDir, "game", cfg.Game, "stops", cfg.StopRule())
	g, err := games.New(cfg.Game)
	if err != nil {
		return nil, err
	}
	if err := train.UseBLAS(cfg.Train.BLAS); err != nil {
		return nil, err
	}
	dir, err := openRunDir(cfg)
	if err != nil {
		return nil, err
	}
	t := &Trainer{cfg: cfg, opt: opt, log: log, g: g, dir: dir,
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x7261696e))}
	ok := false
	defer func() {
		if !ok {
			t.Close()
		}
	}()
	t.workers = cfg.SelfPlay.Workers
	if t.workers == 0 {
		t.workers = max(1, runtime.GOMAXPROCS(0)-1)
	}
	if err := t.resume(); err != nil {
		return nil, err
	}
	t.buf, err = replay.Open(dir.path(replayDir), g, cfg.Replay, "train", log)
	if err != nil {
		return nil, err
	}
	t.metrics, err = openMetrics(dir.path(metricsFile))
	if err != nil {
		return nil, err
	}
	if err := t.openBus(); err != nil {
		return nil, err
	}
	ok = true
	log.Info("run ready", "dir", cfg.RunDir, "game", g.Name(), "iteration", t.iter,
		"steps", t.trainer.Steps(), "best", filepath.Base(t.bestPath), "replay", t.buf.Len(),
		"params", t.weights.NumParams())
	if f := cfg.Network.Filters; f > 16 && f%16 != 0 {
		log.Warn("network.filters is not a multiple of 16: the inference kernels' tiles are 16 columns wide, so "+
			"it runs at the cost of the next multiple", "filters", f, "costs_as", (f+15)/16*16)
	}
	return t, nil
}

// Close stops the embedded bus server and releases the run folder's lock
// and open files.
func (t *Trainer) Close() error {
	var errs []error
	if t.trainer != nil {
		errs = append(errs, t.trainer.Close())
	}
	if t.metrics != nil {
		errs = append(errs, t.metrics.close())
	}
	if t.in != nil {
		errs = append(errs, t.in.close())
	}
	if t.bus != nil {
		errs = append(errs, t.bus.Close())
	}
	if t.server != nil {
		t.server.Shutdown()
	}
	t.dir.close()
	return errors.Join(errs...)
}

// Iteration is the number of iterations completed.
func (t *Trainer) Iteration() int { return t.iter }

// Run runs iterations until cfg.Iterations or cfg.Duration is reached or ctx
// is cancelled. Self-play runs all the time in its own goroutines with the
// current best network, writing replay chunks; each iteration trains
// StepsPerIteration steps on the replay window (waiting for new games when
// the reuse cap is reached), saves a checkpoint, gates it against the best,
// and now and then plays the ladder and the benchmark. Cancelling (Ctrl-C)
// saves the training steps of the unfinished iteration in a checkpoint that
// a restart resumes, loses at most the games in flight, and returns nil. A
// run stopped (Ctrl-C or killed) after an iteration's checkpoint, before its
// metrics line, first finishes that iteration when it starts again: the
// stages that had not ended (gating, the ladder, the bench) and the line.
// When self-play keeps failing (an unwritable or full replay folder, say),
// Run stops with an error instead of training on a buffer that no longer
// grows.
func (t *Trainer) Run(ctx context.Context) error {
	start := time.Now()
	t.started = start
	caller := ctx // Ctrl-C, as opposed to the duration running out
	if t.cfg.Iterations > 0 && t.iter >= t.cfg.Iterations && t.tail == nil {
		t.log.Info("run already finished: all its iterations are done, nothing to resume", "iterations", t.iter,
			"to_train_further", trainFurther(t.iter, t.cfg.Iterations))
		// Unless the final ladder was cut short.
		return t.finalLadder(caller, start)
	}
	if t.cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.cfg.Duration)
		defer cancel()
	}
	// Self-play failing for good cancels the iterations with its error.
	iterCtx, failIter := context.WithCancelCause(ctx)
	defer failIter(nil)
	// An iteration whose checkpoint is saved finishes (gating, ladder,
	// bench, its metrics line) even when the duration runs out meanwhile:
	// only Ctrl-C or a failing run cut it. Otherwise the duration ending in
	// the middle of a ladder threw away the ladder, the iteration's metrics
	// and its gating decision.
	tailCtx, failTail := context.WithCancelCause(caller)
	defer failTail(nil)
	failRun := func(err error) { failIter(err); failTail(err) }
	t.lastMetrics = start
	// Games reach the replay folder from the bus: this process's own
	// self-play and cmd/selfplay workers publish them, ingest writes them.
	// The games that waited in the stream for this process (workers play on
	// while the trainer is away) are taken first, so that the first
	// iteration trains on them and its metrics count them.
	t.drainIngest(2 * time.Second)
	inCtx, stopIngest := context.WithCancel(ctx)
	inDone := make(chan struct{})
	go func() {
		defer close(inDone)
		if err := t.ingestLoop(inCtx); err != nil {
			failRun(err)
		}
	}()
	spCtx, stopSelfPlay := context.WithCancel(ctx)
	spDone := make(chan struct{})
	seed := t.cfg.Seed ^ uint64(t.iter)<<40 ^ uint64(t.trainer.Steps())<<20 // a resumed run plays new games
	t.meter.start = time.Now()
	t.procCPU = cputime.Process()
	go func() {
		defer close(spDone)
		if err := t.selfPlayLoop(spCtx, seed); err != nil {
			failRun(err)
		}
	}()
	go heartbeats(spCtx, t.bus, trainerName, &t.meter, t.log)
	var runErr error
	for {
		if t.tail == nil { // otherwise iteration t.iter is to be finished first
			if t.cfg.Iterations > 0 && t.iter >= t.cfg.Iterations || iterCtx.Err() != nil {
				break
			}
			n := t.iter + 1
			atStage(iterCtx, "training", n)
			if err := t.timedTrainIteration(iterCtx); err != nil {
				if iterCtx.Err() == nil {
					runErr = fmt.Errorf("iteration %d: %w", n, err)
				}
				break
			}
			atStage(iterCtx, "checkpoint", n)
		}
		if err := t.finishIteration(tailCtx, start); err != nil {
			if tailCtx.Err() == nil {
				runErr = fmt.Errorf("iteration %d: %w", t.iter, err)
			}
			break
		}
	}
	if runErr == nil && ctx.Err() == nil && iterCtx.Err() != nil {
		runErr = context.Cause(iterCtx)
	}
	stopSelfPlay()
	<-spDone
	stopIngest()
	<-inDone
	if runErr == nil {
		// The games self-play published before it stopped go into the
		// replay folder now rather than at the next start.
		t.drainIngest(5 * time.Second)
		// What left the window while the last games came in leaves the disk
		// now, so a stopped run holds about one window of chunks.
		t.pruneReplay(caller)
	}
	if runErr == nil && caller.Err() == nil && t.finished(ctx) {
		runErr = t.finalLadder(caller, start)
	}
	if runErr != nil {
		t.log.Error("run failed", "iterations", t.iter, "wall", time.Since(start).Round(time.Second), "err", runErr)
	} else {
		t.log.Info("run stopped", "iterations", t.iter, "wall", time.Since(start).Round(time.Second))
	}
	return runErr
}

// finished reports whether the run reached its end: cfg.Iterations, or
// cfg.Duration (runCtx, the context with the duration, has expired).
func (t *Trainer) finished(runCtx context.Context) bool {
	if t.cfg.Iterations > 0 && t.iter >= t.cfg.Iterations {
		return true
	}
	return t.cfg.Duration > 0 && errors.Is(runCtx.Err(), context.DeadlineExceeded)
}

// bar returns a progress display for a job of n units writing to
// opt.Progress: a bar when that is a terminal, plain periodic lines
// otherwise, nothing when it is nil.
func (t *Trainer) bar(n int, desc string) progress.Bar {
	return progress.New(t.opt.Progress, n, desc)
}
