//go:build race

package gemm

// raceEnabled reports a -race build, where sync.Pool drops items on purpose.
const raceEnabled = true
