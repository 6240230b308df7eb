package c4solver

// prefetch asks the processor to bring the cache line holding *p into the
// cache without waiting for it (the x86 PREFETCHT0 instruction).
//
//go:noescape
func prefetch(p *uint64)
