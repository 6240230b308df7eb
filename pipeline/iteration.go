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
	"tabula/internal/metrics"
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
	Steps    int64           `json:"total_steps"`
	Gate     *metrics.Gate   `json:"gate,omitempty"`
	Promoted bool            `json:"promoted"`
	Ladder   *metrics.Ladder `json:"ladder,omitempty"`
	Bench    *metrics.Bench  `json:"bench,omitempty"`

	train   *metrics.Train // the metrics line's train record
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
		tl.train = &metrics.Train{TotalSteps: ck.Step}
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
		// A stage not yet run is null in the record; in records that hold
		// it as {} instead, an empty ladder or bench is one not yet run too
		// (a run result always names its players, and its sets or why it
		// was skipped).
		if tl.Ladder != nil && len(tl.Ladder.Players) == 0 {
			tl.Ladder = nil
		}
		if tl.Bench != nil && len(tl.Bench.Rates) == 0 && tl.Bench.Skipped == "" {
			tl.Bench = nil
		}
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
	data, err := json.Marshal(map[string]any{"iteration": tl.Iteration, "candidate": tl.Candidate,
		"total_steps": tl.Steps, "gate": tl.Gate, "promoted": tl.Promoted, "ladder": tl.Ladder, "bench": tl.Bench})
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
		tl.Gate = &metrics.Gate{Candidate: tl.Candidate, Promoted: true,
			Reason: "promoted before a restart; the match's figures were lost with the process"}
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
	rec := &metrics.Record{Iteration: n, Train: tl.train, Gate: tl.Gate, Best: filepath.Base(t.best())}
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
		rec.Ladder = tl.Ladder
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
		rec.Bench = tl.Bench
	}
	if tl.resumed {
		rec.Resumed = true // finished by a restart: its self-play figures are the new process's
	}
	atStage(ctx, "metrics", n)
	t.mu.Lock()
	st, spTime, precision := t.spStats, t.spTime, t.precision
	t.spStats, t.spTime = selfPlayStats{}, 0
	t.mu.Unlock()
	secs := math.Max(spTime.Seconds(), 1e-9)
	rec.SelfPlay = &metrics.SelfPlay{
		Games: st.Games, Positions: st.Moves, Examples: st.Examples,
		GamesPerS: metrics.Float(float64(st.Games) / secs), PositionsPerS: metrics.Float(float64(st.Moves) / secs),
		FirstWins: st.Wins[0], Draws: st.Wins[1], SecondWins: st.Wins[2],
		Resigned: st.Resigned, NoResignGames: st.NoResign, FalseResigns: st.False,
		MeanLength: metrics.Float(float64(st.Moves) / math.Max(1, float64(st.Games))),
		// Network calls per position (move), and the evaluator requests
		// they answer (the rest: cache hits and merged transpositions).
		NetEvalsPerPosition: metrics.Float(float64(st.NetEvals) / math.Max(1, float64(st.Moves))),
		LeavesPerPosition:   metrics.Float(float64(st.Leaves) / math.Max(1, float64(st.Moves))),
		Precision:           precision, // of the network, the latest round's
	}
	rec.CPU = t.cpuMetrics(st.CPU)
	rec.Replay = &metrics.Replay{Window: t.buf.Len(), Added: t.buf.Added()}
	workers, workersLine := t.workerMetrics(ctx)
	rec.Workers = workers
	tot := t.in.total()
	rec.Bus = &metrics.Bus{Games: tot.Games, Positions: tot.Positions, Duplicates: tot.Duplicates,
		Stale: tot.Stale, Bad: tot.Bad, Chunks: tot.Chunks}
	// wall_seconds counts from this process's start; run_seconds over
	// every process of the run (what learning curves plot against).
	rec.WallSeconds = metrics.Float(time.Since(start).Seconds())
	rec.RunSeconds = metrics.Num(t.runSeconds())
	rec.Time = time.Now().UTC().Format(time.RFC3339)
	t.log.Info("iteration", "n", n, "selfplay_games", st.Games, "positions/s", fmt.Sprintf("%.0f", float64(st.Moves)/secs),
		"replay", t.buf.Len(), "best", filepath.Base(t.best()), "workers", workersLine, "cpu", cpuLine(rec.CPU))
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
