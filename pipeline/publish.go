package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"tabula/bus"
	"tabula/nn"
)

// openBus starts (or reaches) the run's bus, opens the trainer's consumer
// and ingest ledger, and publishes the config and the best network for
// workers.
func (t *Trainer) openBus() error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var err error
	t.server, t.bus, err = startBus(ctx, t.dir, t.cfg, t.opt.Bus, t.log)
	if err != nil {
		return err
	}
	cons, err := t.bus.Consumer(ctx, trainerName)
	if err != nil {
		return err
	}
	t.feed = busFeed{cons}
	t.in, err = openIngest(t.dir.path(ingestLedger), t.dir.path(replayDir), t.g, t.buf, t.cfg.SelfPlay.ChunkGames, t.cfg.Bus.MaxStaleGenerations, t.currentGen, t.log)
	if err != nil {
		return err
	}
	data, err := t.cfg.Marshal()
	if err != nil {
		return err
	}
	if err := t.bus.PutCheckpoint(ctx, configObject, data); err != nil {
		return err
	}
	if err := t.publishBest(ctx); err != nil {
		return err
	}
	url := t.opt.Bus.URL
	if t.server != nil {
		url = t.server.URL()
	}
	t.log.Info("bus ready", "url", url, "embedded", t.server != nil, "bus.run", t.cfg.Bus.Run,
		"workers_join_with", joinHint(url, t.cfg.Bus.Run, t.opt.Bus.Token != ""))
	return nil
}

// publishBest puts the best network (weights only) into the bus's
// checkpoint store and points the best pointer at it, then deletes stored
// networks older than the last few bests.
func (t *Trainer) publishBest(ctx context.Context) error {
	t.mu.Lock()
	path, gen := t.bestPath, t.bestGen
	t.mu.Unlock()
	name := filepath.Base(path)
	data, err := os.ReadFile(t.dir.path(checkpointDir, bestWeightsFile))
	if err != nil {
		return fmt.Errorf("publishing the best network: %w", err)
	}
	if err := t.bus.PutCheckpoint(ctx, name, data); err != nil {
		return err
	}
	if err := t.bus.SetBest(ctx, bus.Best{Name: name, Generation: gen}); err != nil {
		return err
	}
	names, err := t.bus.Checkpoints(ctx)
	if err != nil {
		t.log.Warn("bus: listing stored networks failed", "err", err)
		return nil
	}
	var cks []string
	for _, n := range names {
		if ckptName.MatchString(n) && n != name {
			cks = append(cks, n)
		}
	}
	for _, n := range cks[:max(0, len(cks)-keepBusCheckpoints)] {
		if err := t.bus.DeleteCheckpoint(ctx, n); err != nil && !isNotFound(err) {
			t.log.Warn("bus: deleting an old network failed", "name", n, "err", err)
		}
	}
	return nil
}

// keepBusCheckpoints is how many earlier bests stay in the bus's store
// beside the current one, for workers still fetching them.
const keepBusCheckpoints = 2

// generationOf is the generation of a best checkpoint: how many promoted
// checkpoints (the first one included) come before it.
func (t *Trainer) generationOf(path string) int {
	name := filepath.Base(path)
	gen := 0
	for p := range t.promoted {
		if p <= name && p != filepath.Base(t.dir.checkpointPath(0)) {
			gen++
		}
	}
	return gen
}

// currentGen is the generation of the best network.
func (t *Trainer) currentGen() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bestGen
}

// setBest makes path the best checkpoint: the pointer, the weights-only
// copy, and the network self-play loads next.
func (t *Trainer) setBest(ctx context.Context, path string) error {
	if err := t.dir.setBest(path); err != nil {
		return err
	}
	t.promoted[filepath.Base(path)] = true
	gen := t.generationOf(path)
	t.mu.Lock()
	t.bestPath, t.bestGen = path, gen
	t.mu.Unlock()
	if err := t.ensureBestWeights(); err != nil {
		return err
	}
	if t.bus == nil { // at New, before the bus: openBus publishes it
		return nil
	}
	t.bestUnpublished = true
	t.retryPublishBest(ctx)
	return nil
}

// retryPublishBest publishes the best network to the bus if the last
// promotion's publication has not gone through. The promotion itself is
// durable on disk (the pointer and best-weights.tbn), so a bus that does not
// answer within a minute, or Ctrl-C, does not stop the run: workers keep the
// previous network until a later try (each iteration, and every start)
// succeeds.
func (t *Trainer) retryPublishBest(ctx context.Context) {
	if !t.bestUnpublished || t.bus == nil {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := t.publishBest(pctx); err != nil {
		if ctx.Err() != nil {
			t.log.Info("the best network was not published to the bus before stopping; the next start publishes it", "err", err)
			return
		}
		t.log.Warn("publishing the best network to the bus failed; workers keep the previous one until the next iteration tries again", "err", err)
		return
	}
	t.bestUnpublished = false
}

// ensureBestWeights writes checkpoints/best-weights.tbn, the best network
// without the optimiser's state (a third of the size), for use outside
// training, unless it is already a copy of the current best.
func (t *Trainer) ensureBestWeights() error {
	out := t.dir.path(checkpointDir, bestWeightsFile)
	name := filepath.Base(t.bestPath)
	if c, err := nn.LoadCheckpoint(out); err == nil && c.Meta["source"] == name {
		return nil
	}
	c, err := t.loadChecked(t.bestPath)
	if err != nil {
		return fmt.Errorf("weights-only copy of the best: %w", err)
	}
	c.Optimizer = nil
	if c.Meta == nil {
		c.Meta = map[string]string{}
	}
	c.Meta["source"] = name
	return nn.SaveCheckpoint(out, c)
}

// best is the checkpoint that currently plays self-play.
func (t *Trainer) best() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bestPath
}
