package gemm

import (
	"runtime"
	"testing"
	"time"

	"tabula/internal/cputime"
)

// cpuClock measures the CPU time of the calling goroutine's locked thread, so
// benchmark rates stay meaningful while other work shares the cores.
type cpuClock struct {
	start time.Duration
}

func threadCPU(b *testing.B) time.Duration {
	d := cputime.Thread()
	if d == 0 {
		b.Fatal("the thread CPU time is not measured")
	}
	return d
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
