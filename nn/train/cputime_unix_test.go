//go:build unix

package train

import "syscall"

// processCPUSeconds is the user+system CPU time of the process so far, so
// that benchmarks can report rates per CPU-second, which stay meaningful
// when other work shares the machine.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
