package progress

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestProgressLinesWithoutTerminal: off a terminal, progress comes as plain
// periodic lines, never carriage-return bars.
func TestProgressLinesWithoutTerminal(t *testing.T) {
	defer func(d time.Duration) { LineEvery = d }(LineEvery)
	LineEvery = 20 * time.Millisecond
	var out strings.Builder
	p := New(&out, 100, "self-play filling")
	if _, ok := p.(*lineProgress); !ok {
		t.Fatalf("a strings.Builder got %T, want plain lines", p)
	}
	p.Set(10)
	time.Sleep(30 * time.Millisecond)
	p.Set(40)
	p.Add(60)
	p.Finish()
	got := out.String()
	if strings.Contains(got, "\r") || !strings.Contains(got, "self-play filling: 40/100 (40%)") ||
		!strings.HasSuffix(got, "self-play filling: 100/100 (100%), 0s elapsed\n") {
		t.Fatalf("progress lines:\n%q", got)
	}
	if _, ok := New(nil, 5, "x").(noProgress); !ok {
		t.Fatal("nil writer should show nothing")
	}
}

// TestIsTerminal: a regular file and a pipe are not terminals; a
// pseudo-terminal is, where the system has one to open.
func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("a regular file reported as a terminal")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(w) {
		t.Error("a pipe reported as a terminal")
	}
	if _, ok := New(w, 10, "x").(*lineProgress); !ok {
		t.Error("a pipe should get plain lines")
	}
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to check the positive case: %v", err)
	}
	defer pty.Close()
	if !IsTerminal(pty) {
		t.Error("a pseudo-terminal reported as not a terminal")
	}
}
