//go:build !linux

package c4solver

// newTable allocates n entries.
func newTable(n int) []uint64 { return make([]uint64, n) }
