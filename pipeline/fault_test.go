package pipeline

// The fault-injection suite: real cmd/train and cmd/selfplay processes
// sharing run folders, killed, refused, starved of disk and permissions, and
// given a damaged best checkpoint. Each case checks that no acknowledged
// data is lost (every chunk on disk passes its checksum, every checkpoint
// loads, chunks seen once stay) and that each process either goes on or
// stops with a clear error and a non-zero exit.
//
//	go test ./pipeline -run Fault -v

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tabula/bus"
	"tabula/internal/atomicfile"
	"tabula/nn"
	"tabula/replay"
)

// faultBin holds the binaries the suite runs, built once.
var faultBin struct {
	once            sync.Once
	dir             string
	train, selfplay string
	err             error
}

// The test binary doubles as a standalone NATS server process (the
// embedded server on its own), so that a test can kill the server alone
// with SIGKILL under a running trainer and its workers.
const natsProcessEnv = "TABULA_PIPELINE_TEST_NATS_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(trainerProcessEnv); dir != "" {
		os.Exit(trainerProcess(dir))
	}
	if dir := os.Getenv(natsProcessEnv); dir != "" {
		s, err := bus.StartServer(bus.ServerConfig{Dir: dir, Listen: os.Getenv("TABULA_PIPELINE_TEST_NATS_LISTEN"),
			Token: os.Getenv("TABULA_PIPELINE_TEST_NATS_TOKEN")})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(s.URL())
		select {}
	}
	code := m.Run()
	if faultBin.dir != "" {
		os.RemoveAll(faultBin.dir)
	}
	os.Exit(code)
}

// binaries builds cmd/train and cmd/selfplay once into a temp folder that
// any user can read (the unwritable-folder case runs them as nobody).
func binaries(t *testing.T) (train, selfplay string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs cmd/train and cmd/selfplay")
	}
	faultBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "tabula-fault-bin-")
		if err != nil {
			faultBin.err = err
			return
		}
		faultBin.dir = dir
		if err := os.Chmod(dir, 0o755); err != nil {
			faultBin.err = err
			return
		}
		// One go build for both: it compiles their packages in parallel.
		if out, err := exec.Command("go", "build", "-o", dir+"/", "../cmd/train", "../cmd/selfplay").CombinedOutput(); err != nil {
			faultBin.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		faultBin.train, faultBin.selfplay = filepath.Join(dir, "train"), filepath.Join(dir, "selfplay")
	})
	if faultBin.err != nil {
		t.Fatal(faultBin.err)
	}
	return faultBin.train, faultBin.selfplay
}

// faultConfig copies the smoke config into dir (readable by any user).
func faultConfig(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile("../configs/connect4-smoke.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "smoke.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// syncBuffer is an io.Writer safe for a process's stdout and stderr at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a started process of the suite.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{}
	code int // exit code, -1 when killed by a signal
}

// startProc starts bin with args; prefix, if any, runs it through a shell
// command ("ulimit -f 16", say); attr sets credentials.
func startProc(t *testing.T, name, prefix string, attr *syscall.SysProcAttr, bin string, args ...string) *proc {
	t.Helper()
	var cmd *exec.Cmd
	if prefix != "" {
		cmd = exec.Command("bash", append([]string{"-c", prefix + ` && exec "$0" "$@"`, bin}, args...)...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.out, &p.out
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	go func() {
		err := cmd.Wait()
		p.code = 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			p.code = ee.ExitCode()
		} else if err != nil {
			p.code = -2
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits for the process to end, failing the test after limit.
func (p *proc) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(limit):
		// SIGQUIT makes a Go program print every goroutine's stack: the
		// output then shows where it hangs.
		p.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
		t.Fatalf("%s still running after %v; output (with its goroutines' stacks):\n%s", p.name, limit, p.out.String())
	}
	return 0
}

func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// trainArgs are the arguments of a short smoke run in dir.
func trainArgs(cfg, dir string, sets ...string) []string {
	args := []string{"-config", cfg, "-run", dir, "-quiet", "-set", "ladder.every=0", "-set", "bench.every=0"}
	for _, s := range sets {
		args = append(args, "-set", s)
	}
	return args
}

// waitFor polls cond until it holds, failing after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ledger remembers every chunk file seen with its example count, to check
// that acknowledged data is never lost or changed.
type ledger struct {
	chunks      map[string]int
	filesRead   int // chunk and checkpoint reads, over all checks
	checks      int
	checkpoints int
}

func newLedger() *ledger { return &ledger{chunks: map[string]int{}} }

// check verifies every chunk and checkpoint of the run in dir, and that
// every chunk seen before is still there with the same examples.
func (l *ledger) check(t *testing.T, dir string) {
	t.Helper()
	l.checks++
	window := math.MaxInt
	if cfg, err := ReadRunConfig(dir); err == nil {
		window = cfg.Replay.Window
	}
	// Retention removes chunks whose examples all left the window: a chunk
	// may go once a full window of examples is on disk without it. A
	// listing races with the processes that write and remove chunks (one
	// written after the listing is not counted, one removed before its read
	// is), so a chunk found gone with less than a window on disk is looked
	// for again in fresh listings before it counts as lost.
	var now map[string]int
	for try := 0; ; try++ {
		var onDisk int
		now, onDisk = l.listChunks(t, dir)
		lost := ""
		for name, n := range l.chunks {
			if now[name] == 0 && onDisk >= window {
				continue
			}
			if now[name] != n {
				lost = fmt.Sprintf("chunk %s held %d examples, now %d (%d examples on disk, window %d): acknowledged data lost",
					name, n, now[name], onDisk, window)
				break
			}
		}
		if lost == "" {
			break
		}
		if try == 4 {
			t.Fatal(lost)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for name := range l.chunks {
		if now[name] == 0 {
			delete(l.chunks, name)
		}
	}
	for name, n := range now {
		l.chunks[name] = n
	}
	cks, _ := filepath.Glob(filepath.Join(dir, checkpointDir, "*.tbn"))
	for _, c := range cks {
		if _, err := nn.LoadCheckpoint(c); err != nil {
			if errors.Is(err, os.ErrNotExist) { // removed by retention meanwhile
				continue
			}
			t.Fatalf("checkpoint %s: %v", filepath.Base(c), err)
		}
		l.filesRead++
	}
	l.checkpoints = len(cks)
	if b, err := readBest(dir); err != nil || b == "" {
		t.Fatalf("best pointer: %q, %v", b, err)
	} else if _, err := nn.LoadCheckpoint(b); err != nil {
		t.Fatalf("best %s: %v", b, err)
	}
}

// listChunks reads every replay chunk of the run in dir: the examples of
// each by name, and their sum.
func (l *ledger) listChunks(t *testing.T, dir string) (map[string]int, int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, replayDir, "*"+replay.ChunkSuffix))
	now := map[string]int{}
	sum := 0
	for _, f := range files {
		_, ex, err := replay.ReadChunkFile(f)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) { // removed between Glob and read
				continue
			}
			t.Fatalf("chunk %s: %v", filepath.Base(f), err)
		}
		now[filepath.Base(f)] = len(ex)
		sum += len(ex)
		l.filesRead++
	}
	return now, sum
}

// tempFiles lists the temporary files left in the run folder.
func tempFiles(dir string) []string {
	var out []string
	for _, sub := range []string{"", checkpointDir, replayDir} {
		m, _ := filepath.Glob(filepath.Join(dir, sub, ".*"+atomicfile.TempSuffix))
		out = append(out, m...)
	}
	return out
}

// TestFaultConcurrentTrainers: second trainers started on a folder in use
// are refused (exit 1, "in use") and the running trainer is not disturbed.
func TestFaultConcurrentTrainers(t *testing.T) {
	train, _ := binaries(t)
	root := t.TempDir()
	cfg, dir := faultConfig(t, root), filepath.Join(root, "run")
	l := newLedger()
	// (10 s and 6 s of refusals: the trainer starts its bus server before the
	// first checkpoint, and a refused one links the NATS server too.)
	a := startProc(t, "trainer", "", nil, train, trainArgs(cfg, dir, "iterations=0", "duration=10s", "selfplay.workers=1", "keep_checkpoints=3")...)
	waitFor(t, 20*time.Second, "the first checkpoint", func() bool {
		_, err := os.Stat(filepath.Join(dir, checkpointDir, "ckpt-000001.tbn"))
		return err == nil
	})
	refused := 0
	for started := time.Now(); a.running() && time.Since(started) < 6*time.Second; {
		b := startProc(t, "second trainer", "", nil, train, trainArgs(cfg, dir, "iterations=0", "duration=1s", "selfplay.workers=1")...)
		code := b.wait(t, 20*time.Second)
		if code == 0 && !a.running() {
			break // the first one had just finished: this one was entitled to the folder
		}
		if code != 1 || !strings.Contains(b.out.String(), "is in use by another training process") {
			t.Fatalf("second trainer: exit %d, output:\n%s", code, b.out.String())
		}
		refused++
		l.check(t, dir)
	}
	if code := a.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("the running trainer failed beside refused ones (exit %d):\n%s", code, a.out.String())
	}
	l.check(t, dir)
	if left := tempFiles(dir); len(left) > 0 {
		t.Fatalf("temporary files left after clean exits: %v", left)
	}
	if refused < 3 {
		t.Fatalf("only %d second trainers ran beside the first: too few to test anything", refused)
	}
	t.Logf("figures: %d refused trainers beside a running one; %d checks, %d files verified, %d chunks", refused, l.checks, l.filesRead, len(l.chunks))
}

// TestFaultSelfPlayBesideTrainer: cmd/selfplay workers started, finished and
// killed (SIGKILL) beside a trainer writing one-game chunks; then the
// trainer restarted while a long worker runs. Nobody deletes anybody's
// chunk in flight.
func TestFaultSelfPlayBesideTrainer(t *testing.T) {
	train, selfplay := binaries(t)
	root := t.TempDir()
	cfg, dir := faultConfig(t, root), filepath.Join(root, "run")
	l := newLedger()
	rng := rand.New(rand.NewPCG(3, 4))
	args := trainArgs(cfg, dir, "iterations=0", "duration=5s", "selfplay.workers=1", "selfplay.chunk_games=1", "keep_checkpoints=3")
	a := startProc(t, "trainer", "", nil, train, args...)
	waitFor(t, 10*time.Second, "the run's best network", func() bool { b, _ := readBest(dir); return b != "" })
	cycles, killed := 0, 0
	for a.running() {
		w := startProc(t, "worker", "", nil, selfplay, "-run", dir, "-games", "2", "-workers", "1")
		if rng.IntN(2) == 0 {
			time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond)
			if w.running() {
				w.cmd.Process.Signal(syscall.SIGKILL)
				killed++
			}
			w.wait(t, 10*time.Second)
		} else if code := w.wait(t, 20*time.Second); code != 0 {
			t.Fatalf("worker beside the trainer: exit %d:\n%s", code, w.out.String())
		}
		cycles++
		l.check(t, dir)
	}
	if code := a.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("trainer beside %d workers: exit %d:\n%s", cycles, code, a.out.String())
	}
	// The other way round: a long worker, and trainers (re)started and
	// interrupted beside it.
	w := startProc(t, "long worker", "", nil, selfplay, "-run", dir, "-workers", "1")
	for i := 0; i < 2; i++ {
		a := startProc(t, "restarted trainer", "", nil, train, trainArgs(cfg, dir, "iterations=0", "duration=1500ms", "selfplay.workers=1", "selfplay.chunk_games=1", "keep_checkpoints=3")...)
		if code := a.wait(t, 20*time.Second); code != 0 {
			t.Fatalf("restarted trainer: exit %d:\n%s", code, a.out.String())
		}
		cycles++
		l.check(t, dir)
	}
	if !w.running() {
		t.Fatalf("the long worker died beside restarted trainers (exit %d):\n%s", w.code, w.out.String())
	}
	w.cmd.Process.Signal(syscall.SIGINT)
	if code := w.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("long worker after Ctrl-C: exit %d:\n%s", code, w.out.String())
	}
	l.check(t, dir)
	workerChunks := 0
	for name := range l.chunks {
		if strings.Contains(name, "-w-") {
			workerChunks++
		}
	}
	if workerChunks == 0 || len(l.chunks) == workerChunks {
		t.Fatalf("%d chunks, %d of them from workers: the processes did not both write", len(l.chunks), workerChunks)
	}
	t.Logf("figures: %d worker/trainer cycles (%d workers killed with SIGKILL); %d checks, %d files verified, %d chunks (%d from workers)",
		cycles, killed, l.checks, l.filesRead, len(l.chunks), workerChunks)
}

// TestFaultUnwritableReplay: self-play cannot write its chunks (replay/ not
// writable), so the trainer, which still has games to train on, must stop
// with an error rather than train on a frozen buffer.
func TestFaultUnwritableReplay(t *testing.T) {
	train, _ := binaries(t)
	root := t.TempDir()
	cfg, dir := faultConfig(t, root), filepath.Join(root, "run")
	first := startProc(t, "trainer", "", nil, train, trainArgs(cfg, dir, "iterations=1")...)
	if code := first.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("first run: exit %d:\n%s", code, first.out.String())
	}
	l := newLedger()
	l.check(t, dir)
	var attr *syscall.SysProcAttr
	if os.Geteuid() == 0 {
		// Root writes anywhere: run the trainer as nobody, owning everything
		// in the run folder but replay/.
		const nobody = 65534
		// t.TempDir's two folders (the test's and root) are 0700: open them,
		// and nothing above them.
		for _, p := range []string{filepath.Dir(root), root} {
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && !strings.HasPrefix(p, filepath.Join(dir, replayDir)) {
				os.Chown(p, nobody, nobody)
			}
			return nil
		})
		os.Chmod(filepath.Join(dir, replayDir), 0o755)
		attr = runAs(nobody)
	} else {
		os.Chmod(filepath.Join(dir, replayDir), 0o555)
		defer os.Chmod(filepath.Join(dir, replayDir), 0o755)
	}
	start := time.Now()
	p := startProc(t, "trainer on an unwritable replay folder", "", attr, train, trainArgs(cfg, dir, "iterations=0", "duration=60s")...)
	code := p.wait(t, 40*time.Second)
	out := p.out.String()
	if code == 0 || !strings.Contains(out, "self-play failed 4 times in a row") || !strings.Contains(out, "permission denied") {
		t.Fatalf("trainer with an unwritable replay folder: exit %d after %v, output:\n%s", code, time.Since(start), out)
	}
	l.check(t, dir)
	t.Logf("figures: stopped with exit %d after %v; %d files verified", code, time.Since(start).Round(100*time.Millisecond), l.filesRead)
}

// TestFaultFullDisk: file writes fail with "file too large" (RLIMIT_FSIZE,
// standing in for a full disk): first only checkpoints (16 KiB limit), then
// chunks too (4 KiB). The trainer stops with the error and a non-zero exit,
// leaves no half-written file, and a restart with room goes on.
func TestFaultFullDisk(t *testing.T) {
	train, _ := binaries(t)
	root := t.TempDir()
	cfg, dir := faultConfig(t, root), filepath.Join(root, "run")
	first := startProc(t, "trainer", "", nil, train, trainArgs(cfg, dir, "iterations=1")...)
	if code := first.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("first run: exit %d:\n%s", code, first.out.String())
	}
	l := newLedger()
	l.check(t, dir)
	for _, c := range []struct {
		limitKiB    int
		want        string
		minExamples int
	}{
		// Nothing fits: the bus's own storage (in the run folder) cannot
		// take the config, and the trainer stops at start.
		{4, "bus: put checkpoint config.yaml", 5000},
		// Chunks (~6 KB) fit, checkpoints (~35 KB) do not.
		{16, "checkpoint", 64},
	} {
		p := startProc(t, fmt.Sprintf("trainer with %d KiB files", c.limitKiB), fmt.Sprintf("ulimit -f %d", c.limitKiB), nil,
			train, trainArgs(cfg, dir, "iterations=0", "duration=60s", fmt.Sprintf("train.min_examples=%d", c.minExamples))...)
		code := p.wait(t, 40*time.Second)
		out := p.out.String()
		if code == 0 || !strings.Contains(out, "file too large") || !strings.Contains(out, c.want) {
			t.Fatalf("%s: exit %d, output:\n%s", p.name, code, out)
		}
		if left := tempFiles(dir); len(left) > 0 {
			t.Fatalf("%s left half-written files: %v", p.name, left)
		}
		l.check(t, dir)
	}
	again := startProc(t, "trainer with room again", "", nil, train, trainArgs(cfg, dir, "iterations=2")...)
	if code := again.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("restart after the disk was full: exit %d:\n%s", code, again.out.String())
	}
	l.check(t, dir)
	t.Logf("figures: 2 limits, each stopped with exit 1; %d checks, %d files verified, %d chunks", l.checks, l.filesRead, len(l.chunks))
}

// TestFaultCorruptBest: a flipped byte in the best checkpoint, then a best
// pointer to a missing file: each restart falls back to the newest readable
// promoted checkpoint, says so, and finishes its iteration.
func TestFaultCorruptBest(t *testing.T) {
	train, _ := binaries(t)
	root := t.TempDir()
	cfg, dir := faultConfig(t, root), filepath.Join(root, "run")
	first := startProc(t, "trainer", "", nil, train, trainArgs(cfg, dir, "iterations=2", "gate.games=0")...)
	if code := first.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("first run: exit %d:\n%s", code, first.out.String())
	}
	l := newLedger()
	l.check(t, dir)
	damage := []func(best string){
		func(best string) {
			data, _ := os.ReadFile(best)
			data[len(data)/3] ^= 0x40
			os.WriteFile(best, data, 0o644)
		},
		func(string) {
			os.WriteFile(filepath.Join(dir, checkpointDir, bestFile), []byte("ckpt-000777.tbn\n"), 0o644)
		},
	}
	for i, harm := range damage {
		best, _ := readBest(dir)
		harm(best)
		p := startProc(t, "trainer after damage to best", "", nil, train, trainArgs(cfg, dir, fmt.Sprintf("iterations=%d", 3+i), "gate.games=0")...)
		if code := p.wait(t, 30*time.Second); code != 0 || !strings.Contains(p.out.String(), "falling back to the newest readable promoted checkpoint") {
			t.Fatalf("restart %d after damage to best: exit %d:\n%s", i+1, code, p.out.String())
		}
		l.check(t, dir) // the damaged checkpoint was trained again and replaced
	}
	t.Logf("figures: %d kinds of damage, each healed; %d files verified", len(damage), l.filesRead)
}

// TestFaultInterrupt: SIGINT (Ctrl-C) in the middle of a long iteration
// exits 0 and keeps the steps taken in a checkpoint.
func TestFaultInterrupt(t *testing.T) {
	train, _ := binaries(t)
	root := t.TempDir()
	cfg, dir := faultConfig(t, root), filepath.Join(root, "run")
	p := startProc(t, "trainer", "", nil, train, trainArgs(cfg, dir, "iterations=1", "train.steps_per_iteration=100000")...)
	waitFor(t, 20*time.Second, "the replay window to fill", func() bool {
		n, _ := filepath.Glob(filepath.Join(dir, replayDir, "*"+replay.ChunkSuffix))
		return len(n) >= 10
	})
	time.Sleep(time.Second)
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t, 20*time.Second); code != 0 || !strings.Contains(p.out.String(), "saved the unfinished iteration") {
		t.Fatalf("Ctrl-C: exit %d:\n%s", code, p.out.String())
	}
	ck, err := nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, "ckpt-000001.tbn"))
	if err != nil || ck.Meta["iteration_steps"] == "" || ck.Step < 1 {
		t.Fatalf("checkpoint of the interrupted iteration: %v, meta %v", err, ck)
	}
	l := newLedger()
	l.check(t, dir)
	t.Logf("figures: %d training steps kept after Ctrl-C; %d files verified", ck.Step, l.filesRead)
}
