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
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"tabula/arena"
	"tabula/elo"
	"tabula/games"
	"tabula/internal/refdata"
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
}

// Trainer runs one training run. Build it with New, then call Run.
type Trainer struct {
	cfg         *Config
	opt         Options
	log         *slog.Logger
	g           games.Game
	dir         *runDir
	buf         *replay.Buffer
	metrics     *metrics
	trainer     *train.Trainer
	weights     *nn.Weights // trained in place by trainer
	rng         *rand.Rand
	iter        int // iterations completed
	workers     int
	lastRefresh time.Time // when the replay folder was last scanned for other writers' chunks

	mu       sync.Mutex
	bestPath string        // checkpoint that plays self-play games
	spStats  selfPlayStats // self-play since the last metrics line
	spTime   time.Duration // self-play wall time in spStats
	spErr    error         // why self-play stopped, if it failed
}

// New opens (or resumes) the run in cfg.RunDir: it takes the folder's lock,
// writes the resolved config, loads the latest checkpoint and the replay
// window. It starts no goroutines.
func New(cfg *Config, opt Options) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	g, err := games.New(cfg.Game)
	if err != nil {
		return nil, err
	}
	if err := games.RequireDeterministic(g, "the training pipeline"); err != nil {
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
	ok = true
	log.Info("run ready", "dir", cfg.RunDir, "game", g.Name(), "iteration", t.iter,
		"steps", t.trainer.Steps(), "best", filepath.Base(t.bestPath), "replay", t.buf.Len(),
		"params", t.weights.NumParams())
	return t, nil
}

// resume loads the newest readable checkpoint, or creates iteration 0 from
// the seed, and the best pointer.
func (t *Trainer) resume() error {
	cks, err := t.dir.checkpoints()
	if err != nil {
		return fmt.Errorf("run folder: %w", err)
	}
	var ck *nn.Checkpoint
	for i := len(cks) - 1; i >= 0 && ck == nil; i-- {
		c, err := nn.LoadCheckpoint(cks[i])
		if err != nil {
			// Checkpoints are written atomically, so this is damage from
			// outside: keep the file, say so, and fall back to an older one.
			t.log.Error("checkpoint unreadable; trying an older one", "file", cks[i], "err", err)
			continue
		}
		if err := c.CheckGame(t.g); err != nil {
			return fmt.Errorf("checkpoint %s: %w", cks[i], err)
		}
		ck = c
		t.iter, _ = strconv.Atoi(c.Meta["iteration"])
	}
	if ck == nil {
		p, h, w := t.g.ObservationShape()
		shape := nn.Shape{Planes: p, Height: h, Width: w, Actions: t.g.NumActions()}
		weights, err := nn.NewWeights(t.cfg.Network, shape, rand.New(rand.NewPCG(t.cfg.Seed, 0x6e6e)))
		if err != nil {
			return err
		}
		ck = &nn.Checkpoint{Game: t.g.Name(), Weights: weights}
	} else if ck.Weights.Config != t.cfg.Network {
		return fmt.Errorf("checkpoint network %+v differs from the config's %+v", ck.Weights.Config, t.cfg.Network)
	}
	t.weights = ck.Weights
	t.trainer, err = train.New(t.cfg.Train.Config, t.weights, rand.New(rand.NewPCG(t.cfg.Seed, 0x7472)))
	if err != nil {
		return err
	}
	if ck.Optimizer != nil {
		if err := t.trainer.Restore(ck.Optimizer); err != nil {
			t.log.Warn("optimiser state not restored (config changed?); training goes on with a fresh optimiser", "err", err)
		}
	}
	if len(cks) == 0 {
		path := t.dir.checkpointPath(0)
		if err := t.save(path); err != nil {
			return err
		}
		if err := t.dir.setBest(path); err != nil {
			return err
		}
	}
	t.bestPath, err = t.dir.best()
	if err != nil {
		return err
	}
	if t.bestPath == "" {
		latest := t.dir.checkpointPath(t.iter)
		if err := t.dir.setBest(latest); err != nil {
			return err
		}
		t.bestPath = latest
	}
	return nil
}

// save writes the trainer's network and optimiser as a checkpoint.
func (t *Trainer) save(path string) error {
	return nn.SaveCheckpoint(path, &nn.Checkpoint{
		Game:      t.g.Name(),
		Step:      t.trainer.Steps(),
		Weights:   t.weights,
		Optimizer: t.trainer.State(),
		Meta: map[string]string{
			"iteration": strconv.Itoa(t.iter),
			"seed":      strconv.FormatUint(t.cfg.Seed, 10),
			"time":      time.Now().UTC().Format(time.RFC3339),
		},
	})
}

// Close releases the run folder's lock and open files.
func (t *Trainer) Close() error {
	var errs []error
	if t.trainer != nil {
		errs = append(errs, t.trainer.Close())
	}
	if t.metrics != nil {
		errs = append(errs, t.metrics.close())
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
// and now and then plays the ladder and the benchmark. Cancelling loses at
// most the games in flight and the training steps since the last
// checkpoint; Run then returns nil.
func (t *Trainer) Run(ctx context.Context) error {
	start := time.Now()
	if t.cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.cfg.Duration)
		defer cancel()
	}
	spCtx, stopSelfPlay := context.WithCancel(ctx)
	spDone := make(chan struct{})
	seed := t.cfg.Seed ^ uint64(t.iter)<<40 // a resumed run plays new games
	go func() {
		defer close(spDone)
		t.selfPlayLoop(spCtx, seed)
	}()
	var runErr error
	for t.cfg.Iterations == 0 || t.iter < t.cfg.Iterations {
		if ctx.Err() != nil {
			break
		}
		n := t.iter + 1
		if err := t.iteration(ctx, start); err != nil {
			if ctx.Err() == nil {
				runErr = fmt.Errorf("iteration %d: %w", n, err)
			}
			break
		}
	}
	stopSelfPlay()
	<-spDone
	t.log.Info("run stopped", "iterations", t.iter, "wall", time.Since(start).Round(time.Second))
	return runErr
}

// selfPlayLoop plays rounds of games with the best network until ctx is
// done, accumulating statistics for the metrics.
func (t *Trainer) selfPlayLoop(ctx context.Context, seed uint64) {
	for round := uint64(1); ctx.Err() == nil; round++ {
		t.mu.Lock()
		bestPath := t.bestPath
		t.mu.Unlock()
		err := t.selfPlayRound(ctx, bestPath, seed^round<<20)
		if err != nil && ctx.Err() == nil {
			t.log.Error("self-play failed", "err", err)
			t.mu.Lock()
			t.spErr = err
			t.mu.Unlock()
			return
		}
	}
}

// selfPlayRound plays GamesPerRound games with the network in bestPath.
func (t *Trainer) selfPlayRound(ctx context.Context, bestPath string, seed uint64) error {
	best, err := nn.LoadCheckpoint(bestPath)
	if err != nil {
		return err
	}
	newEval, _, err := directEvaluators(t.cfg.Evaluator, t.cfg.SelfPlay.MCTS.BatchSize, t.workers, best.Weights, t.g, true)
	if err != nil {
		return err
	}
	t0 := time.Now()
	st, err := generate(ctx, t.g, t.cfg.SelfPlay, t.workers, t.cfg.SelfPlay.GamesPerRound, seed, newEval, t.buf, nil)
	t.mu.Lock()
	t.spStats.add(st)
	t.spTime += time.Since(t0)
	t.mu.Unlock()
	if err != nil && ctx.Err() == nil {
		return err
	}
	t.log.Debug("self-play round", "best", filepath.Base(bestPath), "games", st.Games, "positions", st.Moves)
	return nil
}

// iteration is one round of the loop; it returns ctx's error if cancelled.
func (t *Trainer) iteration(ctx context.Context, start time.Time) error {
	n := t.iter + 1
	rec := map[string]any{"iteration": n}

	// Training, on whatever self-play has written so far.
	losses, steps, entropy, err := t.trainPhase(ctx, n)
	if err != nil {
		return err
	}
	rec["train"] = map[string]any{"steps": steps, "total_steps": t.trainer.Steps(),
		"loss_value": losses.Value, "loss_policy": losses.Policy, "loss_l2": losses.L2, "loss_total": losses.Total,
		"policy_entropy": entropy, "learning_rate": t.cfg.Train.LearningRateAt(t.trainer.Steps())}
	t.iter = n
	path := t.dir.checkpointPath(n)
	if err := t.save(path); err != nil {
		return err
	}

	// Gating.
	promoted, gate, err := t.gate(ctx, path)
	if err != nil {
		return err
	}
	rec["gate"] = gate
	if promoted {
		if err := t.dir.setBest(path); err != nil {
			return err
		}
		t.mu.Lock()
		t.bestPath = path
		t.mu.Unlock()
	}
	rec["best"] = filepath.Base(t.best())
	if ev := t.cfg.Ladder.Every; ev > 0 && n%ev == 0 {
		ladder, err := t.ladder(ctx)
		if err != nil {
			return err
		}
		rec["ladder"] = ladder
	}
	if ev := t.cfg.Bench.Every; ev > 0 && n%ev == 0 {
		bench, err := t.bench(ctx)
		if err != nil {
			return err
		}
		rec["bench"] = bench
	}
	t.mu.Lock()
	st, spTime := t.spStats, t.spTime
	t.spStats, t.spTime = selfPlayStats{}, 0
	t.mu.Unlock()
	secs := math.Max(spTime.Seconds(), 1e-9)
	rec["selfplay"] = map[string]any{
		"games": st.Games, "positions": st.Moves, "examples": st.Examples,
		"games_per_s": float64(st.Games) / secs, "positions_per_s": float64(st.Moves) / secs,
		"first_wins": st.Wins[0], "draws": st.Wins[1], "second_wins": st.Wins[2],
		"resigned": st.Resigned, "no_resign_games": st.NoResign, "false_resigns": st.False,
		"mean_length": float64(st.Moves) / math.Max(1, float64(st.Games)),
	}
	rec["replay"] = map[string]any{"window": t.buf.Len(), "added": t.buf.Added()}
	rec["wall_seconds"] = time.Since(start).Seconds()
	rec["time"] = time.Now().UTC().Format(time.RFC3339)
	t.log.Info("iteration", "n", n, "selfplay_games", st.Games, "positions/s", fmt.Sprintf("%.0f", float64(st.Moves)/secs),
		"replay", t.buf.Len(), "best", filepath.Base(t.best()))
	return t.metrics.write(rec)
}

// best is the checkpoint that currently plays self-play.
func (t *Trainer) best() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bestPath
}

// waitForData sleeps until the replay window can give another batch, or
// self-play has failed, or ctx is done.
func (t *Trainer) waitForData(ctx context.Context) error {
	t.mu.Lock()
	err := t.spErr
	t.mu.Unlock()
	if err != nil {
		return fmt.Errorf("self-play stopped: %w", err)
	}
	// Chunks from cmd/selfplay workers: a folder listing of every chunk of the
	// run, so once a second rather than at every poll.
	if time.Since(t.lastRefresh) >= time.Second {
		if _, err := t.buf.Refresh(); err != nil {
			return err
		}
		t.lastRefresh = time.Now()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(100 * time.Millisecond):
		return nil
	}
}

// trainPhase takes up to StepsPerIteration steps while the replay window is
// big enough and its reuse cap allows.
func (t *Trainer) trainPhase(ctx context.Context, n int) (train.Losses, int, float64, error) {
	var sum train.Losses
	for t.buf.Len() < t.cfg.Train.MinExamples {
		if err := t.waitForData(ctx); err != nil {
			return sum, 0, 0, err
		}
	}
	bs := t.cfg.Train.BatchSize
	batch := t.buf.NewBatch(bs)
	bar := t.bar(t.cfg.Train.StepsPerIteration, fmt.Sprintf("iter %d training", n))
	defer bar.Finish()
	steps := 0
	for steps < t.cfg.Train.StepsPerIteration {
		if err := ctx.Err(); err != nil {
			return sum, steps, 0, err
		}
		if err := t.buf.Sample(t.rng, batch); err != nil {
			if !errors.Is(err, replay.ErrNotEnough) {
				return sum, steps, 0, err
			}
			// The reuse cap: wait for self-play to add examples.
			if err := t.waitForData(ctx); err != nil {
				return sum, steps, 0, err
			}
			continue
		}
		l, err := t.trainer.Step(train.Batch{Obs: batch.Obs, Policy: batch.Policy, Value: batch.Value, Legal: batch.Legal})
		if err != nil {
			return sum, steps, 0, err
		}
		sum.Value += l.Value
		sum.Policy += l.Policy
		sum.L2 += l.L2
		sum.Total += l.Total
		steps++
		bar.Add(1)
	}
	if steps > 0 {
		k := float64(steps)
		sum = train.Losses{Value: sum.Value / k, Policy: sum.Policy / k, L2: sum.L2 / k, Total: sum.Total / k}
	}
	entropy, err := t.policyEntropy(batch)
	if err != nil {
		return sum, steps, 0, err
	}
	t.log.Info("training", "iteration", n, "steps", steps, "loss", fmt.Sprintf("%.4f", sum.Total),
		"value", fmt.Sprintf("%.4f", sum.Value), "policy", fmt.Sprintf("%.4f", sum.Policy), "entropy", fmt.Sprintf("%.3f", entropy))
	return sum, steps, entropy, nil
}

// policyEntropy is the mean entropy of the trained network's policy
// (softmax over legal moves) on the last batch.
func (t *Trainer) policyEntropy(batch *replay.Batch) (float64, error) {
	n := len(batch.Value)
	net, err := nn.NewNet(t.weights, n)
	if err != nil {
		return 0, err
	}
	na := t.g.NumActions()
	logits := make([]float32, n*na)
	values := make([]float32, n)
	if err := net.Forward(batch.Obs, n, logits, values); err != nil {
		return 0, err
	}
	total := 0.0
	for i := 0; i < n; i++ {
		l, legal := logits[i*na:(i+1)*na], batch.Legal[i*na:(i+1)*na]
		maxL := math.Inf(-1)
		for a := range l {
			if legal[a] > 0 {
				maxL = math.Max(maxL, float64(l[a]))
			}
		}
		z := 0.0
		for a := range l {
			if legal[a] > 0 {
				z += math.Exp(float64(l[a]) - maxL)
			}
		}
		for a := range l {
			if legal[a] > 0 {
				p := math.Exp(float64(l[a])-maxL) / z
				if p > 0 {
					total -= p * math.Log(p)
				}
			}
		}
	}
	return total / float64(n), nil
}

// netFactory is an arena player for a checkpoint file.
func netFactory(g games.Game, path string, sims int) (*arena.Factory, error) {
	return arena.Build(g, arena.Spec{Kind: "net", Params: []arena.Param{
		{Key: "path", Value: path}, {Key: "sims", Value: strconv.Itoa(sims)}}})
}

// gate plays the new checkpoint against the best in rounds and decides by
// SPRT (stopping early) or by win rate after all games.
func (t *Trainer) gate(ctx context.Context, candidate string) (bool, map[string]any, error) {
	gc := t.cfg.Gate
	if gc.Games == 0 {
		return true, map[string]any{"games": 0, "promoted": true, "reason": "gate.games = 0"}, nil
	}
	cand, err := netFactory(t.g, candidate, gc.Simulations)
	if err != nil {
		return false, nil, err
	}
	defer cand.Close()
	best, err := netFactory(t.g, t.bestPath, gc.Simulations)
	if err != nil {
		return false, nil, err
	}
	defer best.Close()
	round := 2 * max(1, runtime.GOMAXPROCS(0))
	var wdl arena.WDL
	verdict := "continue"
	var llr float64
	bar := t.bar(gc.Games, fmt.Sprintf("iter %d gating", t.iter))
	defer bar.Finish()
	for played := 0; played < gc.Games; {
		k := min(round, gc.Games-played)
		k += k % 2 // colours alternate within a round
		res, err := arena.Match(ctx, arena.MatchConfig{
			Games: k, Seed: t.cfg.Seed ^ uint64(t.iter)<<24 ^ uint64(played), RandomPlies: gc.RandomPlies,
			Progress: func(done, total int) { bar.Add(1) },
		}, t.g, []*arena.Factory{cand, best})
		if err != nil {
			return false, nil, err
		}
		r := res.WDL[0][1]
		wdl.Wins += r.Wins
		wdl.Draws += r.Draws
		wdl.Losses += r.Losses
		played += k
		if gc.Method == "sprt" {
			d, err := gc.SPRT.Test(wdl.Wins, wdl.Draws, wdl.Losses)
			if err != nil {
				return false, nil, err
			}
			llr = d.LLR
			verdict = d.Verdict.String()
			if d.Verdict != elo.Continue {
				break
			}
		}
	}
	promoted := false
	switch gc.Method {
	case "sprt":
		// Out of games before a decision: promote only if the evidence leans
		// to H1 (LLR above zero) and the candidate scored above even.
		promoted = verdict == elo.Accept.String() || (verdict == "continue" && llr > 0 && wdl.Score() > 0.5)
	case "winrate":
		_, promoted = elo.WinRate(wdl.Wins, wdl.Draws, wdl.Losses, gc.Threshold)
	}
	out := map[string]any{"candidate": filepath.Base(candidate), "best": filepath.Base(t.bestPath),
		"wins": wdl.Wins, "draws": wdl.Draws, "losses": wdl.Losses, "score": wdl.Score(),
		"elo_diff": elo.FromScore(wdl.Score()), "method": gc.Method, "verdict": verdict, "llr": llr, "promoted": promoted}
	t.log.Info("gating", "candidate", filepath.Base(candidate), "W", wdl.Wins, "D", wdl.Draws, "L", wdl.Losses,
		"verdict", verdict, "promoted", promoted)
	return promoted, out, nil
}

// ladder rates the best network against the fixed players: one match per
// opponent, one Elo fit with the first fixed player as the anchor at 0.
func (t *Trainer) ladder(ctx context.Context) (map[string]any, error) {
	lc := t.cfg.Ladder
	bestF, err := netFactory(t.g, t.bestPath, lc.Simulations)
	if err != nil {
		return nil, err
	}
	defer bestF.Close()
	n := len(lc.Players) + 1
	table, err := elo.NewTable(n)
	if err != nil {
		return nil, err
	}
	names := []string{"best"}
	scores := map[string]float64{}
	bar := t.bar(lc.Games*len(lc.Players), fmt.Sprintf("iter %d ladder", t.iter))
	defer bar.Finish()
	for i, specText := range lc.Players {
		spec, err := arena.ParseSpec(specText)
		if err != nil {
			return nil, fmt.Errorf("ladder.players[%d]: %w", i, err)
		}
		f, err := arena.Build(t.g, spec)
		if err != nil {
			return nil, fmt.Errorf("ladder.players[%d]: %w", i, err)
		}
		res, err := arena.Match(ctx, arena.MatchConfig{Games: lc.Games, Seed: t.cfg.Seed ^ uint64(i)<<32 ^ uint64(t.iter),
			RandomPlies: lc.RandomPlies, Progress: func(int, int) { bar.Add(1) }}, t.g, []*arena.Factory{bestF, f})
		f.Close()
		if err != nil {
			return nil, err
		}
		r := res.WDL[0][1]
		if err := table.AddN(0, i+1, float64(r.Games()), float64(r.Wins)+float64(r.Draws)/2); err != nil {
			return nil, err
		}
		names = append(names, specText)
		scores[specText] = r.Score()
	}
	cfg := elo.DefaultConfig()
	cfg.Anchor = 1
	ratings, err := elo.Fit(table, cfg)
	out := map[string]any{"scores": scores, "players": names}
	if err != nil {
		out["error"] = err.Error()
		t.log.Warn("ladder: Elo fit failed", "err", err)
		return out, nil
	}
	out["elo"] = ratings.Elo
	out["elo_low"] = ratings.Low
	out["elo_high"] = ratings.High
	out["extreme"] = ratings.Extreme
	t.log.Info("ladder", "best_elo", fmt.Sprintf("%.0f", ratings.Elo[0]), "scores", scores)
	return out, nil
}

// bench measures the best network's mistake rate on the configured Pons sets.
func (t *Trainer) bench(ctx context.Context) (map[string]any, error) {
	bc := t.cfg.Bench
	dir := bc.Dir
	if dir == "" {
		d, err := refdata.Dir()
		if err != nil {
			t.log.Warn("bench skipped: no reference data", "err", err)
			return map[string]any{"skipped": err.Error()}, nil
		}
		dir = filepath.Join(d, "connect4")
	}
	f, err := netFactory(t.g, t.bestPath, bc.Simulations)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]any{}
	for _, set := range bc.Sets {
		rate, n, err := benchSet(ctx, t.cfg.RunDir, dir, bc.Verdicts, set, bc.Positions, f, t.cfg.Seed)
		if err != nil {
			return nil, err
		}
		out[set] = rate
		t.log.Info("bench", "set", set, "mistake_rate", fmt.Sprintf("%.3f", rate), "positions", n)
	}
	return out, nil
}

// bar returns a progress bar writing to opt.Progress, or a silent one.
func (t *Trainer) bar(n int, desc string) *progressbar.ProgressBar {
	w := t.opt.Progress
	if w == nil {
		w = io.Discard
	}
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(200*time.Millisecond))
}

// add sums another round's statistics into s.
func (s *selfPlayStats) add(o selfPlayStats) {
	s.Games += o.Games
	s.Positions += o.Positions
	s.Examples += o.Examples
	for i := range s.Wins {
		s.Wins[i] += o.Wins[i]
	}
	s.Resigned += o.Resigned
	s.NoResign += o.NoResign
	s.False += o.False
	s.Moves += o.Moves
}
