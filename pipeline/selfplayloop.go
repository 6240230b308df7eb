package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"tabula/nn"
	"tabula/nn/gemm"
)

// Self-play supervision: a failed round is retried after a backoff that
// doubles, and after selfPlayMaxFailures failures in a row the run stops
// with an error rather than train on a buffer that no longer grows.
var (
	selfPlayMaxFailures = 4
	selfPlayBackoff     = 500 * time.Millisecond
)

// ingestLoop moves games from the bus into the replay folder until ctx
// ends. A bus that cannot be read (a server away) is waited for; a replay
// folder that cannot be written stops the run after ingestMaxFailures
// batches in a row, as self-play does.
func (t *Trainer) ingestLoop(ctx context.Context) error {
	failures := 0
	backoff := selfPlayBackoff
	fetchFailing := false
	for ctx.Err() == nil {
		_, fetchErr, err := t.in.step(ctx, t.feed, 500*time.Millisecond)
		if ctx.Err() != nil {
			return nil
		}
		switch {
		case err == nil:
			if fetchFailing {
				t.log.Info("bus: reading games again")
			}
			failures, backoff, fetchFailing = 0, selfPlayBackoff, false
			continue
		case fetchErr:
			if !fetchFailing {
				t.log.Warn("bus: reading games failed; retrying (training goes on with the games it has)", "err", err)
			}
			fetchFailing = true
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		failures++
		if failures >= ingestMaxFailures {
			t.log.Error("writing games into the replay folder failed; stopping the run", "failures", failures, "err", err)
			return fmt.Errorf("self-play failed %d times in a row: games could not be written into the replay folder (training on without new games would only overfit): %w", failures, err)
		}
		t.log.Warn("writing games into the replay folder failed; retrying", "failures", failures, "of", ingestMaxFailures, "retry_in", backoff, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff *= 2
	}
	return nil
}

// drainIngest ingests what the bus holds for the trainer until it is
// empty or limit has passed. An empty fetch ends it only when the stream
// has nothing pending either: on a loaded machine a fetch can come back
// empty while games wait.
func (t *Trainer) drainIngest(limit time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for ctx.Err() == nil {
		n, _, err := t.in.step(ctx, t.feed, 200*time.Millisecond)
		if err != nil {
			if ctx.Err() == nil {
				t.log.Warn("bus: games left for the next start", "err", err)
			}
			return
		}
		if n > 0 {
			continue
		}
		p, ok := t.feed.(interface {
			pending(context.Context) (uint64, error)
		})
		if !ok {
			return
		}
		if k, err := p.pending(ctx); err != nil || k == 0 {
			return
		}
	}
	t.log.Warn("bus: games left for the next start", "err", "the drain took longer than "+limit.String())
}

// selfPlayLoop plays rounds of games with the best network until ctx is
// done, accumulating statistics for the metrics. A failed round is retried
// after a growing pause; it returns an error once selfPlayMaxFailures rounds
// in a row have failed.
func (t *Trainer) selfPlayLoop(ctx context.Context, seed uint64) error {
	failures := 0
	backoff := selfPlayBackoff
	for round := uint64(1); ctx.Err() == nil; round++ {
		t.mu.Lock()
		bestPath, gen := t.bestPath, t.bestGen
		t.mu.Unlock()
		err := t.selfPlayRound(ctx, bestPath, gen, seed^round<<20)
		if err == nil || ctx.Err() != nil {
			failures, backoff = 0, selfPlayBackoff
			continue
		}
		failures++
		if failures >= selfPlayMaxFailures {
			t.log.Error("self-play failed; stopping the run", "failures", failures, "err", err)
			return fmt.Errorf("self-play failed %d times in a row (training on without new games would only overfit): %w", failures, err)
		}
		t.log.Warn("self-play failed; retrying", "failures", failures, "of", selfPlayMaxFailures, "retry_in", backoff, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff *= 2
	}
	return nil
}

// selfPlayRound plays GamesPerRound games with the network in bestPath, of
// generation gen, and publishes them on the bus.
func (t *Trainer) selfPlayRound(ctx context.Context, bestPath string, gen int, seed uint64) error {
	// The network is loaded, folded and (precision auto) checked once per
	// best checkpoint, not once per round.
	if bestPath != t.spModelPath {
		best, err := nn.LoadCheckpoint(bestPath)
		if err != nil {
			return err
		}
		m, err := nn.NewModelFor(best.Weights, t.g, t.cfg.Evaluator.Precision)
		if err != nil {
			return err
		}
		if c := m.AutoCheck(); c != "" {
			t.log.Info("precision check", "best", filepath.Base(bestPath), "chose", m.Precision().String(), "checks", c)
		}
		// The evaluators of the network before, if any, run the new one
		// in the same cache and buffers.
		if t.spEval, err = runModel(t.spEval, t.cfg.Evaluator, t.cfg.SelfPlay.MCTS.BatchSize, t.workers, m, t.g); err != nil {
			return err
		}
		t.spModel, t.spModelPath = m, bestPath
	}
	newEval, evalStats := t.spEval.newEval, t.spEval.stats
	t.meter.setGeneration(gen)
	sink := &busSink{g: t.g, pub: busPublisher{t.bus}, worker: trainerName, generation: gen, best: t.currentGen,
		maxStale: t.cfg.Bus.MaxStaleGenerations, timeout: 30 * time.Second, log: t.log}
	// Each finished game goes into the iteration's metrics at once, with
	// the time and network calls since the game before it: a round may
	// outlast an iteration.
	last := evalStats() // the evaluators' counters run on from the rounds before
	mark := time.Now()
	var cpuSeen time.Duration // the games' thread CPU accounted so far
	account := func(one selfPlayStats) {
		cpuSeen += one.CPU
		es, now := evalStats(), time.Now()
		one.Leaves, one.NetEvals = es.Positions-last.Positions, es.Evaluated-last.Evaluated
		t.mu.Lock()
		if es.Precision != t.precision {
			t.log.Info("self-play precision", "precision", es.Precision, "evaluator.precision", t.cfg.Evaluator.Precision,
				"kernel", gemm.LowPrecisionKernel(), "generation", gen)
			t.precision = es.Precision
		}
		t.spStats.add(one)
		t.spTime += now.Sub(mark)
		t.mu.Unlock()
		last, mark = es, now
	}
	st, err := generate(ctx, t.g, t.cfg.SelfPlay, t.workers, t.cfg.SelfPlay.GamesPerRound, seed, newEval, sink,
		newRecordWriter(t.cfg, t.dir.root, "selfplay", trainerName, t.g, gen, "", seed), account)
	t.meter.add(st.Games, st.Moves)
	account(selfPlayStats{CPU: st.CPU - cpuSeen}) // the games cut short: their time, CPU and network calls
	if errors.Is(err, errStale) {
		// A new best came in the middle of the round: play with it.
		t.log.Debug("self-play round cut short: a newer best", "err", err)
		return nil
	}
	if err != nil && ctx.Err() == nil {
		return err
	}
	t.log.Debug("self-play round", "best", filepath.Base(bestPath), "games", st.Games, "positions", st.Moves)
	return nil
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
	s.Leaves += o.Leaves
	s.NetEvals += o.NetEvals
	s.CPU += o.CPU
}
