package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tabula/internal/atomicfile"
	"tabula/nn"
)

// tailFile (in checkpoints/) records what the stages after the newest
// checkpoint have decided, until its iteration's metrics line is written.
const tailFile = "iteration.json"

// iterTail is what the stages after an iteration's checkpoint have decided
// so far. It is written to checkpoints/iteration.json as each stage ends,
// until the iteration's metrics line is written, so that a restart finishes
// the iteration from the stage that was cut and never repeats one that
// ended: each checkpoint is gated once.
type iterTail struct {
	Iteration int    `json:"iteration"`
	Candidate string `json:"candidate"` // the checkpoint's file name
	// Steps are the checkpoint's training steps: they tell it from a later
	// checkpoint of the same name (one that replaced it after damage).
	Steps    int64          `json:"total_steps"`
	Gate     map[string]any `json:"gate,omitempty"`
	Promoted bool           `json:"promoted"`
	Ladder   map[string]any `json:"ladder,omitempty"`
	Bench    map[string]any `json:"bench,omitempty"`

	train   map[string]any // the metrics line's train record
	resumed bool           // a restart finishes it
}

// pendingTail is the unfinished tail of the iteration that ck (the newest
// checkpoint, a whole iteration) ends: its train record from the
// checkpoint, and the stages that ended before the restart from
// checkpoints/iteration.json where that file is of this checkpoint.
func (t *Trainer) pendingTail(ck *nn.Checkpoint) *iterTail {
	name := filepath.Base(t.dir.checkpointPath(t.iter))
	tl := &iterTail{Iteration: t.iter, Candidate: name, Steps: ck.Step, resumed: true}
	if err := json.Unmarshal([]byte(ck.Meta[trainMetaKey]), &tl.train); err != nil || tl.train == nil {
		// A checkpoint written before the record was kept in it.
		tl.train = map[string]any{"total_steps": ck.Step}
	}
	path := t.dir.path(checkpointDir, tailFile)
	data, err := os.ReadFile(path)
	var done iterTail
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		t.log.Warn("stages of the last iteration unreadable; running them again", "file", path, "err", err)
	case json.Unmarshal(data, &done) != nil:
		t.log.Warn("stages of the last iteration unreadable; running them again", "file", path, "err", "not JSON")
	case done.Iteration != tl.Iteration || done.Candidate != name || done.Steps != ck.Step:
		t.log.Warn("stages on record are of another checkpoint; running them again", "file", path,
			"record", fmt.Sprintf("iteration %d %s step %d", done.Iteration, done.Candidate, done.Steps),
			"checkpoint", fmt.Sprintf("iteration %d %s step %d", tl.Iteration, name, ck.Step))
	default:
		tl.Gate, tl.Promoted, tl.Ladder, tl.Bench = done.Gate, done.Promoted, done.Ladder, done.Bench
	}
	var left []string
	if tl.Gate == nil {
		left = append(left, "gating")
	}
	if ev := t.cfg.Ladder.Every; ev > 0 && tl.Iteration%ev == 0 && tl.Ladder == nil {
		left = append(left, "ladder")
	}
	if ev := t.cfg.Bench.Every; ev > 0 && tl.Iteration%ev == 0 && tl.Bench == nil {
		left = append(left, "bench")
	}
	left = append(left, "metrics line")
	t.log.Info("finishing the iteration whose checkpoint was saved before the last stop", "iteration", tl.Iteration,
		"checkpoint", name, "to_do", strings.Join(left, ", "))
	return tl
}

// saveTail writes tl to checkpoints/iteration.json.
func (t *Trainer) saveTail(tl *iterTail) error {
	data, err := json.Marshal(finiteJSON(map[string]any{"iteration": tl.Iteration, "candidate": tl.Candidate,
		"total_steps": tl.Steps, "gate": tl.Gate, "promoted": tl.Promoted, "ladder": tl.Ladder, "bench": tl.Bench}))
	if err != nil {
		return fmt.Errorf("iteration %d stages: %w", tl.Iteration, err)
	}
	return atomicfile.Write(t.dir.path(checkpointDir, tailFile), append(data, '\n'))
}

// finishIteration is the second half of a round whose checkpoint is saved
// (t.tail): gating, the ladder and the bench now and then, and the metrics
// line. Each stage's result is on disk before the next begins, and a stage
// that ended before a restart is not run again. Run gives it a context that
// the duration does not cancel (only Ctrl-C or a failing run), so that a
// duration running out meanwhile loses none of it.
func (t *Trainer) finishIteration(ctx context.Context, start time.Time) error {
	tl := t.tail
	n := tl.Iteration
	path := t.dir.path(checkpointDir, tl.Candidate)
	if tl.Gate == nil && filepath.Base(t.best()) == tl.Candidate {
		// Promoted before a stop by a version that kept no record of the
		// decision until the metrics line: the match is not played again
		// against the candidate itself.
		tl.Gate = map[string]any{"candidate": tl.Candidate, "promoted": true,
			"reason": "promoted before a restart; the match's figures were lost with the process"}
		tl.Promoted = true
	}
	if tl.Gate == nil {
		atStage(ctx, "gating", n)
		promoted, gate, err := t.gate(ctx, path)
		if err != nil {
			return err
		}
		tl.Gate, tl.Promoted = gate, promoted
		if err := t.saveTail(tl); err != nil {
			return err
		}
		atStage(ctx, "gated", n)
	}
	if tl.Promoted {
		if filepath.Base(t.best()) != tl.Candidate {
			atStage(ctx, "publishing", n)
			if err := t.setBest(ctx, path); err != nil {
				return err
			}
		}
	} else {
		t.rejected[tl.Candidate] = true
	}
	rec := map[string]any{"iteration": n, "train": tl.train, "gate": tl.Gate, "best": filepath.Base(t.best())}
	if ev := t.cfg.Ladder.Every; ev > 0 && n%ev == 0 && tl.Ladder == nil {
		atStage(ctx, "ladder", n)
		ladder, err := t.ladder(ctx)
		if err != nil {
			return err
		}
		tl.Ladder = ladder
		if err := t.saveTail(tl); err != nil {
			return err
		}
	}
	if tl.Ladder != nil {
		rec["ladder"] = tl.Ladder
		t.ladderBest = filepath.Base(t.best())
	}
	if ev := t.cfg.Bench.Every; ev > 0 && n%ev == 0 && tl.Bench == nil {
		atStage(ctx, "bench", n)
		bench, err := t.bench(ctx)
		if err != nil {
			return err
		}
		tl.Bench = bench
		if err := t.saveTail(tl); err != nil {
			return err
		}
	}
	if tl.Bench != nil {
		rec["bench"] = tl.Bench
	}
	if tl.resumed {
		rec["resumed"] = true // finished by a restart: its self-play figures are the new process's
	}
	atStage(ctx, "metrics", n)
	t.mu.Lock()
	st, spTime, precision := t.spStats, t.spTime, t.precision
	t.spStats, t.spTime = selfPlayStats{}, 0
	t.mu.Unlock()
	secs := math.Max(spTime.Seconds(), 1e-9)
	rec["selfplay"] = map[string]any{
		"games": st.Games, "positions": st.Moves, "examples": st.Examples,
		"games_per_s": float64(st.Games) / secs, "positions_per_s": float64(st.Moves) / secs,
		"first_wins": st.Wins[0], "draws": st.Wins[1], "second_wins": st.Wins[2],
		"resigned": st.Resigned, "no_resign_games": st.NoResign, "false_resigns": st.False,
		"mean_length": float64(st.Moves) / math.Max(1, float64(st.Games)),
		// Network calls per position (move), and the evaluator requests
		// they answer (the rest: cache hits and merged transpositions).
		"net_evals_per_position": float64(st.NetEvals) / math.Max(1, float64(st.Moves)),
		"leaves_per_position":    float64(st.Leaves) / math.Max(1, float64(st.Moves)),
		"precision":              precision, // of the network, the latest round's
	}
	rec["replay"] = map[string]any{"window": t.buf.Len(), "added": t.buf.Added()}
	workers, workersLine := t.workerMetrics(ctx)
	rec["workers"] = workers
	tot := t.in.total()
	rec["bus"] = map[string]any{"games": tot.Games, "positions": tot.Positions, "duplicates": tot.Duplicates,
		"stale": tot.Stale, "bad": tot.Bad, "chunks": tot.Chunks}
	// wall_seconds counts from this process's start; run_seconds over
	// every process of the run (what learning curves plot against).
	rec["wall_seconds"] = time.Since(start).Seconds()
	rec["run_seconds"] = t.runSeconds()
	rec["time"] = time.Now().UTC().Format(time.RFC3339)
	t.log.Info("iteration", "n", n, "selfplay_games", st.Games, "positions/s", fmt.Sprintf("%.0f", float64(st.Moves)/secs),
		"replay", t.buf.Len(), "best", filepath.Base(t.best()), "workers", workersLine)
	if err := t.metrics.write(rec); err != nil {
		return err
	}
	t.tail = nil
	if err := os.Remove(t.dir.path(checkpointDir, tailFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		// A record left behind is of an iteration with its line: the next
		// start removes it.
		t.log.Warn("stages of the finished iteration not removed", "err", err)
	}
	t.prune()
	t.pruneReplay(ctx)
	return nil
}
