package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"tabula/bus"
	"tabula/games"
	"tabula/internal/atomicfile"
	"tabula/internal/progress"
	"tabula/mcts"
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
	if !busName.MatchString(opt.ID) {
		return fmt.Errorf("worker name %q: want 1-64 letters, digits, '-' or '_'", opt.ID)
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
	meter := &rateMeter{start: time.Now()}
	stopBeats := folderHeartbeats(runDir, opt.ID, meter, log)
	defer stopBeats()
	played := 0
	fellBack := "" // the damaged best last reported, so that it is said once
	// The evaluators of the network last played, and its path: a round
	// with the same best reuses them (and their warm cache), a new best
	// runs in them (runModel).
	var (
		evals    *selfPlayEvaluators
		evalPath string
	)
	for round := uint64(1); opt.Games == 0 || played < opt.Games; round++ {
		if ctx.Err() != nil {
			return nil
		}
		bestPath, best, err := workerBest(runDir, g, log, &fellBack)
		if err != nil {
			return err
		}
		if bestPath != evalPath {
			m, err := nn.NewModelFor(best.Weights, g, cfg.Evaluator.Precision)
			if err != nil {
				return err
			}
			if evals, err = runModel(evals, cfg.Evaluator, cfg.SelfPlay.MCTS.BatchSize, workers, m, g); err != nil {
				return err
			}
			evalPath = bestPath
		}
		newEval := evals.newEval
		n := cfg.SelfPlay.ChunkGames * workers
		if opt.Games > 0 {
			n = min(n, opt.Games-played)
		}
		bar := progress.New(opt.Progress, n, fmt.Sprintf("self-play worker round %d (%s)", round, filepath.Base(bestPath)))
		st, err := generate(ctx, g, cfg.SelfPlay, workers, n, opt.Seed<<32^round, newEval, &chunkSink{buf: buf, chunkGames: cfg.SelfPlay.ChunkGames},
			newRecordWriter(cfg, runDir, "selfplay", opt.ID, g, 0, filepath.Base(bestPath), opt.Seed<<32^round), func(selfPlayStats) { bar.Add(1) })
		bar.Finish()
		played += st.Games
		meter.add(st.Games, st.Moves)
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

// workersDir holds, in the run folder, the heartbeat file (NAME.json, a
// bus.Heartbeat) of each folder worker.
const workersDir = "workers"

// folderHeartbeats writes the heartbeat file of the folder worker named
// worker every heartbeatEvery until the returned stop is called, which
// writes a last one marked Gone: the trainer shows folder workers from these
// as it shows bus workers from theirs.
func folderHeartbeats(runDir, worker string, m *rateMeter, log *slog.Logger) (stop func()) {
	path := filepath.Join(runDir, workersDir, worker+".json")
	write := func(gone bool) {
		h := m.heartbeat(worker)
		h.Time, h.Gone = time.Now(), gone
		data, err := json.Marshal(h)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(path), 0o755)
		}
		if err == nil {
			err = atomicfile.Write(path, data)
		}
		if err != nil {
			log.Warn("worker heartbeat file not written", "file", path, "err", err)
		}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(heartbeatEvery)
		defer tick.Stop()
		for {
			write(false)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		write(true)
	}
}

// folderWorkers reads the heartbeat files of the run's folder workers,
// skipping (and removing) those not updated within the bus's heartbeat TTL,
// as the bus forgets a worker's heartbeat. It returns them with the games
// and positions each played since the heartbeat in prev, which it updates.
func folderWorkers(runDir string, prev map[string]bus.Heartbeat, log *slog.Logger) ([]bus.Heartbeat, map[string]workerCount) {
	dir := filepath.Join(runDir, workersDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			log.Warn("worker heartbeat files unreadable", "dir", dir, "err", err)
		}
		return nil, nil
	}
	var beats []bus.Heartbeat
	counts := map[string]workerCount{}
	now := time.Now()
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !busName.MatchString(name) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			continue // removed meanwhile
		}
		var h bus.Heartbeat
		if err := json.Unmarshal(data, &h); err != nil || h.Worker != name {
			log.Warn("ignoring a malformed worker heartbeat file", "file", path, "err", err)
			continue
		}
		if now.Sub(h.Time) > bus.DefaultHeartbeatTTL {
			os.Remove(path)
			delete(prev, name)
			continue
		}
		c := workerCount{Games: int(h.Games), Positions: int(h.Positions), Generation: h.Generation, Last: h.Time}
		if p, ok := prev[name]; ok && p.Games <= h.Games && p.Positions <= h.Positions {
			c.Games -= int(p.Games) // else the worker started again under the same name
			c.Positions -= int(p.Positions)
		}
		prev[name] = h
		beats = append(beats, h)
		counts[name] = c
	}
	return beats, counts
}

// workerBest loads the run's best network for a folder worker. When the
// best pointer or the checkpoint it names is damaged it plays, as the
// trainer does, with the newest promoted checkpoint that loads, and says so
// once per damaged best (reported holds the last one reported).
func workerBest(runDir string, g games.Game, log *slog.Logger, reported *string) (string, *nn.Checkpoint, error) {
	bestPath, err := readBest(runDir)
	if err == nil && bestPath == "" {
		return "", nil, fmt.Errorf("run %s has no best network yet", runDir)
	}
	var best *nn.Checkpoint
	if err == nil {
		best, err = nn.LoadCheckpoint(bestPath)
		if err == nil {
			if cerr := best.CheckGame(g); cerr != nil {
				err = fmt.Errorf("%s: %w", bestPath, cerr)
			}
		}
	}
	if err == nil {
		*reported = ""
		return bestPath, best, nil
	}
	promoted, _ := readPromotions(filepath.Join(runDir, metricsFile), log)
	fallback := fallbackCheckpoint(runDir, promoted, g, bestPath)
	if fallback == "" {
		return "", nil, fmt.Errorf("run %s: best network unreadable and no promoted checkpoint loads: %w", runDir, err)
	}
	if *reported != bestPath+"\x00"+err.Error() {
		log.Error("best checkpoint unreadable; playing with the newest readable promoted checkpoint",
			"best", bestPath, "err", err, "fallback", fallback)
		*reported = bestPath + "\x00" + err.Error()
	}
	best, err = nn.LoadCheckpoint(fallback)
	if err != nil {
		return "", nil, fmt.Errorf("fallback checkpoint %s: %w", fallback, err)
	}
	return fallback, best, nil
}

// RemoteOptions configure a self-play worker that joins a run over the bus
// (cmd/selfplay -connect): no shared run folder is needed.
type RemoteOptions struct {
	WorkerOptions
	// URL of the run's NATS server (cmd/train's embedded one, or -nats).
	URL string
	// Token presented to the server, if it requires one.
	Token string
	// Run is the run's name on the server (the trainer's bus.run).
	Run string
}

// RunRemoteWorker is cmd/selfplay -connect: it joins the run named opt.Run
// on the NATS server at opt.URL, takes the run's config and best network
// from the bus, watches the best pointer, and plays games, publishing each
// one tagged with its name (opt.ID), until ctx is cancelled or opt.Games are
// played. It waits for a trainer that is not there yet, and rides out a
// trainer restart (its games wait and are published once the server is
// back). Games played by a network more than bus.max_stale_generations
// behind the best are dropped, and it says so.
func RunRemoteWorker(ctx context.Context, opt RemoteOptions) error {
	log := opt.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if !busName.MatchString(opt.ID) {
		return fmt.Errorf("worker name %q: want 1-64 letters, digits, '-' or '_'", opt.ID)
	}
	b, err := bus.Connect(ctx, bus.Options{URL: opt.URL, Token: opt.Token, Name: opt.ID, Run: opt.Run, Log: log})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer b.Close()
	data, err := awaitPublished(ctx, log, "the run's config", func(ctx context.Context) ([]byte, error) {
		return b.GetCheckpoint(ctx, configObject)
	})
	if err != nil || ctx.Err() != nil {
		return err
	}
	cfg, err := Parse(data, nil)
	if err != nil {
		return fmt.Errorf("the config of run %s on the bus: %w", opt.Run, err)
	}
	g, err := games.New(cfg.Game)
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
	watch, err := b.WatchBest(ctx)
	if err != nil {
		return err
	}
	var (
		mu   sync.Mutex
		best bus.Best
		have = make(chan struct{})
	)
	go func() {
		first := true
		for nb := range watch {
			mu.Lock()
			best = nb
			mu.Unlock()
			if first {
				close(have)
				first = false
			}
			log.Debug("bus: best network", "name", nb.Name, "generation", nb.Generation)
		}
	}()
	select {
	case <-ctx.Done():
		return nil
	case <-have:
	}
	current := func() bus.Best {
		mu.Lock()
		defer mu.Unlock()
		return best
	}
	var meter rateMeter
	meter.start = time.Now()
	hbCtx, stopBeats := context.WithCancel(ctx)
	beatsDone := make(chan struct{})
	go func() {
		defer close(beatsDone)
		heartbeats(hbCtx, b, opt.ID, &meter, log)
	}()
	defer func() {
		stopBeats()
		<-beatsDone
		goodbye(b, opt.ID, &meter, log)
	}()
	log.Info("worker joined", "url", opt.URL, "bus.run", opt.Run, "worker", opt.ID, "game", g.Name(), "workers", workers)

	var (
		loaded  bus.Best
		evals   *selfPlayEvaluators
		newEval func(int) (mcts.Evaluator, error)
		played  int
		dropped int64
	)
	pub := busPublisher{b}
	for round := uint64(1); opt.Games == 0 || played < opt.Games; round++ {
		if ctx.Err() != nil {
			return nil
		}
		if cur := current(); cur != loaded || newEval == nil {
			data, err := b.GetCheckpoint(ctx, cur.Name)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				log.Warn("fetching the best network failed; retrying", "name", cur.Name, "err", err)
				time.Sleep(time.Second)
				continue
			}
			ck, err := nn.ReadCheckpoint(bytes.NewReader(data))
			if err != nil {
				return fmt.Errorf("best network %s from the bus: %w", cur.Name, err)
			}
			if err := ck.CheckGame(g); err != nil {
				return fmt.Errorf("best network %s from the bus: %w", cur.Name, err)
			}
			m, err := nn.NewModelFor(ck.Weights, g, cfg.Evaluator.Precision)
			if err != nil {
				return err
			}
			// The evaluators of the network before, if any, run the new
			// one in the same cache and buffers.
			if evals, err = runModel(evals, cfg.Evaluator, cfg.SelfPlay.MCTS.BatchSize, workers, m, g); err != nil {
				return err
			}
			newEval = evals.newEval
			loaded = cur
			meter.setGeneration(cur.Generation)
			log.Info("playing with the best network", "name", cur.Name, "generation", cur.Generation)
		}
		n := cfg.SelfPlay.ChunkGames * workers
		if opt.Games > 0 {
			n = min(n, opt.Games-played)
		}
		sink := &busSink{g: g, pub: pub, worker: opt.ID, generation: loaded.Generation,
			best: func() int { return current().Generation }, maxStale: cfg.Bus.MaxStaleGenerations, log: log,
			ahead: publishAhead}
		bar := progress.New(opt.Progress, n, fmt.Sprintf("self-play worker round %d (%s)", round, loaded.Name))
		st, err := generate(ctx, g, cfg.SelfPlay, workers, n, opt.Seed<<32^round, newEval, sink, nil, func(selfPlayStats) { bar.Add(1) })
		bar.Finish()
		played += st.Games
		meter.add(st.Games, st.Moves)
		if s := sink.stale.Load(); s > 0 {
			dropped += s
			log.Warn("dropped games of a stale network: a newer best is out", "games", s, "generation", loaded.Generation,
				"best_generation", current().Generation, "bus.max_stale_generations", cfg.Bus.MaxStaleGenerations, "dropped_total", dropped)
		}
		log.Info("self-play worker", "best", loaded.Name, "games", st.Games, "positions", st.Moves, "total_games", played)
		switch {
		case err == nil, errors.Is(err, errStale):
		case ctx.Err() != nil:
			return nil
		default:
			return err
		}
	}
	return nil
}

// awaitPublished calls get until it returns something other than "not found"
// (the trainer has not published it yet), saying once that it waits.
func awaitPublished(ctx context.Context, log *slog.Logger, what string, get func(context.Context) ([]byte, error)) ([]byte, error) {
	said := false
	for {
		data, err := get(ctx)
		if err == nil || !isNotFound(err) {
			return data, err
		}
		if !said {
			log.Info("waiting for the trainer to publish "+what, "err", err)
			said = true
		}
		select {
		case <-ctx.Done():
			return nil, nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}
