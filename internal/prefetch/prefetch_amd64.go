//go:build amd64 && !noasm

package prefetch

import "unsafe"

// Lines asks for each 64-byte line of the n bytes at p (PREFETCHT0), without
// waiting for them.
//
//go:noescape
func Lines(p unsafe.Pointer, n uintptr)
