//go:build !amd64 || noasm

package prefetch

import "unsafe"

// Lines does nothing: no prefetch instruction is written for this
// architecture, or the build has the noasm tag.
func Lines(p unsafe.Pointer, n uintptr) {}
