//go:build unix

package bus

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time (user + system) this process has used: the
// embedded server's and the clients' together, the fair measure of the
// bus's cost on a shared machine where wall time is noisy.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
