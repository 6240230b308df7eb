package pipeline

// The stop-anywhere cycles: a trainer process (this test binary, see
// TestMain) stopped with SIGKILL or SIGINT (Ctrl-C) at a random moment of
// each stage of an iteration, over and over on one run folder, then run to
// the end. Every checkpoint is gated exactly once, every game the bus
// acknowledged is in the replay folder exactly once, and the metrics are
// continuous: each iteration's line once, in order, the run's time never
// going back.
//
//	go test ./pipeline -run TestFaultStopAnywhere -v
//	TABULA_FAULT_CYCLES=100 go test ./pipeline -run TestFaultStopAnywhere -v -timeout 30m

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tabula/nn"
)

// trainerProcessEnv makes the test binary a trainer process on the run
// folder it names (trainerSetsEnv: -set overrides, one a line) that prints
// "STAGE <stage> <iteration>" as each stage begins, and logs at debug level
// (the "game published" lines) to stdout. SIGINT stops it as Ctrl-C stops
// cmd/train.
const (
	trainerProcessEnv = "TABULA_PIPELINE_TEST_TRAINER_DIR"
	trainerSetsEnv    = "TABULA_PIPELINE_TEST_TRAINER_SETS"
)

// trainerProcess is the body of a trainer process; it returns the exit code.
func trainerProcess(dir string) int {
	sets := []string{"run_dir=" + dir}
	for _, s := range strings.Split(os.Getenv(trainerSetsEnv), "\n") {
		if s != "" {
			sets = append(sets, s)
		}
	}
	cfg, err := Load("../configs/connect4-smoke.yaml", sets)
	if err != nil {
		fmt.Println("trainer process:", err)
		return 2
	}
	// Games a killed trainer had fetched come back after this.
	busAckWait = faultAckWait
	stageHook = func(_ context.Context, stage string, n int) {
		fmt.Printf("STAGE %s %d\n", stage, n)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelDebug}))
	t, err := New(cfg, Options{Log: log})
	if err != nil {
		fmt.Println("trainer process:", err)
		return 1
	}
	runErr := t.Run(ctx)
	if err := t.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		fmt.Println("trainer process:", runErr)
		return 1
	}
	return 0
}

// startTrainerProcess starts this test binary as a trainer process.
func startTrainerProcess(t *testing.T, name, dir string, sets ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), trainerProcessEnv+"="+dir, trainerSetsEnv+"="+strings.Join(sets, "\n"))
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.out, &p.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	go func() {
		err := cmd.Wait()
		p.code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			p.code = ee.ExitCode()
		} else if err != nil {
			p.code = -2
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		if p.running() {
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// faultAckWait is the trainer processes' bus ack wait: the games a killed
// one had fetched come back to the next within the run to the end.
const faultAckWait = time.Second

var stageRe = regexp.MustCompile(`(?m)^STAGE (\S+) (\d+)$`)

// faultStages are where the cycles stop the trainer: "selfplay" after a
// few of its games, the others as the stage begins (and a random few
// milliseconds after).
var faultStages = []string{"selfplay", "training", "gating", "publishing", "ladder", "bench", "metrics"}

func TestFaultStopAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("runs trainer processes")
	}
	cycles := 2 * len(faultStages) // each stage, with each signal
	if s := os.Getenv("TABULA_FAULT_CYCLES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("TABULA_FAULT_CYCLES=%q: want a whole number above 0", s)
		}
		cycles = n
	}
	dir := filepath.Join(t.TempDir(), "run")
	// A window that keeps every game, so that each acknowledged one can be
	// found; gating promotes at half the score, so some candidates are
	// turned down and some published.
	sets := []string{"iterations=0", "selfplay.workers=1", "replay.window=1000000", "gate.threshold=0.3", "keep_checkpoints=3"}
	rng := rand.New(rand.NewPCG(61, uint64(time.Now().UnixNano())))
	start := time.Now()
	acked := map[string]string{} // game id -> the process that saw it acknowledged
	gated := map[int]int{}       // iteration -> gate decisions on disk, over every process
	hits := map[string]int{}
	l := newLedger()
	for c := 0; c < cycles; c++ {
		stage := faultStages[(c/2)%len(faultStages)]
		sig := []syscall.Signal{syscall.SIGKILL, syscall.SIGINT}[c%2]
		p := startTrainerProcess(t, fmt.Sprintf("trainer %d", c+1), dir, sets...)
		hit := waitForStage(p, stage, 1+rng.IntN(6), 20*time.Second)
		if hit {
			hits[stage]++
			time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		}
		p.cmd.Process.Signal(sig)
		code := p.wait(t, 30*time.Second)
		if sig == syscall.SIGINT && code != 0 {
			t.Fatalf("cycle %d: Ctrl-C at %s: exit %d:\n%s", c+1, stage, code, p.out.String())
		}
		out := p.out.String()
		for id := range p.published() {
			acked[id] = fmt.Sprintf("cycle %d (%v at %s)", c+1, sig, stage)
		}
		for _, m := range stageRe.FindAllStringSubmatch(out, -1) {
			if m[1] == "gated" {
				n, _ := strconv.Atoi(m[2])
				gated[n]++
			}
		}
		checkContinuous(t, dir, gated, fmt.Sprintf("cycle %d (%v at %s)", c+1, sig, stage), out)
		l.check(t, dir)
	}
	// The run to its end: a few seconds, longer than the ack wait, so that
	// the games the last killed trainer had fetched come back.
	end := startTrainerProcess(t, "trainer to the end", dir, append(sets, fmt.Sprintf("duration=%v", 4*faultAckWait))...)
	if code := end.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("the run to its end: exit %d:\n%s", code, end.out.String())
	}
	for id := range end.published() {
		acked[id] = "the run to its end"
	}
	for _, m := range stageRe.FindAllStringSubmatch(end.out.String(), -1) {
		if m[1] == "gated" {
			n, _ := strconv.Atoi(m[2])
			gated[n]++
		}
	}
	iters := checkContinuous(t, dir, gated, "the run's end", end.out.String())
	if ck, err := nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, fmt.Sprintf("ckpt-%06d.tbn", iters))); err != nil || ck.Meta["iteration"] != strconv.Itoa(iters) {
		t.Fatalf("the last line is of iteration %d, its checkpoint: %v", iters, err)
	}
	// The duration may end in the middle of training: then the next
	// checkpoint holds an unfinished iteration, and no more.
	if ck, err := nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, fmt.Sprintf("ckpt-%06d.tbn", iters+1))); err == nil &&
		(ck.Meta["iteration"] != strconv.Itoa(iters) || ck.Meta["iteration_steps"] == "") {
		t.Fatalf("checkpoint of iteration %d after a clean end is not an unfinished one: meta %v", iters+1, ck.Meta)
	}
	for n := 1; n <= iters; n++ {
		if gated[n] != 1 {
			t.Errorf("checkpoint of iteration %d gated %d times, want once", n, gated[n])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, checkpointDir, tailFile)); !os.IsNotExist(err) {
		t.Errorf("stages of an iteration left on record after the run's end: %v", err)
	}
	inReplay, _, dropped, err := ledgerIDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for id, n := range inReplay {
		if n != 1 {
			t.Errorf("game %s in the replay folder %d times", id, n)
		}
	}
	lost := map[string]int{}
	for id, by := range acked {
		if inReplay[id] != 1 && !dropped[id] {
			lost[by]++
		}
	}
	if len(lost) > 0 {
		t.Errorf("acknowledged games not in the replay folder once, by the process that saw them acknowledged: %v", lost)
	}
	l.check(t, dir)
	t.Logf("figures: %d cycles in %v (stages reached: %v), %d iterations each gated once, %d acknowledged games each in the replay once (%d games there, %d dropped as stale)",
		cycles, time.Since(start).Round(time.Second), hits, iters, len(acked), len(inReplay), len(dropped))
}

// waitForStage waits until p begins stage (for "selfplay": until it has
// published k games), and says whether it did before limit or p's end.
func waitForStage(p *proc, stage string, k int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && p.running() {
		out := p.out.String()
		if stage == "selfplay" {
			if len(publishedRe.FindAllString(out, -1)) >= k {
				return true
			}
		} else if strings.Contains(out, "STAGE "+stage+" ") {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// checkContinuous checks metrics.jsonl: the iterations' lines are 1, 2, ...
// each once, each with its own checkpoint's gating result, no iteration
// gated more than once, and run_seconds never goes down. It returns the
// number of iterations.
func checkContinuous(t *testing.T, dir string, gated map[int]int, when, out string) int {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s: %s\nlast process's output:\n%s", when, fmt.Sprintf(format, args...), out)
	}
	n, run := 0, 0.0
	for i, line := range readMetrics(t, dir) {
		secs, ok := line["run_seconds"].(float64)
		if !ok || secs < run {
			fail("line %d: run_seconds %v after %v", i+1, line["run_seconds"], run)
		}
		run = secs
		if line["final_ladder"] == true {
			continue
		}
		n++
		it, _ := line["iteration"].(float64)
		gate, _ := line["gate"].(map[string]any)
		if int(it) != n || gate == nil || gate["candidate"] != fmt.Sprintf("ckpt-%06d.tbn", n) {
			fail("line %d: iteration %v, gate %v; want iteration %d gating ckpt-%06d.tbn", i+1, line["iteration"], gate, n, n)
		}
	}
	for it, k := range gated {
		if k > 1 {
			fail("iteration %d gated %d times", it, k)
		}
	}
	return n
}
