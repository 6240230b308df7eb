//go:build !unix

package gogame_test

// cpuSeconds returns 0 where the process CPU time is not at hand; benchmarks
// then report wall-clock rates only.
func cpuSeconds() float64 { return 0 }
