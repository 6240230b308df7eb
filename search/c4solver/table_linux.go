//go:build linux

package c4solver

import (
	"syscall"
	"unsafe"
)

// newTable allocates n entries and asks Linux to back them with huge pages
// where it can (transparent huge pages in "madvise" mode): the table is
// probed at random, and 4 KiB pages would make nearly every probe a TLB
// miss. The advice is only a hint; failure to follow it is harmless.
func newTable(n int) []uint64 {
	t := make([]uint64, n)
	const huge = 2 << 20
	start := uintptr(unsafe.Pointer(&t[0]))
	end := start + uintptr(n)*8
	first := (start + huge - 1) &^ (huge - 1)
	last := end &^ (huge - 1)
	if last > first {
		b := unsafe.Slice((*byte)(unsafe.Pointer(&t[(first-start)/8])), last-first)
		_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // a hint: ignoring failure is correct
	}
	return t
}
