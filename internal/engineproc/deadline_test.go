package engineproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain runs the test binary as a stand-in engine when its arguments are
// "engine MODE", MODE naming what it does on its first input line: "sleep"
// (waits, as a hung engine), "spin" (computes forever), "duty" (works a
// quarter of the time for one second of wall time, as an engine sharing a
// loaded machine, then answers "done").
func TestMain(m *testing.M) {
	if len(os.Args) != 3 || os.Args[1] != "engine" {
		os.Exit(m.Run())
	}
	mode := os.Args[2]
	bufio.NewReader(os.Stdin).ReadString('\n')
	switch mode {
	case "sleep":
		time.Sleep(time.Hour)
	case "spin":
		for x := 0; ; x++ {
			runtime.KeepAlive(x)
		}
	case "duty":
		start := time.Now()
		for time.Since(start) < time.Second {
			busy := time.Now()
			for time.Since(busy) < 10*time.Millisecond {
			}
			time.Sleep(30 * time.Millisecond)
		}
		fmt.Println("done")
		time.Sleep(time.Hour)
	}
	os.Exit(0)
}

// startHelper starts the test binary as an engine in mode.
func startHelper(t *testing.T, mode string) *Proc[string] {
	t.Helper()
	p, err := Start(Config{Path: os.Args[0], Args: []string{"engine", mode}, Prefix: "test", Died: errors.New("died")}, func(r io.Reader) func() (string, bool, error) {
		lr := NewLineReader(r, 1000)
		return func() (string, bool, error) {
			line, _, err := lr.Next()
			return line, false, err
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Shutdown)
	if err := p.Send("go"); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDeadlineOnCPUTime checks the deadline of one answer: an engine that
// works slowly (a quarter of a core, as on a machine loaded by other jobs)
// answers after more wall time than the cap and is waited for, where a
// deadline in wall time alone would have made it forfeit; a hung engine
// (waiting) and one computing without end still time out, each with the
// reason.
func TestDeadlineOnCPUTime(t *testing.T) {
	if _, ok := processCPU(os.Getpid()); !ok {
		t.Skip("no /proc/PID/stat here: the deadline is in wall time only")
	}
	const c = 500 * time.Millisecond
	for _, tc := range []struct {
		mode string
		want []string // the answer, or the reason's possible words
	}{
		{"duty", []string{"done"}},
		{"sleep", []string{"it was not working"}},
		{"spin", []string{"of its CPU time", "times the cap"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			p := startHelper(t, tc.mode)
			start := time.Now()
			dl := p.Deadline(c)
			defer dl.Stop()
			line, err := p.Receive(context.Background(), dl.C, "go", func() error { return errors.New(dl.Why()) })
			wall := time.Since(start)
			if tc.mode == "duty" {
				if err != nil || line != "done" {
					t.Fatalf("a working engine: %q, %v after %v, want its answer", line, err, wall)
				}
				if wall < c {
					t.Fatalf("answered after %v, before the cap %v: the test shows nothing", wall, c)
				}
				return
			}
			if err == nil {
				t.Fatalf("answer %q, want a timeout", line)
			}
			found := false
			for _, w := range tc.want {
				found = found || strings.Contains(err.Error(), w)
			}
			if !found {
				t.Fatalf("timed out with %q, want one of %q", err, tc.want)
			}
			if wall < c || wall > maxStretch*c+time.Second {
				t.Fatalf("timed out after %v, want between the cap %v and %v", wall, c, maxStretch*c+time.Second)
			}
		})
	}
}

// TestDeadlineWallTime checks the deadline where no CPU time can be read
// (no process): the cap in wall time; and none without a cap.
func TestDeadlineWallTime(t *testing.T) {
	if _, ok := processCPU(0); ok {
		t.Fatal("processCPU(0) read a CPU time")
	}
	if d := (&Proc[string]{cmd: &exec.Cmd{}}).Deadline(0); d.C != nil {
		t.Fatal("no cap: a deadline")
	}
	start := time.Now()
	d := (&Proc[string]{cmd: &exec.Cmd{}}).Deadline(100 * time.Millisecond)
	defer d.Stop()
	<-d.C
	if w := time.Since(start); w < 100*time.Millisecond {
		t.Fatalf("fired after %v", w)
	}
	if d.Why() != "within 100ms" {
		t.Fatalf("why %q", d.Why())
	}
}
