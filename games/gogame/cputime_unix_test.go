//go:build unix

package gogame_test

import "syscall"

// cpuSeconds returns the CPU time this process has used, so that benchmarks
// can report rates per CPU-second, which hold on a shared, loaded machine.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
