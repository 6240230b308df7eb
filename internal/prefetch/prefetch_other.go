//go:build !amd64

package prefetch

import "unsafe"

// Lines does nothing on this architecture.
func Lines(p unsafe.Pointer, n uintptr) {}
