//go:build !amd64

package c4solver

// prefetch does nothing where no prefetch instruction is wired up.
func prefetch(*uint64) {}
