//go:build !amd64 || noasm

package othello

// flipsAsm is false: flipsAVX512 exists only on amd64 builds without the
// noasm tag.
const flipsAsm = false

func flipsAVX512(sq int, p, o uint64) uint64 { panic("othello: no AVX-512 flips on this architecture") }
