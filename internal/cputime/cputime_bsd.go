//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package cputime

import (
	"syscall"
	"time"
)

// Thread is not measured on this system: 0.
func Thread() time.Duration { return 0 }

// Process returns the user and system CPU time of the whole process, from
// getrusage, or 0 if it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ThreadMeasured reports whether Thread reads a real clock on this system:
// false here.
func ThreadMeasured() bool { return false }
