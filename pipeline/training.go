package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"tabula/internal/metrics"
	"tabula/nn"
	"tabula/nn/train"
	"tabula/replay"
)

// trainIteration is the first half of one round of the loop: training, and
// the new checkpoint, after which t.tail holds the stages still to run. It
// returns ctx's error if cancelled.
func (t *Trainer) trainIteration(ctx context.Context) error {
	n := t.iter + 1
	t.retryPublishBest(ctx)

	// Training, on whatever self-play has written so far: the chunks that
	// cmd/selfplay -run workers wrote since the last look are taken first.
	if err := t.refreshReplay(); err != nil {
		return err
	}
	sum, steps, entropy, err := t.trainPhase(ctx, n)
	if err != nil {
		if steps > 0 && ctx.Err() != nil {
			// Interrupted (Ctrl-C, the duration, self-play failing): keep the
			// steps taken in a checkpoint of the unfinished iteration.
			t.iterSteps += steps
			t.iterLoss = addLosses(t.iterLoss, sum)
			path := t.dir.checkpointPath(n)
			if serr := t.save(path, nil); serr != nil {
				return errors.Join(err, serr)
			}
			t.log.Info("saved the unfinished iteration", "iteration", n, "steps_done", t.iterSteps,
				"of", t.cfg.Train.StepsPerIteration, "file", path)
		}
		return err
	}
	// The losses are the means over the iteration's steps, those taken
	// before a restart included.
	before := t.iterSteps
	losses := meanLosses(addLosses(t.iterLoss, sum), before+steps)
	t.iterSteps, t.iterLoss = 0, train.Losses{}
	tr := &metrics.Train{Steps: metrics.Ptr(steps), TotalSteps: t.trainer.Steps(),
		LossValue: metrics.Num(losses.Value), LossPolicy: metrics.Num(losses.Policy), LossL2: metrics.Num(losses.L2), LossTotal: metrics.Num(losses.Total),
		PolicyEntropy: metrics.Num(entropy), LearningRate: metrics.Num(t.trainer.LearningRate())}
	if before > 0 {
		tr.StepsBeforeRestart = before
	}
	if nc := t.cfg.Network; nc.Ownership || nc.Score {
		tr.LossOwnership, tr.LossScore = metrics.Num(losses.Ownership), metrics.Num(losses.Score)
	}
	if t.cfg.Network.OpponentPolicy {
		tr.LossOppPolicy = metrics.Num(losses.OppPolicy)
	}
	t.log.Info("training", "iteration", n, "steps", before+steps, "loss", fmt.Sprintf("%.4f", losses.Total),
		"value", fmt.Sprintf("%.4f", losses.Value), "policy", fmt.Sprintf("%.4f", losses.Policy), "entropy", fmt.Sprintf("%.3f", entropy))
	trainJSON, err := json.Marshal(tr)
	if err != nil {
		return fmt.Errorf("checkpoint metadata: %w", err)
	}
	t.iter = n
	path := t.dir.checkpointPath(n)
	if err := t.save(path, map[string]string{trainMetaKey: string(trainJSON)}); err != nil {
		return err
	}
	t.tail = &iterTail{Iteration: n, Candidate: filepath.Base(path), Steps: t.trainer.Steps(), train: tr}
	return nil
}

// trainMetaKey is the checkpoint metadata that holds the metrics line's
// train record of the iteration it ends (JSON), for a restart that writes
// the line.
const trainMetaKey = "train_metrics"

// addLosses sums two sums of losses.
func addLosses(a, b train.Losses) train.Losses {
	return train.Losses{Value: a.Value + b.Value, Policy: a.Policy + b.Policy, L2: a.L2 + b.L2, Total: a.Total + b.Total,
		Ownership: a.Ownership + b.Ownership, Score: a.Score + b.Score, OppPolicy: a.OppPolicy + b.OppPolicy}
}

// meanLosses divides a sum of n steps' losses by n; it is zero without steps.
func meanLosses(sum train.Losses, n int) train.Losses {
	if n == 0 {
		return train.Losses{}
	}
	k := float64(n)
	return train.Losses{Value: sum.Value / k, Policy: sum.Policy / k, L2: sum.L2 / k, Total: sum.Total / k,
		Ownership: sum.Ownership / k, Score: sum.Score / k, OppPolicy: sum.OppPolicy / k}
}

// formatLosses writes a sum of losses for checkpoint metadata: the seven
// terms, comma-separated.
func formatLosses(l train.Losses) string {
	var b strings.Builder
	for i, v := range []float64{l.Value, l.Policy, l.L2, l.Total, l.Ownership, l.Score, l.OppPolicy} {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return b.String()
}

// parseLosses reads formatLosses's text; anything else is zero.
func parseLosses(s string) train.Losses {
	f := strings.Split(s, ",")
	if len(f) != 7 {
		return train.Losses{}
	}
	v := make([]float64, 7)
	for i := range f {
		var err error
		if v[i], err = strconv.ParseFloat(f[i], 64); err != nil {
			return train.Losses{}
		}
	}
	return train.Losses{Value: v[0], Policy: v[1], L2: v[2], Total: v[3], Ownership: v[4], Score: v[5], OppPolicy: v[6]}
}

// waitForData sleeps until the replay window can give another batch, or
// ctx is done (self-play failing for good cancels it).
func (t *Trainer) waitForData(ctx context.Context) error {
	// Chunks from cmd/selfplay workers: a folder listing of every chunk of the
	// run, so once a second rather than at every poll.
	if time.Since(t.lastRefresh) >= time.Second {
		if err := t.refreshReplay(); err != nil {
			return err
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(100 * time.Millisecond):
		return nil
	}
}

// refreshReplay adds the chunks other processes wrote into the replay
// folder since the last look (only new files are read).
func (t *Trainer) refreshReplay() error {
	if _, err := t.buf.Refresh(); err != nil {
		return err
	}
	t.lastRefresh = time.Now()
	return nil
}

// dropLearningRate drops the learning rate of schedule "timed" once this
// process has run train.drop_at of its duration. Duration counts per
// process, so a resumed run trains at the full rate again, then drops at
// the same share of its own duration.
func (t *Trainer) dropLearningRate() {
	tc := t.cfg.Train
	if tc.Schedule != "timed" || t.cfg.Duration <= 0 {
		return
	}
	if time.Since(t.started) >= time.Duration(tc.DropAt*float64(t.cfg.Duration)) && t.trainer.DropLearningRate() {
		t.log.Info("learning rate dropped (train.schedule timed)", "learning_rate", t.trainer.LearningRate(),
			"after", time.Since(t.started).Round(time.Second), "steps", t.trainer.Steps())
	}
}

// trainPhase takes the steps of iteration n still to take (StepsPerIteration
// less those taken before a restart) while the replay window is big enough
// and its reuse cap allows. It returns the sums of the steps' losses, the
// number of steps, and the trained policy's entropy on the last batch.
func (t *Trainer) trainPhase(ctx context.Context, n int) (train.Losses, int, float64, error) {
	var sum train.Losses
	if t.buf.Len() < t.cfg.Train.MinExamples {
		fill := t.bar(t.cfg.Train.MinExamples, "self-play filling the replay window (train.min_examples)")
		for t.buf.Len() < t.cfg.Train.MinExamples {
			fill.Set(t.buf.Len())
			if err := t.waitForData(ctx); err != nil {
				fill.Finish()
				return sum, 0, 0, err
			}
		}
		fill.Set(t.cfg.Train.MinExamples)
		fill.Finish()
	}
	t.dropLearningRate()
	bs := t.cfg.Train.BatchSize
	batch := t.buf.NewBatch(bs)
	todo := max(0, t.cfg.Train.StepsPerIteration-t.iterSteps)
	bar := t.bar(todo, fmt.Sprintf("iter %d training", n))
	defer bar.Finish()
	steps := 0
	for steps < todo {
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
		l, err := t.trainer.Step(train.Batch{Obs: batch.Obs, Policy: batch.Policy, Value: batch.Value, Legal: batch.Legal,
			Ownership: batch.Ownership, Score: batch.Score, AuxWeight: batch.AuxWeight, OppPolicy: batch.OppPolicy})
		if err != nil {
			return sum, steps, 0, err
		}
		sum.Value += l.Value
		sum.Policy += l.Policy
		sum.L2 += l.L2
		sum.Total += l.Total
		sum.Ownership += l.Ownership
		sum.Score += l.Score
		sum.OppPolicy += l.OppPolicy
		steps++
		bar.Add(1)
	}
	if steps == 0 {
		// The steps were all taken before a restart: a batch of the window
		// to measure the entropy on.
		if err := t.buf.Sample(t.rng, batch); err != nil {
			t.log.Warn("policy entropy not measured: no batch to measure it on", "err", err)
			return sum, steps, math.NaN(), nil
		}
	}
	entropy, err := t.policyEntropy(batch)
	if err != nil {
		return sum, steps, 0, err
	}
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
