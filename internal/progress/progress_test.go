package progress

import (
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
