package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"tabula/nn"
	"tabula/nn/models"
	"tabula/nn/train"
)

// resume loads the newest readable checkpoint, or creates iteration 0 from
// the seed, and the best pointer.
func (t *Trainer) resume() error {
	cks, err := t.dir.checkpoints()
	if err != nil {
		return fmt.Errorf("run folder: %w", err)
	}
	var ck *nn.Checkpoint
	loaded := "" // the file ck came from
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
		ck, loaded = c, cks[i]
		t.iter, _ = strconv.Atoi(c.Meta["iteration"])
		t.iterSteps, _ = strconv.Atoi(c.Meta["iteration_steps"])
		t.iterLoss = parseLosses(c.Meta["iteration_losses"])
		t.runBase, _ = strconv.ParseFloat(c.Meta["run_seconds"], 64)
		if t.iterSteps > 0 {
			t.log.Info("resuming an interrupted iteration", "iteration", t.iter+1, "steps_done", t.iterSteps, "file", cks[i])
		}
	}
	switch {
	case ck == nil && t.cfg.Init != "":
		if ck, err = t.initCheckpoint(); err != nil {
			return err
		}
	case ck == nil:
		p, h, w := t.g.ObservationShape()
		shape := nn.Shape{Planes: p, Height: h, Width: w, Actions: t.g.NumActions()}
		weights, err := nn.NewWeights(t.cfg.Network, shape, rand.New(rand.NewPCG(t.cfg.Seed, 0x6e6e)))
		if err != nil {
			return err
		}
		ck = &nn.Checkpoint{Game: t.g.Name(), Weights: weights}
	case ck.Weights.Config != t.cfg.Network:
		mine, theirs := ck.Weights.Config.Diff(t.cfg.Network)
		return fmt.Errorf("checkpoint network has %s; the config's network asks for %s", mine, theirs)
	}
	t.initFrom = map[string]string{}
	for _, k := range []string{metaInit, metaInitSHA256} {
		if v := ck.Meta[k]; v != "" {
			t.initFrom[k] = v
		}
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
		if err := t.save(path, nil); err != nil {
			return err
		}
		if err := t.dir.setBest(path); err != nil {
			return err
		}
	}
	t.promoted, t.rejected = readPromotions(t.dir.path(metricsFile), t.log)
	ms := readMetricsState(t.dir.path(metricsFile))
	t.runBase = math.Max(t.runBase, ms.runSeconds)
	if t.iter > 0 && t.iterSteps == 0 && !ms.iterations[t.iter] {
		// The checkpoint was saved, the stages after it did not all end.
		t.tail = t.pendingTail(ck)
	} else if err := os.Remove(t.dir.path(checkpointDir, tailFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("run folder: %w", err)
	}
	if l := readLastLadder(t.dir.path(metricsFile)); l.Ladder != nil {
		t.ladderBest = l.Best
	}
	best, err := t.dir.best()
	if err == nil && best != "" {
		_, err = t.loadChecked(best)
	}
	switch {
	case err != nil:
		// Damage from outside (the pointer or the file it names): the run
		// goes on from the newest promoted checkpoint that still loads.
		fallback := t.fallbackBest(best, loaded)
		t.log.Error("best checkpoint unreadable; falling back to the newest readable promoted checkpoint",
			"best", best, "err", err, "fallback", fallback)
		if err := t.setBest(context.Background(), fallback); err != nil {
			return err
		}
	case best == "":
		if err := t.setBest(context.Background(), t.dir.checkpointPath(t.iter)); err != nil {
			return err
		}
	default:
		t.bestPath = best
		t.bestGen = t.generationOf(best)
		if err := t.ensureBestWeights(); err != nil {
			return err
		}
	}
	return nil
}

// loadChecked loads a checkpoint and checks that it is of this run's game.
func (t *Trainer) loadChecked(path string) (*nn.Checkpoint, error) {
	c, err := nn.LoadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	if err := c.CheckGame(t.g); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return c, nil
}

// fallbackBest returns the newest promoted checkpoint other than broken
// that loads (fallbackCheckpoint), and otherwise latest, the checkpoint
// training resumed from.
func (t *Trainer) fallbackBest(broken, latest string) string {
	if path := fallbackCheckpoint(t.dir.root, t.promoted, t.g, broken); path != "" {
		return path
	}
	if latest == "" {
		return t.dir.checkpointPath(t.iter)
	}
	return latest
}

// save writes the trainer's network and optimiser as a checkpoint, with
// extra in its metadata.
func (t *Trainer) save(path string, extra map[string]string) error {
	meta := map[string]string{
		"iteration":   strconv.Itoa(t.iter),
		"seed":        strconv.FormatUint(t.cfg.Seed, 10),
		"time":        time.Now().UTC().Format(time.RFC3339),
		"run_seconds": strconv.FormatFloat(t.runSeconds(), 'f', 3, 64),
	}
	if t.iterSteps > 0 {
		// An interrupted iteration: these steps count towards iteration
		// iter+1, which a restart finishes.
		meta["iteration_steps"] = strconv.Itoa(t.iterSteps)
		meta["iteration_losses"] = formatLosses(t.iterLoss)
	}
	for k, v := range t.initFrom {
		meta[k] = v
	}
	for k, v := range extra {
		meta[k] = v
	}
	return nn.SaveCheckpoint(path, &nn.Checkpoint{
		Game:      t.g.Name(),
		Step:      t.trainer.Steps(),
		Weights:   t.weights,
		Optimizer: t.trainer.State(),
		Meta:      meta,
	})
}

// runSeconds is the run's time: before this process's Run, and since.
func (t *Trainer) runSeconds() float64 {
	if t.started.IsZero() {
		return t.runBase
	}
	return t.runBase + time.Since(t.started).Seconds()
}

// The checkpoint metadata keys that record the network a run started from
// (Config.Init): as the config names it, and the file's SHA-256.
const (
	metaInit       = "init"
	metaInitSHA256 = "init_sha256"
)

// initCheckpoint loads the network a new run starts from (Config.Init):
// its weights with a fresh optimiser and step count, checked against the
// run's game and network config.
func (t *Trainer) initCheckpoint() (*nn.Checkpoint, error) {
	ref := t.cfg.Init
	path, err := models.Path(ref)
	if err != nil {
		return nil, fmt.Errorf("init %s: %w", ref, err)
	}
	c, err := nn.LoadCheckpoint(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && path == ref && strings.Contains(ref, ":") {
			return nil, fmt.Errorf("init: %w (init takes a file path, or model:NAME for a shipped network)", err)
		}
		return nil, fmt.Errorf("init: %w", err)
	}
	if err := c.CheckGame(t.g); err != nil {
		return nil, fmt.Errorf("init %s: %w", ref, err)
	}
	if c.Weights.Config != t.cfg.Network {
		mine, theirs := c.Weights.Config.Diff(t.cfg.Network)
		return nil, fmt.Errorf("init %s: the network has %s; the config's network asks for %s (set the config's network to the file's)", ref, mine, theirs)
	}
	sum, err := models.FileSHA256(path)
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	t.log.Info("starting from a trained network", "init", ref, "file", path, "sha256", sum)
	return &nn.Checkpoint{Game: t.g.Name(), Weights: c.Weights,
		Meta: map[string]string{metaInit: ref, metaInitSHA256: sum}}, nil
}
