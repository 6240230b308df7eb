package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tabula/internal/progress"
	"tabula/nn"
)

// stageCounter is a stageHook that counts the stages each iteration began,
// and cancels stop as stage begins in iteration n (Ctrl-C there).
type stageCounter struct {
	mu     sync.Mutex
	counts map[string]int // "gating 2" -> times
	stage  string
	n      int
	stop   context.CancelFunc
}

func (s *stageCounter) hook(ctx context.Context, stage string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[fmt.Sprintf("%s %d", stage, n)]++
	if stage == s.stage && n == s.n && s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// runStoppedAt runs the run in dir until stage begins in iteration n, where
// it stops it as Ctrl-C does, and returns the stages each iteration began.
func runStoppedAt(t *testing.T, cfg *Config, sc *stageCounter, stage string, n int) {
	t.Helper()
	var logs strings.Builder
	tr, err := New(cfg, Options{Log: slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc.stage, sc.n, sc.stop = stage, n, cancel
	stageHook = sc.hook
	defer func() { stageHook = nil }()
	if err := tr.Run(ctx); err != nil {
		t.Fatalf("stopped at %s %d: %v", stage, n, err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == nil {
		t.Fatalf("the run ended before %s of iteration %d; stages %v, log:\n%s", stage, n, sc.counts, logs.String())
	}
}

// A run stopped after an iteration's checkpoint is saved (in its gating, in
// its ladder) finishes that iteration when it
// starts again: every iteration has its metrics line, once, with its own
// gating result, and no gate decided before the stop is played again.
func TestStopAfterCheckpointFinishesTheIteration(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"bench.every=0", "ladder.every=2", "gate.games=2", "gate.threshold=0"} // every candidate promoted, after a match
	sc := &stageCounter{counts: map[string]int{}}
	runStoppedAt(t, smoke(t, dir, append(sets, "iterations=3")...), sc, "gating", 1)
	if _, err := os.Stat(filepath.Join(dir, checkpointDir, "ckpt-000001.tbn")); err != nil {
		t.Fatalf("no checkpoint of iteration 1 before its gating: %v", err)
	}
	runStoppedAt(t, smoke(t, dir, append(sets, "iterations=3")...), sc, "ladder", 2)
	// The run's last iteration, stopped in its gating: a start with the same
	// config, whose run is "finished", gates it.
	runStoppedAt(t, smoke(t, dir, append(sets, "iterations=3")...), sc, "gating", 3)
	stageHook = sc.hook
	defer func() { stageHook = nil }()
	runOnce(t, smoke(t, dir, append(sets, "iterations=3")...))

	var m []map[string]any
	for _, line := range readMetrics(t, dir) {
		if line["final_ladder"] == nil {
			m = append(m, line)
		}
	}
	if len(m) != 3 {
		t.Fatalf("%d iterations' metrics lines, want 3 (one per iteration): %v", len(m), m)
	}
	for i, line := range m {
		n := i + 1
		gate, _ := line["gate"].(map[string]any)
		if line["iteration"].(float64) != float64(n) || gate == nil || gate["candidate"] != fmt.Sprintf("ckpt-%06d.tbn", n) ||
			gate["wins"] == nil || line["best"] != fmt.Sprintf("ckpt-%06d.tbn", n) {
			t.Errorf("line %d: %v", n, line)
		}
		if g := sc.counts[fmt.Sprintf("gated %d", n)]; g != 1 {
			t.Errorf("iteration %d: %d gate decisions, want 1 (counts %v)", n, g, sc.counts)
		}
	}
	if l, _ := m[1]["ladder"].(map[string]any); l == nil || l["players"] == nil || sc.counts["ladder 2"] != 2 {
		t.Errorf("iteration 2's ladder, stopped once, was not played again: %v (stages %v)", m[1]["ladder"], sc.counts)
	}
	if m[0]["resumed"] != true || m[1]["resumed"] != true || m[2]["resumed"] != true {
		t.Errorf("lines finished by a restart are not marked resumed")
	}
	if sc.counts["training 2"] != 1 || sc.counts["training 3"] != 1 {
		t.Errorf("iterations trained again: %v", sc.counts)
	}
	if b, _ := readBest(dir); filepath.Base(b) != "ckpt-000003.tbn" {
		t.Errorf("best = %s, want the promoted ckpt-000003.tbn", b)
	}
	if _, err := os.Stat(filepath.Join(dir, checkpointDir, tailFile)); !os.IsNotExist(err) {
		t.Errorf("the record of stages outlives its iteration: %v", err)
	}
}

// The stages on record are used only for the checkpoint they were decided
// on: a record of another checkpoint of the same name is ignored.
func TestStagesOfAnotherCheckpointIgnored(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"bench.every=0", "ladder.every=0", "gate.games=2"}
	sc := &stageCounter{counts: map[string]int{}}
	runStoppedAt(t, smoke(t, dir, append(sets, "iterations=1")...), sc, "gating", 1)
	stale := `{"iteration":1,"candidate":"ckpt-000001.tbn","total_steps":99999,"gate":{"candidate":"ckpt-000001.tbn","promoted":true},"promoted":true}`
	if err := os.WriteFile(filepath.Join(dir, checkpointDir, tailFile), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	stageHook = sc.hook
	defer func() { stageHook = nil }()
	runOnce(t, smoke(t, dir, append(sets, "iterations=1")...))
	m := readMetrics(t, dir)
	if len(m) != 1 || sc.counts["gated 1"] != 1 || m[0]["gate"].(map[string]any)["wins"] == nil {
		t.Fatalf("gated %d times; metrics %v", sc.counts["gated 1"], m)
	}
}

// run_seconds counts the run's time over its processes: it goes up from
// line to line across restarts, each line's past the last one's by at
// least its own process's wall_seconds.
func TestRunSecondsAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"bench.every=0", "ladder.every=0", "gate.games=0"}
	for i := 1; i <= 3; i++ {
		runOnce(t, smoke(t, dir, append(sets, fmt.Sprintf("iterations=%d", i))...))
		time.Sleep(20 * time.Millisecond)
	}
	m := readMetrics(t, dir)
	if len(m) != 3 {
		t.Fatalf("%d lines, want 3", len(m))
	}
	prev := 0.0
	for i, line := range m {
		run, ok := line["run_seconds"].(float64)
		wall := line["wall_seconds"].(float64)
		if !ok || run < prev+wall {
			t.Fatalf("line %d: run_seconds %v, wall_seconds %v, the line before at %v", i+1, line["run_seconds"], wall, prev)
		}
		prev = run
	}
	ck, err := nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, "ckpt-000003.tbn"))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := strconv.ParseFloat(ck.Meta["run_seconds"], 64); err != nil || s <= 0 || s > prev {
		t.Fatalf("checkpoint run_seconds %q, the last line's %v", ck.Meta["run_seconds"], prev)
	}
}

// A metrics file written before run_seconds: the run time goes on from the
// sum of its processes' wall times.
func TestRunSecondsFromOldMetrics(t *testing.T) {
	path := filepath.Join(t.TempDir(), metricsFile)
	old := `{"iteration":1,"wall_seconds":100}` + "\n" + `{"iteration":2,"wall_seconds":160}` + "\n" +
		`{"iteration":3,"wall_seconds":40}` + "\n" + `{"iteration":3,"final_ladder":true,"wall_seconds":45}` + "\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	st := readMetricsState(path)
	if st.runSeconds != 205 || len(st.iterations) != 3 || !st.iterations[3] {
		t.Fatalf("state %+v, want run time 205 and iterations 1-3", st)
	}
}

// Resuming an interrupted iteration with fewer steps_per_iteration than it
// had already taken finishes it without more steps, and its line reports the
// losses of the steps taken before the restart, not zeros.
func TestResumeWithFewerStepsReportsEarlierLosses(t *testing.T) {
	defer func(d time.Duration) { progress.LineEvery = d }(progress.LineEvery)
	progress.LineEvery = 50 * time.Millisecond
	dir := t.TempDir()
	sets := []string{"ladder.every=0", "bench.every=0", "iterations=1", "gate.games=0"}
	tr, err := New(smoke(t, dir, append(sets, "train.steps_per_iteration=100000")...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr.opt.Progress = &cancelOnWriter{marker: regexp.MustCompile(`iter 1 training: ([3-9]|\d\d+)/`), cancel: cancel}
	if err := tr.Run(ctx); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	tr, err = New(smoke(t, dir, append(sets, "train.steps_per_iteration=1")...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := tr.iterSteps
	if done < 3 {
		t.Fatalf("resumed with %d steps done, want at least 3", done)
	}
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	m := readMetrics(t, dir)
	if len(m) != 1 {
		t.Fatalf("%d lines, want 1", len(m))
	}
	tl := m[0]["train"].(map[string]any)
	if tl["steps"].(float64) != 0 || tl["steps_before_restart"] != float64(done) || tl["total_steps"] != float64(done) {
		t.Errorf("train record %v, want 0 steps after %d before the restart", tl, done)
	}
	for _, k := range []string{"loss_total", "loss_value", "loss_policy", "loss_l2", "policy_entropy"} {
		if v, ok := tl[k].(float64); !ok || v <= 0 {
			t.Errorf("%s = %v, want the earlier steps' figure", k, tl[k])
		}
	}
}

// syncWriter serialises writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// A run folder of a version that kept no record of gating until the
// metrics line, stopped after promoting its last checkpoint and before that
// line: the restart does not gate the best against itself, and records the
// promotion.
func TestStopAfterPromotionWithoutRecord(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"bench.every=0", "ladder.every=0", "gate.games=0", "iterations=1"}
	runOnce(t, smoke(t, dir, sets...))
	if err := os.WriteFile(filepath.Join(dir, metricsFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sc := &stageCounter{counts: map[string]int{}}
	stageHook = sc.hook
	defer func() { stageHook = nil }()
	runOnce(t, smoke(t, dir, sets...))
	m := readMetrics(t, dir)
	if len(m) != 1 || sc.counts["gating 1"] != 0 {
		t.Fatalf("gating began %d times; metrics %v", sc.counts["gating 1"], m)
	}
	if g := m[0]["gate"].(map[string]any); g["promoted"] != true || g["candidate"] != "ckpt-000001.tbn" || m[0]["best"] != "ckpt-000001.tbn" {
		t.Fatalf("line %v", m[0])
	}
}

// A record of the stages written with {} for a stage not yet run (as the
// map-built writer wrote it) has that stage run by the restart: a ladder
// stopped before it ended is played again.
func TestEmptyStageOnRecordRunsAgain(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"bench.every=0", "ladder.every=1", "gate.games=0", "iterations=1"}
	sc := &stageCounter{counts: map[string]int{}}
	runStoppedAt(t, smoke(t, dir, sets...), sc, "ladder", 1)
	path := filepath.Join(dir, checkpointDir, tailFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.ReplaceAll(strings.ReplaceAll(string(data), `"ladder":null`, `"ladder":{}`), `"bench":null`, `"bench":{}`)
	if old == string(data) {
		t.Fatalf("no stage to run in the record: %s", data)
	}
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	runOnce(t, smoke(t, dir, sets...))
	m := readMetrics(t, dir)
	if l, _ := m[0]["ladder"].(map[string]any); len(m) != 1 || l == nil || l["players"] == nil {
		t.Errorf("the ladder on record as {} was not played: %v", m)
	}
	if _, ok := m[0]["bench"]; ok {
		t.Errorf("a bench that is not due is in the line: %v", m[0]["bench"])
	}
}
