package gogame_test

import "tabula/internal/cputime"

// cpuSeconds returns the CPU time this process has used, so that benchmarks
// can report rates per CPU-second, which hold on a shared, loaded machine.
func cpuSeconds() float64 {
	return cputime.Process().Seconds()
}
