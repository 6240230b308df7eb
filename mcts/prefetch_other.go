//go:build !amd64

package mcts

import "unsafe"

// prefetch does nothing on this architecture: it is only a hint.
func prefetch(p unsafe.Pointer, n uintptr) {}
