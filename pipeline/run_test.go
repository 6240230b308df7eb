package pipeline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tabula/match"
	"tabula/nn"
	"tabula/replay"
)

// smoke loads the Connect Four smoke config into a fresh run folder.
func smoke(t *testing.T, dir string, sets ...string) *Config {
	t.Helper()
	cfg, err := Load("../configs/connect4-smoke.yaml", append([]string{"run_dir=" + dir}, sets...))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func readMetrics(t *testing.T, dir string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, metricsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("metrics line %d is not JSON: %v: %s", len(out)+1, err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// replayExamples counts the examples in every chunk of a run, checking each.
func replayExamples(t *testing.T, dir string) (int, map[string]int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, replayDir, "*"+replay.ChunkSuffix))
	total := 0
	per := map[string]int{}
	for _, f := range files {
		_, ex, err := replay.ReadChunkFile(f)
		if err != nil {
			t.Fatalf("chunk %s: %v", f, err)
		}
		per[filepath.Base(f)] = len(ex)
		total += len(ex)
	}
	return total, per
}

func runOnce(t *testing.T, cfg *Config) *Trainer {
	t.Helper()
	tr, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	return tr
}

// A self-play round longer than the whole run (selfplay.games_per_round
// far above what two iterations take) still shows its finished games in
// the metrics: games are counted one by one, not a round at a time.
func TestMetricsCountGamesOfAnUnfinishedRound(t *testing.T) {
	dir := t.TempDir()
	runOnce(t, smoke(t, dir, "selfplay.games_per_round=1000000", "ladder.every=0", "bench.every=0"))
	m := readMetrics(t, dir)
	if len(m) != 2 {
		t.Fatalf("%d metrics lines, want 2", len(m))
	}
	sp := m[0]["selfplay"].(map[string]any)
	games, examples := sp["games"].(float64), sp["examples"].(float64)
	if games < 1 || examples < 1 || sp["positions"].(float64) < games || sp["games_per_s"].(float64) <= 0 ||
		sp["net_evals_per_position"].(float64) <= 0 {
		t.Fatalf("iteration 1 (train.min_examples reached, round unfinished): selfplay %v", sp)
	}
}

func TestSmokeRunThenResume(t *testing.T) {
	dir := t.TempDir()
	cfg := smoke(t, dir)
	runOnce(t, cfg)

	m := readMetrics(t, dir)
	if len(m) != 2 {
		t.Fatalf("%d metrics lines, want 2", len(m))
	}
	// Self-play goes on beside training and each finished game counts in
	// the iteration it finished in. The first iteration waits for
	// train.min_examples, so it has games; a later, short one may end
	// before any game does (CI, 2 loaded cores).
	examples := 0
	for i, rec := range m {
		sp := rec["selfplay"].(map[string]any)
		tr := rec["train"].(map[string]any)
		if (i == 0 && sp["games"].(float64) < 1) || tr["steps"].(float64) != 10 {
			t.Fatalf("iteration %d: selfplay %v train %v", i+1, sp, tr)
		}
		if _, ok := rec["gate"].(map[string]any)["promoted"]; !ok {
			t.Fatalf("iteration %d has no gating result: %v", i+1, rec)
		}
		examples += int(sp["examples"].(float64))
		// Every position costs network calls; the cache (smoke config:
		// 4096 entries) answers some of the searches' requests.
		net, leaves := sp["net_evals_per_position"].(float64), sp["leaves_per_position"].(float64)
		if sp["games"].(float64) > 0 && !(net > 0 && net <= leaves) {
			t.Errorf("iteration %d: %v network calls per position for %v requests", i+1, net, leaves)
		}
	}
	if _, ok := m[1]["ladder"]; !ok {
		t.Error("no ladder result at iteration 2 (ladder.every = 2)")
	}
	// The gating games are stored for the watch page, one line a game.
	for i, rec := range m {
		gate := rec["gate"].(map[string]any)
		played := int(gate["wins"].(float64) + gate["draws"].(float64) + gate["losses"].(float64))
		b, err := os.ReadFile(filepath.Join(dir, gatingDir, fmt.Sprintf("iter-%06d.jsonl", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		var g match.GameRecord
		if err := json.Unmarshal([]byte(lines[0]), &g); err != nil {
			t.Fatal(err)
		}
		if len(lines) != played || g.Moves == "" || g.Players != [2]string{"candidate", "best"} {
			t.Errorf("iteration %d: %d gating games stored, %d played; first %+v", i+1, len(lines), played, g)
		}
	}
	// Self-play goes on beside training, and the games it finished after the
	// last metrics line are written too when the run stops; chunks whose
	// examples all left the window are removed, never those within it.
	if got, _ := replayExamples(t, dir); got < min(examples, cfg.Replay.Window) || examples == 0 {
		t.Fatalf("replay folder holds %d examples, self-play reported %d (window %d)", got, examples, cfg.Replay.Window)
	}
	for i := 0; i <= 2; i++ {
		ck, err := nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, "ckpt-00000"+string(rune('0'+i))+".tbn"))
		if err != nil {
			t.Fatal(err)
		}
		if ck.Step != int64(10*i) || ck.Meta["iteration"] != string(rune('0'+i)) {
			t.Fatalf("checkpoint %d: step %d meta %v", i, ck.Step, ck.Meta)
		}
	}
	if b, err := readBest(dir); err != nil || b == "" {
		t.Fatalf("best = %q, %v", b, err)
	}

	// The same command with one more iteration resumes: iteration 3 only.
	cfg = smoke(t, dir, "iterations=3")
	tr := runOnce(t, cfg)
	if tr.Iteration() != 3 {
		t.Fatalf("resumed run ended at iteration %d, want 3", tr.Iteration())
	}
	// Iteration 3 plays no ladder (ladder.every = 2): a final ladder line
	// follows it when gating promoted its network.
	m = readMetrics(t, dir)
	if len(m) == 4 && m[3]["final_ladder"] == true {
		m = m[:3]
	}
	if len(m) != 3 || m[2]["iteration"].(float64) != 3 {
		t.Fatalf("after resuming: %d metrics lines, last %v", len(m), m[len(m)-1]["iteration"])
	}
	ck, err := nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, "ckpt-000003.tbn"))
	if err != nil || ck.Step != 30 || ck.Optimizer == nil {
		t.Fatalf("checkpoint 3: %v, step %d", err, ck.Step)
	}
}

func TestRunFolderIsLockedAndChecked(t *testing.T) {
	dir := t.TempDir()
	cfg := smoke(t, dir)
	a, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(cfg, Options{}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a second trainer on the same folder: %v", err)
	}
	a.Close()
	other := smoke(t, dir, "network.filters=16")
	if _, err := New(other, Options{}); err == nil || !strings.Contains(err.Error(), "network") {
		t.Fatalf("resuming with another network size: %v", err)
	}
}

// TestKillAndRestart kills the training process with SIGKILL at random
// moments, restarts it each time, and checks that no file is corrupt and no
// written example or checkpoint is lost.
func TestKillAndRestart(t *testing.T) {
	bin, _ := binaries(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[string]int{} // chunk -> examples, never to shrink or vanish
	var ckpts []string
	for round := 0; round < 4; round++ {
		cmd := exec.Command(bin, "-config", "../configs/connect4-smoke.yaml", "-run", dir, "-quiet",
			"-set", "iterations=0", "-set", "ladder.every=0", "-set", "bench.every=0", "-set", "keep_checkpoints=0")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// (From 2.5 s: the trainer starts its bus server before self-play.)
		time.Sleep(time.Duration(2500+rng.IntN(3000)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		total, per := replayExamples(t, dir) // fails on any corrupt chunk
		for name, n := range seen {
			if per[name] == 0 && total >= 5000 { // removed by retention: a full window (the smoke config's) is on disk
				delete(seen, name)
				continue
			}
			if per[name] != n {
				t.Fatalf("round %d: chunk %s had %d examples, now %d", round, name, n, per[name])
			}
		}
		for name, n := range per {
			seen[name] = n
		}
		for _, c := range ckpts {
			if _, err := nn.LoadCheckpoint(c); err != nil {
				t.Fatalf("round %d: earlier checkpoint %s: %v", round, c, err)
			}
		}
		ckpts, _ = filepath.Glob(filepath.Join(dir, checkpointDir, "ckpt-*.tbn"))
		for _, c := range ckpts {
			if _, err := nn.LoadCheckpoint(c); err != nil {
				t.Fatalf("round %d: checkpoint %s: %v", round, c, err)
			}
		}
		readMetrics(t, dir) // a torn last line is allowed only until the next start
	}
	if len(seen) == 0 || len(ckpts) < 2 {
		t.Fatalf("the runs wrote %d chunks and %d checkpoints: too short to test anything", len(seen), len(ckpts))
	}
	// A last clean run finishes an iteration on top of what was left.
	cfg := smoke(t, dir, "ladder.every=0", "bench.every=0")
	tr, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Iterations = tr.Iteration() + 1
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	readMetrics(t, dir)
	total, per := replayExamples(t, dir)
	for name, n := range seen {
		if per[name] == 0 && total >= 5000 { // removed by retention
			continue
		}
		if per[name] != n {
			t.Fatalf("after the clean run: chunk %s had %d examples, now %d", name, n, per[name])
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*", "*.tmp"))
	if len(left) > 0 {
		t.Fatalf("temporary files left after a clean start: %v", left)
	}
}

// TestWorkerAddsGamesToRun: an extra self-play process (cmd/selfplay) writes
// games into a run's replay folder under its own name, and the trainer's
// buffer picks them up.
func TestWorkerAddsGamesToRun(t *testing.T) {
	dir := t.TempDir()
	runOnce(t, smoke(t, dir, "iterations=1"))
	if err := RunWorker(context.Background(), dir, WorkerOptions{ID: "extra", Games: 4, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, replayDir, "chunk-*-extra-*"+replay.ChunkSuffix))
	if len(files) == 0 {
		t.Fatal("the worker wrote no chunk")
	}
	n := 0
	for _, f := range files {
		_, ex, err := replay.ReadChunkFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += len(ex)
	}
	tr, err := New(smoke(t, dir, "iterations=1"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	total, _ := replayExamples(t, dir)
	if n == 0 || tr.buf.Len() != total {
		t.Fatalf("worker wrote %d examples; the trainer's window holds %d of the %d on disk", n, tr.buf.Len(), total)
	}
	if err := RunWorker(context.Background(), t.TempDir(), WorkerOptions{ID: "x"}); err == nil || !strings.Contains(err.Error(), "start the training process first") {
		t.Fatalf("worker on an empty folder: %v", err)
	}
}

// TestSelfPlayCountsEachRoundOnce: the self-play evaluators (and their
// cache) live from round to round while the best network stays, so their
// counters run on; the metrics count each round's leaves and network calls
// once. Many one-game rounds: counted again from zero each round, the
// leaves a position would grow with every round.
func TestSelfPlayCountsEachRoundOnce(t *testing.T) {
	dir := t.TempDir()
	runOnce(t, smoke(t, dir, "selfplay.games_per_round=1", "ladder.every=0", "bench.every=0"))
	for i, m := range readMetrics(t, dir) {
		sp := m["selfplay"].(map[string]any)
		leaves, evals := sp["leaves_per_position"].(float64), sp["net_evals_per_position"].(float64)
		// At most one leaf a simulation (16), and a first evaluation of
		// the root.
		if sp["games"].(float64) < 2 || leaves <= 0 || leaves > 17 || evals <= 0 || evals > leaves {
			t.Errorf("iteration %d: %v games, %.2f leaves and %.2f network calls a position, want at least 2 games and 0 < calls <= leaves <= 17",
				i+1, sp["games"], leaves, evals)
		}
	}
}
