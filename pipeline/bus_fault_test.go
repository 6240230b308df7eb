package pipeline

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// publishedRe finds the games a process saw acknowledged by the stream
// (its debug log line "game published").
var publishedRe = regexp.MustCompile(`msg="game published" id=([0-9a-f]+) worker=(\S+)`)

// published returns the ids p logged as published, with their worker.
func (p *proc) published() map[string]string {
	out := map[string]string{}
	for _, m := range publishedRe.FindAllStringSubmatch(p.out.String(), -1) {
		out[m[1]] = m[2]
	}
	return out
}

// freePort returns a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestFaultBusWorkers: the trainer and cmd/selfplay -connect worker
// processes on loopback. Worker wa plays from the start; wc is killed with
// SIGKILL in the middle of its games; the trainer is killed with SIGKILL and
// restarted while wa keeps playing (its games wait, then go through); wb
// joins late. At the end the games in the replay folder are exactly the
// games the stream acknowledged to each process, each once, tagged with the
// worker that played it: nothing acknowledged is lost, nothing counted twice.
func TestFaultBusWorkers(t *testing.T) {
	train, selfplay := binaries(t)
	root := t.TempDir()
	cfg, dir := faultConfig(t, root), filepath.Join(root, "run")
	port := freePort(t)
	url := "nats://127.0.0.1:" + strconv.Itoa(port)
	args := append(trainArgs(cfg, dir, "iterations=0", "duration=60s", "selfplay.workers=1", "bus.max_stale_generations=1000"),
		"-listen", "127.0.0.1:"+strconv.Itoa(port), "-v")
	worker := func(name string, extra ...string) *proc {
		return startProc(t, "worker "+name, "", nil, selfplay,
			append([]string{"-connect", url, "-id", name, "-workers", "1", "-quiet", "-v"}, extra...)...)
	}
	start := time.Now()
	atLeast := func(p *proc, n int, what string) {
		t.Helper()
		defer func() { t.Logf("%5.1fs %s", time.Since(start).Seconds(), what) }()
		waitFor(t, 30*time.Second, what, func() bool {
			if !p.running() {
				t.Fatalf("%s ended (exit %d):\n%s", p.name, p.code, p.out.String())
			}
			return len(p.published()) >= n
		})
	}
	// A worker started before the trainer waits for it.
	wa := worker("wa")
	time.Sleep(300 * time.Millisecond)
	tr1 := startProc(t, "trainer", "", nil, train, args...)
	atLeast(wa, 3, "wa's first games")
	wc := worker("wc")
	atLeast(wc, 1, "wc's first game")
	wc.cmd.Process.Signal(syscall.SIGKILL)
	wc.wait(t, 10*time.Second)

	// The trainer dies (its embedded server with it) and comes back.
	atLeast(tr1, 2, "the trainer's own games")
	tr1.cmd.Process.Signal(syscall.SIGKILL)
	tr1.wait(t, 10*time.Second)
	beforeRestart := len(wa.published())
	time.Sleep(time.Second)
	tr2 := startProc(t, "restarted trainer", "", nil, train, args...)
	atLeast(wa, beforeRestart+2, "wa's games after the trainer's restart")
	wb := worker("wb")
	atLeast(wb, 3, "the late joiner's games")
	for _, w := range []*proc{wa, wb} {
		w.cmd.Process.Signal(syscall.SIGINT)
		if code := w.wait(t, 20*time.Second); code != 0 {
			t.Fatalf("%s after Ctrl-C: exit %d:\n%s", w.name, code, w.out.String())
		}
	}

	// Every game acknowledged to a worker reaches the replay folder while
	// the trainer runs; the trainer's own, as it stops.
	acked := map[string]string{}
	for _, p := range []*proc{wa, wb, wc, tr1} {
		for id, w := range p.published() {
			acked[id] = w
		}
	}
	waitFor(t, 30*time.Second, "the trainer to store every acknowledged game", func() bool {
		inReplay, _, _, err := ledgerIDs(dir)
		if err != nil {
			return false
		}
		for id := range acked {
			if inReplay[id] == 0 {
				return false
			}
		}
		return true
	})
	t.Logf("%5.1fs all stored", time.Since(start).Seconds())
	// An iteration's line names the workers (it comes after the games that
	// waited for the restarted trainer are taken).
	waitFor(t, 30*time.Second, "the restarted trainer's line of workers", func() bool {
		out := tr2.out.String()
		return strings.Contains(out, "wa ") && strings.Contains(out, "alive)")
	})
	tr2.cmd.Process.Signal(syscall.SIGINT)
	if code := tr2.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("restarted trainer after Ctrl-C: exit %d:\n%s", code, tr2.out.String())
	}
	for id, w := range tr2.published() {
		acked[id] = w
	}
	inReplay, workerOf, dropped, err := ledgerIDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) > 0 {
		t.Errorf("%d games dropped as stale or damaged", len(dropped))
	}
	extra := map[string]int{}
	perWorker := map[string]int{}
	for id, n := range inReplay {
		if n != 1 {
			t.Errorf("game %s stored %d times", id, n)
		}
		perWorker[workerOf[id]]++
		if w, ok := acked[id]; ok {
			if w != workerOf[id] {
				t.Errorf("game %s played by %s is tagged %s", id, w, workerOf[id])
			}
		} else {
			extra[workerOf[id]]++
			t.Logf("not logged as acknowledged: %s@%s", id, workerOf[id])
		}
	}
	// Every acknowledged game is stored; a killed process can have had
	// games stored that it did not live to log: at most one per publish in
	// flight (publishConcurrency a busSink).
	for id, w := range acked {
		if inReplay[id] == 0 {
			t.Errorf("game %s@%s acknowledged, not in replay", id, w)
		}
	}
	for w, n := range extra {
		if (w != "wc" && w != trainerName) || n > publishConcurrency {
			for _, p := range []*proc{wa, wb, wc, tr1, tr2} {
				t.Logf("%s:\n%s", p.name, p.out.String())
			}
			t.Errorf("%d games of %s in replay that it never saw acknowledged", n, w)
		}
	}
	for _, w := range []string{"wa", "wb", "wc", trainerName} {
		if perWorker[w] == 0 {
			t.Errorf("no games of %s in replay: %v", w, perWorker)
		}
	}
	_, examples := replayExamples(t, dir)
	if !strings.Contains(tr2.out.String(), "wa ") || !strings.Contains(tr2.out.String(), "alive)") {
		t.Errorf("the progress line does not show the workers:\n%s", tr2.out.String())
	}
	l := newLedger()
	l.check(t, dir)
	t.Logf("figures: %d games stored once each (%v), %d acknowledged and logged, %d chunks on disk",
		len(inReplay), perWorker, len(acked), len(examples))
}

// natsProcess starts a standalone NATS server (this test binary, see
// TestMain) with its storage in dir, listening on addr, and returns once it
// accepts connections.
func natsProcess(t *testing.T, dir, addr, token string) *proc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{name: "nats server", done: make(chan struct{})}
	p.cmd = exec.Command(self, "-test.run=^$")
	p.cmd.Env = append(os.Environ(), natsProcessEnv+"="+dir, "TABULA_PIPELINE_TEST_NATS_LISTEN="+addr,
		"TABULA_PIPELINE_TEST_NATS_TOKEN="+token)
	p.cmd.Stderr = &p.out
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go func() {
		p.cmd.Wait()
		p.code = -1
		close(p.done)
	}()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	if err != nil || !strings.HasPrefix(line, "nats://") {
		t.Fatalf("nats server process: first line %q, %v\n%s", line, err, p.out.String())
	}
	return p
}

// TestFaultBusServerKilled: the trainer and a cmd/selfplay -connect worker
// share a standalone NATS server (-nats URL), which is killed with SIGKILL
// under them and restarted on the same storage a few seconds later. Both
// processes ride through it: they keep running, reconnect and play on, and
// the games in the replay folder are exactly the games the stream
// acknowledged, each once.
func TestFaultBusServerKilled(t *testing.T) {
	train, selfplay := binaries(t)
	root := t.TempDir()
	cfg, dir := faultConfig(t, root), filepath.Join(root, "run")
	store := filepath.Join(root, "nats")
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	url := "nats://" + addr
	const token = "kill-test-token"
	srv := natsProcess(t, store, addr, token)
	args := append(trainArgs(cfg, dir, "iterations=0", "duration=60s", "selfplay.workers=1", "bus.max_stale_generations=1000"),
		"-nats", url, "-token", token, "-v")
	tr := startProc(t, "trainer", "", nil, train, args...)
	wa := startProc(t, "worker wa", "", nil, selfplay, "-connect", url, "-token", token, "-id", "wa", "-workers", "1", "-quiet", "-v")
	start := time.Now()
	atLeast := func(p *proc, n int, what string) {
		t.Helper()
		defer func() { t.Logf("%5.1fs %s", time.Since(start).Seconds(), what) }()
		waitFor(t, 40*time.Second, what, func() bool {
			if !p.running() {
				t.Fatalf("%s ended (exit %d):\n%s", p.name, p.code, p.out.String())
			}
			return len(p.published()) >= n
		})
	}
	atLeast(wa, 3, "wa's first games")
	atLeast(tr, 2, "the trainer's own first games")

	srv.cmd.Process.Signal(syscall.SIGKILL)
	<-srv.done
	beforeW, beforeT := len(wa.published()), len(tr.published())
	time.Sleep(3 * time.Second)
	for _, p := range []*proc{tr, wa} {
		if !p.running() {
			t.Fatalf("%s ended while the server was down (exit %d):\n%s", p.name, p.code, p.out.String())
		}
	}
	natsProcess(t, store, addr, token)
	t.Logf("%5.1fs server restarted", time.Since(start).Seconds())
	atLeast(wa, beforeW+3, "wa's games after the server's restart")
	atLeast(tr, beforeT+2, "the trainer's games after the server's restart")

	wa.cmd.Process.Signal(syscall.SIGINT)
	if code := wa.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("wa after Ctrl-C: exit %d:\n%s", code, wa.out.String())
	}
	acked := wa.published()
	waitFor(t, 30*time.Second, "the trainer to store every game acknowledged to wa", func() bool {
		inReplay, _, _, err := ledgerIDs(dir)
		if err != nil {
			return false
		}
		for id := range acked {
			if inReplay[id] == 0 {
				return false
			}
		}
		return true
	})
	tr.cmd.Process.Signal(syscall.SIGINT)
	if code := tr.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("trainer after Ctrl-C: exit %d:\n%s", code, tr.out.String())
	}
	for id, w := range tr.published() {
		acked[id] = w
	}
	inReplay, workerOf, dropped, err := ledgerIDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) > 0 {
		t.Errorf("%d games dropped as stale or damaged", len(dropped))
	}
	for id, n := range inReplay {
		if n != 1 {
			t.Errorf("game %s stored %d times", id, n)
		}
		if w, ok := acked[id]; ok && w != workerOf[id] {
			t.Errorf("game %s played by %s is tagged %s", id, w, workerOf[id])
		}
	}
	// Every game acknowledged before, during or after the outage is stored.
	// A publish cut by the kill is retried with the same id, so a game the
	// stream took but could not acknowledge is stored once, not lost.
	for id, w := range acked {
		if inReplay[id] == 0 {
			t.Errorf("game %s@%s acknowledged, not in replay", id, w)
		}
	}
	if t.Failed() {
		t.Logf("trainer:\n%s\nworker:\n%s", tr.out.String(), wa.out.String())
	}
	l := newLedger()
	l.check(t, dir)
	t.Logf("figures: %d games stored once each, %d acknowledged (wa %d before the kill, %d in all)",
		len(inReplay), len(acked), beforeW, len(wa.published()))
}
