package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"tabula/bus"
	"tabula/internal/metrics"
	"tabula/internal/runclock"
)

// workerMetrics describes, per self-play process (this one is "trainer"),
// the games it delivered since the last metrics line and their rates, and
// whether it is alive (a heartbeat within the last aliveWithin), for
// metrics.jsonl and the progress line.
func (t *Trainer) workerMetrics(ctx context.Context) (map[string]metrics.Worker, string) {
	counts := t.in.takeCounts()
	now := time.Now()
	secs := math.Max(now.Sub(t.lastMetrics).Seconds(), 1e-9)
	t.lastMetrics = now
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	hbs, err := t.bus.Workers(hctx)
	cancel()
	if err != nil {
		t.log.Warn("bus: worker heartbeats unreadable", "err", err)
	}
	beats := map[string]bus.Heartbeat{}
	for _, h := range hbs {
		beats[h.Worker] = h
	}
	if t.folderBeats == nil {
		t.folderBeats = map[string]bus.Heartbeat{}
	}
	fbs, fcounts := folderWorkers(t.dir.root, t.folderBeats, t.log)
	for _, h := range fbs {
		beats[h.Worker] = h
		counts[h.Worker] = fcounts[h.Worker]
	}
	names := map[string]bool{}
	for w := range counts {
		names[w] = true
	}
	for w := range beats {
		names[w] = true
	}
	out := map[string]metrics.Worker{}
	var line []string
	alive := 0
	for _, w := range workerNames(names) {
		c := counts[w]
		rec := metrics.Worker{Games: c.Games, Positions: c.Positions, Stale: c.Stale, Duplicates: c.Duplicates,
			GamesPerS: metrics.Float(float64(c.Games) / secs), PositionsPerS: metrics.Float(float64(c.Positions) / secs)}
		h, ok := beats[w]
		isAlive := ok && !h.Gone && now.Sub(h.Time) < aliveWithin
		rec.Alive = isAlive
		if h.Gone {
			rec.Exited = true
		}
		if ok {
			rec.HeartbeatAgeS = metrics.Ptr(metrics.Float(now.Sub(h.Time).Seconds()))
			rec.Generation = metrics.Ptr(h.Generation)
			rec.TotalGames = metrics.Ptr(h.Games)
		}
		if isAlive {
			alive++
		}
		out[w] = rec
		state := ""
		if !isAlive {
			state = " gone"
		}
		line = append(line, fmt.Sprintf("%s %.2f games/s %.0f pos/s%s", w, float64(c.Games)/secs, float64(c.Positions)/secs, state))
	}
	return out, fmt.Sprintf("%s (%d alive)", strings.Join(line, ", "), alive)
}

// readLastLadder returns the last metrics line in path with a ladder
// result; its Ladder is nil if there is none.
func readLastLadder(path string) metrics.Record {
	var last metrics.Record
	f, err := os.Open(path)
	if err != nil {
		return last
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec metrics.Record
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Ladder != nil {
			last = rec
		}
	}
	return last
}

// metricsLog appends JSON lines to metrics.jsonl, each synced to disk. A
// line cut short by a crash is dropped when the file is opened again.
type metricsLog struct {
	mu sync.Mutex
	f  *os.File
}

func openMetrics(path string) (*metricsLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("metrics: %w", err)
	}
	keep := int64(bytes.LastIndexByte(data, '\n') + 1)
	if keep != int64(len(data)) {
		if err := f.Truncate(keep); err != nil {
			f.Close()
			return nil, fmt.Errorf("metrics: dropping a torn last line: %w", err)
		}
	}
	if _, err := f.Seek(keep, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return &metricsLog{f: f}, nil
}

// write appends one record. Non-finite numbers (an Elo difference after a
// 0% score, say), which JSON cannot hold, are written as null.
func (m *metricsLog) write(rec *metrics.Record) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return m.f.Sync()
}

func (m *metricsLog) close() error { return m.f.Close() }

// readPromotions reads metrics.jsonl for the checkpoints that gating
// promoted (every name the "best" field held) and those it turned down. A
// missing file means none; an unreadable line is skipped with a warning.
func readPromotions(path string, log *slog.Logger) (promoted, rejected map[string]bool) {
	promoted, rejected = map[string]bool{}, map[string]bool{}
	f, err := os.Open(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			log.Warn("metrics unreadable; promoted checkpoints unknown", "err", err)
		}
		return promoted, rejected
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec metrics.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			log.Warn("metrics line unreadable", "file", path, "err", err)
			continue
		}
		if rec.Best != "" {
			promoted[rec.Best] = true
		}
		if rec.FinalLadder { // no gating on this line
			continue
		}
		var gate metrics.Gate
		if rec.Gate != nil {
			gate = *rec.Gate
		}
		cand := gate.Candidate
		if cand == "" && rec.Iteration > 0 {
			cand = fmt.Sprintf("ckpt-%06d.tbn", rec.Iteration)
		}
		if cand != "" && !gate.Promoted {
			rejected[cand] = true
		}
	}
	for name := range promoted {
		delete(rejected, name)
	}
	return promoted, rejected
}

// metricsState is what a restart needs from metrics.jsonl.
type metricsState struct {
	iterations map[int]bool // the iterations with their own line (not counting final-ladder lines)
	runSeconds float64      // the run time of the last line (0 without lines)
}

// readMetricsState reads metrics.jsonl at path; a missing file is an empty
// run, and lines that do not parse are skipped (readPromotions warns of
// them). Lines without run_seconds (written before it was recorded) get
// their run time from their wall_seconds (package runclock).
func readMetricsState(path string) metricsState {
	st := metricsState{iterations: map[int]bool{}}
	f, err := os.Open(path)
	if err != nil {
		return st
	}
	defer f.Close()
	var clock []runclock.Line
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec metrics.Record
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		if !rec.FinalLadder {
			st.iterations[rec.Iteration] = true
		}
		clock = append(clock, runclock.LineOf(rec))
	}
	if secs := runclock.Seconds(clock); len(secs) > 0 {
		st.runSeconds = secs[len(secs)-1]
	}
	return st
}
