//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package cputime

import "time"

// Thread is not measured on this system: 0.
func Thread() time.Duration { return 0 }

// Process is not measured on this system: 0.
func Process() time.Duration { return 0 }

// ThreadMeasured reports whether Thread reads a real clock on this system:
// false here.
func ThreadMeasured() bool { return false }
