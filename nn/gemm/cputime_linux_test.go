package gemm

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// cpuClock measures the CPU time of the calling goroutine's locked thread, so
// benchmark rates stay meaningful while other work shares the cores.
type cpuClock struct {
	start time.Duration
}

func threadCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatalf("clock_gettime: %v", err)
	}
	return time.Duration(ts.Nano())
}

func startCPUClock(b *testing.B) *cpuClock {
	runtime.LockOSThread()
	b.Cleanup(runtime.UnlockOSThread)
	return &cpuClock{start: threadCPU(b)}
}

// report adds the rate per CPU second of flops floating-point operations.
func (c *cpuClock) report(b *testing.B, flops float64) {
	d := threadCPU(b) - c.start
	if d > 0 {
		b.ReportMetric(flops/d.Seconds()/1e9, "GFLOP/cpu-s")
	}
}
