package train

import "tabula/internal/cputime"

// processCPUSeconds is the user+system CPU time of the process so far, so
// that benchmarks can report rates per CPU-second, which stay meaningful
// when other work shares the machine.
func processCPUSeconds() float64 {
	return cputime.Process().Seconds()
}
