package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestClocksAdvance checks that the clocks this system measures advance
// while the calling thread spins, by no more than the wall-clock time it
// spun, and that the process's clock counts at least the thread's time.
func TestClocksAdvance(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	t0, p0 := Thread(), Process()
	for time.Since(start) < 50*time.Millisecond {
	}
	t1, p1 := Thread(), Process()
	wall := time.Since(start)
	if runtime.GOOS == "linux" && (t0 == 0 || p0 == 0) {
		t.Fatalf("Linux clocks not measured: thread %v, process %v", t0, p0)
	}
	const slack = 2 * time.Millisecond // granularity and the reads' own order
	if t0 != 0 {
		if d := t1 - t0; d <= 0 || d > wall+slack {
			t.Errorf("thread CPU advanced %v over %v of spinning", d, wall)
		}
	}
	if p0 != 0 {
		if d := p1 - p0; d <= 0 {
			t.Errorf("process CPU advanced %v over %v of spinning", d, wall)
		}
		if t0 != 0 && p1-p0 < t1-t0-slack {
			t.Errorf("process CPU advanced %v, less than the thread's %v", p1-p0, t1-t0)
		}
	}
}
