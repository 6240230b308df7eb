package pipeline

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"tabula/internal/cputime"
	"tabula/internal/metrics"
)

// timedTrainIteration runs trainIteration on an OS thread of its own and
// adds the thread's CPU time to t.trainCPU: the training steps run on the
// calling goroutine alone (nn/train starts none), so the thread clock
// measures them.
func (t *Trainer) timedTrainIteration(ctx context.Context) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := cputime.Thread()
	err := t.trainIteration(ctx)
	if c0 > 0 {
		t.trainCPU += cputime.Thread() - c0
	}
	return err
}

// cpuMetrics returns the metrics line's cpu section, the CPU time since the
// previous line: the process's, the trainer's self-play games' (selfPlay,
// from the workers' thread clocks) and the training steps'. It is nil where
// the process clock is not measured.
func (t *Trainer) cpuMetrics(selfPlay time.Duration) *metrics.CPU {
	now := cputime.Process()
	proc, train := now-t.procCPU, t.trainCPU
	t.procCPU, t.trainCPU = now, 0
	if now == 0 {
		return nil
	}
	c := &metrics.CPU{ProcessS: metrics.Float(proc.Seconds())}
	if cputime.ThreadMeasured() {
		c.SelfPlayS = metrics.Ptr(metrics.Float(selfPlay.Seconds()))
		c.TrainS = metrics.Ptr(metrics.Float(train.Seconds()))
	}
	return c
}

// cpuLine describes a cpu section for the log: "45.2 s (self-play 61%,
// training 30%)", or "" without one.
func cpuLine(c *metrics.CPU) string {
	if c == nil || c.ProcessS <= 0 {
		return ""
	}
	s := fmt.Sprintf("%.1f s", float64(c.ProcessS))
	if c.SelfPlayS != nil && c.TrainS != nil {
		s += fmt.Sprintf(" (self-play %.0f%%, training %.0f%%)", 100*float64(*c.SelfPlayS/c.ProcessS), 100*float64(*c.TrainS/c.ProcessS))
	}
	return s
}
