package pipeline

import (
	"net"
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
	// Every acknowledged game is stored; a killed process can have had a
	// game stored that it did not live to log: at most one per self-play
	// goroutine (one here).
	for id, w := range acked {
		if inReplay[id] == 0 {
			t.Errorf("game %s@%s acknowledged, not in replay", id, w)
		}
	}
	for w, n := range extra {
		if (w != "wc" && w != trainerName) || n > 1 {
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
