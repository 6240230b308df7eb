//go:build !unix

package train

// processCPUSeconds is unknown on this system; benchmarks skip the
// per-CPU-second rate.
func processCPUSeconds() float64 { return 0 }
