package nn

import (
	"time"

	"tabula/internal/cputime"
)

// processCPU returns the CPU time this process has used, so that benchmark
// rates stay meaningful while other work shares the cores; ok is false where
// it cannot be read.
func processCPU() (d time.Duration, ok bool) {
	d = cputime.Process()
	return d, d > 0
}
