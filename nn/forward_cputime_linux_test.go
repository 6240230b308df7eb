package nn

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU returns the CPU time this process has used, so that benchmark
// rates stay meaningful while other work shares the cores; ok is false where
// it cannot be read.
func processCPU() (d time.Duration, ok bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
