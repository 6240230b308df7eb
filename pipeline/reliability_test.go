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

	"tabula/internal/atomicfile"
	"tabula/internal/progress"
	"tabula/nn"
)

// TestRefusedTrainerTouchesNothing: a second trainer on a folder in use is
// refused before it changes anything there, stale temporary files included
// (it cannot know which of them the running trainer is writing).
func TestRefusedTrainerTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	cfg := smoke(t, dir)
	a, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	old := time.Now().Add(-2 * atomicfile.StaleAge)
	var temps []string
	for _, p := range []string{
		filepath.Join(dir, checkpointDir, ".ckpt-000001.tbn.123"+atomicfile.TempSuffix), // in flight
		filepath.Join(dir, checkpointDir, ".best.456"+atomicfile.TempSuffix),            // abandoned
		filepath.Join(dir, replayDir, ".chunk-1-train-000001.tbr.7"+atomicfile.TempSuffix),
	} {
		if err := os.WriteFile(p, []byte("half written"), 0o644); err != nil {
			t.Fatal(err)
		}
		temps = append(temps, p)
	}
	os.Chtimes(temps[1], old, old)
	before, _ := os.ReadFile(filepath.Join(dir, configFile))
	for i := 0; i < 3; i++ {
		other := smoke(t, dir, "seed=99")
		if _, err := New(other, Options{}); err == nil || !strings.Contains(err.Error(), "in use") {
			t.Fatalf("a second trainer on the same folder: %v", err)
		}
	}
	for _, p := range temps {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the refused trainer removed %s: %v", filepath.Base(p), err)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, configFile)); string(after) != string(before) {
		t.Errorf("the refused trainer rewrote %s", configFile)
	}
}

// TestWorkerLeavesOthersTempsAlone: cmd/selfplay opening the replay folder
// beside a trainer must not delete the trainer's chunk being written.
func TestWorkerLeavesOthersTempsAlone(t *testing.T) {
	dir := t.TempDir()
	runOnce(t, smoke(t, dir, "iterations=1", "ladder.every=0", "bench.every=0"))
	inFlight := filepath.Join(dir, replayDir, ".chunk-00000000000000000001-train-000099.tbr.42"+atomicfile.TempSuffix)
	if err := os.WriteFile(inFlight, []byte("half a chunk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RunWorker(context.Background(), dir, WorkerOptions{ID: "extra", Games: 1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(inFlight); err != nil {
		t.Fatalf("the worker removed another process's chunk in flight: %v", err)
	}
}

// TestCorruptOrMissingBestFallsBack: a best checkpoint damaged from outside
// (a flipped byte, a pointer to a missing file, a garbled pointer) does not
// make the run unrecoverable: it resumes from the newest promoted checkpoint
// that still loads, and says so.
func TestCorruptOrMissingBestFallsBack(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"ladder.every=0", "bench.every=0", "gate.games=0"} // every candidate is promoted
	runOnce(t, smoke(t, dir, append(sets, "iterations=2")...))
	ck := func(i int) string { return filepath.Join(dir, checkpointDir, fmt.Sprintf("ckpt-%06d.tbn", i)) }
	if b, _ := readBest(dir); b != ck(2) {
		t.Fatalf("best = %s, want %s", b, ck(2))
	}
	data, err := os.ReadFile(ck(2))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x01
	os.WriteFile(ck(2), data, 0o644)

	var logs strings.Builder
	cfg := smoke(t, dir, append(sets, "iterations=3")...)
	tr, err := New(cfg, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("resuming with a corrupt best: %v", err)
	}
	if tr.best() != ck(1) {
		t.Fatalf("best after a corrupt %s = %s, want the newest readable promoted %s", ck(2), tr.best(), ck(1))
	}
	if !strings.Contains(logs.String(), "falling back") {
		t.Errorf("the fallback is not logged:\n%s", logs.String())
	}
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if _, err := nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, bestWeightsFile)); err != nil {
		t.Fatalf("weights-only copy: %v", err)
	}

	for _, pointer := range []string{"ckpt-000099.tbn\n", "garbage\n"} {
		os.WriteFile(filepath.Join(dir, checkpointDir, bestFile), []byte(pointer), 0o644)
		tr, err := New(smoke(t, dir, append(sets, "iterations=3")...), Options{})
		if err != nil {
			t.Fatalf("best = %q: %v", pointer, err)
		}
		if tr.best() != ck(3) {
			t.Errorf("best = %q: fell back to %s, want %s", pointer, tr.best(), ck(3))
		}
		tr.Close()
		if b, _ := readBest(dir); b != ck(3) {
			t.Errorf("best = %q: the pointer now names %s, want %s", pointer, b, ck(3))
		}
	}
}

// cancelOnWriter cancels a context when a line containing marker is written.
type cancelOnWriter struct {
	mu     sync.Mutex
	marker *regexp.Regexp
	cancel context.CancelFunc
	text   strings.Builder
}

func (w *cancelOnWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text.Write(p)
	if w.marker.Match(p) {
		w.cancel()
	}
	return len(p), nil
}

// TestInterruptSavesUnfinishedIteration: Ctrl-C in the middle of training
// keeps the steps taken in a checkpoint, and a restart finishes that
// iteration with the steps left rather than starting it again.
func TestInterruptSavesUnfinishedIteration(t *testing.T) {
	defer func(d time.Duration) { progress.LineEvery = d }(progress.LineEvery)
	progress.LineEvery = 50 * time.Millisecond
	dir := t.TempDir()
	sets := []string{"ladder.every=0", "bench.every=0", "iterations=1"}
	tr, err := New(smoke(t, dir, append(sets, "train.steps_per_iteration=100000")...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once the progress lines show a few training steps taken.
	w := &cancelOnWriter{marker: regexp.MustCompile(`iter 1 training: ([3-9]|\d\d+)/`), cancel: cancel}
	tr.opt.Progress = w
	if err := tr.Run(ctx); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if ctx.Err() == nil {
		t.Fatal("the run ended before it was interrupted")
	}
	ck, err := nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, "ckpt-000001.tbn"))
	if err != nil {
		t.Fatalf("no checkpoint of the interrupted iteration: %v", err)
	}
	done, _ := strconv.Atoi(ck.Meta["iteration_steps"])
	if ck.Meta["iteration"] != "0" || done < 3 || ck.Step != int64(done) {
		t.Fatalf("interrupted checkpoint: iteration %q, iteration_steps %q, step %d", ck.Meta["iteration"], ck.Meta["iteration_steps"], ck.Step)
	}
	// Resuming with 5 steps more to go finishes iteration 1 with those.
	tr, err = New(smoke(t, dir, append(sets, fmt.Sprintf("train.steps_per_iteration=%d", done+5))...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Iteration() != 0 || tr.iterSteps != done {
		t.Fatalf("resumed at iteration %d with %d steps done, want 0 and %d", tr.Iteration(), tr.iterSteps, done)
	}
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	ck, err = nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, "ckpt-000001.tbn"))
	if err != nil || ck.Step != int64(done+5) || ck.Meta["iteration"] != "1" || ck.Meta["iteration_steps"] != "" {
		t.Fatalf("finished iteration 1: %v, step %d, meta %v", err, ck.Step, ck.Meta)
	}
	m := readMetrics(t, dir)
	if len(m) != 1 || m[0]["train"].(map[string]any)["steps"].(float64) != 5 {
		t.Fatalf("metrics after the resumed iteration: %v", m)
	}
}

// TestRetentionKeepsLatestAndPromoted: old checkpoints that gating turned
// down go; the latest keep_checkpoints, every promoted one, the best, the
// first, and those with no gating result on record stay.
func TestRetentionKeepsLatestAndPromoted(t *testing.T) {
	dir := t.TempDir()
	tr, err := New(smoke(t, dir, "keep_checkpoints=2"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	data, err := os.ReadFile(tr.dir.checkpointPath(0))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 8; i++ {
		os.WriteFile(tr.dir.checkpointPath(i), data, 0o644)
	}
	// 1, 3 and 5 promoted (5 is the best), 2, 4, 6, 7, 8 turned down, and
	// gating never recorded for 0.
	for _, i := range []int{1, 3, 5} {
		tr.promoted[fmt.Sprintf("ckpt-%06d.tbn", i)] = true
	}
	for _, i := range []int{2, 4, 6, 7, 8} {
		tr.rejected[fmt.Sprintf("ckpt-%06d.tbn", i)] = true
	}
	tr.bestPath = tr.dir.checkpointPath(5)
	tr.prune()
	var left []string
	cks, _ := tr.dir.checkpoints()
	for _, c := range cks {
		left = append(left, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(c), "ckpt-00000"), ".tbn"))
	}
	if got := strings.Join(left, " "); got != "0 1 3 5 7 8" {
		t.Fatalf("checkpoints left: %s, want 0 1 3 5 7 8", got)
	}
	// 0 keeps everything.
	tr.cfg.KeepCheckpoints = 0
	tr.rejected["ckpt-000007.tbn"] = true
	os.WriteFile(tr.dir.checkpointPath(9), data, 0o644)
	tr.prune()
	if cks2, _ := tr.dir.checkpoints(); len(cks2) != len(cks)+1 {
		t.Fatalf("keep_checkpoints=0 removed checkpoints: %d left of %d", len(cks2), len(cks)+1)
	}
}

// TestSummaryAndLogLines: the end-of-run summary names the best checkpoint,
// its ladder result and the commands to use it; log lines carry no raw Go
// maps; gating says why it decided.
func TestSummaryAndLogLines(t *testing.T) {
	dir := t.TempDir()
	var logs strings.Builder
	cfg := smoke(t, dir, "bench.every=0")
	tr, err := New(cfg, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	sum := tr.Summary()
	tr.Close()
	for _, want := range []string{
		"best checkpoint: " + tr.best(),
		filepath.Join(dir, checkpointDir, bestWeightsFile),
		"(finished: iterations = 2)",
		"last ladder: iteration 2 rated ckpt-",
		"scores random ",
		"go run ./cmd/arena match -game connect4 -players 'net:path=",
		"go run ./cmd/play -game connect4 -player net:path=",
		"-set iterations=4",
		"duration counts per process",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	if strings.Contains(logs.String(), "map[") {
		t.Errorf("a log line prints a Go map:\n%s", logs.String())
	}
	if n := strings.Count(logs.String(), "msg=gating"); n != 2 || strings.Count(logs.String(), `reason="score `) != 2 {
		t.Errorf("want 2 gating lines with a reason:\n%s", logs.String())
	}
	// Run on a finished run says so, and how to extend it.
	logs.Reset()
	tr, err = New(cfg, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Run(context.Background()); err != nil || !strings.Contains(logs.String(), "run already finished") ||
		!strings.Contains(logs.String(), "-set iterations=4") {
		t.Fatalf("a finished run: %v\n%s", err, logs.String())
	}
}

// TestWorkerFallsBackFromDamagedBest: a folder worker whose run's best
// checkpoint is damaged plays with the newest promoted checkpoint that
// loads, as the trainer does, instead of stopping.
func TestWorkerFallsBackFromDamagedBest(t *testing.T) {
	dir := t.TempDir()
	runOnce(t, smoke(t, dir, "iterations=2", "ladder.every=0", "bench.every=0", "gate.games=0"))
	ck := func(i int) string { return filepath.Join(dir, checkpointDir, fmt.Sprintf("ckpt-%06d.tbn", i)) }
	if b, _ := readBest(dir); b != ck(2) {
		t.Fatalf("best = %s, want %s", b, ck(2))
	}
	data, err := os.ReadFile(ck(2))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x01
	if err := os.WriteFile(ck(2), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var logs syncLog
	err = RunWorker(context.Background(), dir, WorkerOptions{ID: "extra", Games: 2, Seed: 5,
		Options: Options{Log: slog.New(slog.NewTextHandler(&logs, nil))}})
	if err != nil {
		t.Fatalf("worker with a damaged best: %v", err)
	}
	out := logs.String()
	if !strings.Contains(out, "playing with the newest readable promoted checkpoint") || !strings.Contains(out, "fallback="+ck(1)) {
		t.Errorf("the fallback to %s is not logged:\n%s", ck(1), out)
	}
	if n := strings.Count(out, "best checkpoint unreadable"); n != 1 {
		t.Errorf("the damaged best is reported %d times, want once:\n%s", n, out)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, replayDir, "chunk-*-extra-*")); len(files) == 0 {
		t.Error("the worker wrote no games")
	}
}

// syncLog is a log sink safe for concurrent writes.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
