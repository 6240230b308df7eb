package prefetch

import (
	"testing"
	"unsafe"
)

// TestLinesNeverFaults: a prefetch is a hint, so asking for memory that is
// not mapped (nil, or past the end of a slice) must not fault, nor must
// an empty or unaligned range.
func TestLinesNeverFaults(t *testing.T) {
	buf := make([]byte, 1000)
	Lines(unsafe.Pointer(&buf[3]), 997)
	Lines(unsafe.Pointer(&buf[0]), 0)
	Lines(nil, 4096)
	top := uintptr(1)<<47 - 64 // the top of user space: mapped nowhere
	Lines(*(*unsafe.Pointer)(unsafe.Pointer(&top)), 128)
}
