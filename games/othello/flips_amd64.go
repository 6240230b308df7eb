package othello

import "golang.org/x/sys/cpu"

// flipsAsm says whether Flips runs flipsAVX512: its eight rays in the eight
// lanes of one 512-bit register, the downward ones by AVX-512CD's leading
// zero count: 3.6 ns a call against the portable code's 10.2 (Zen 5), whose
// eight rays spill registers.
var flipsAsm = cpu.X86.HasAVX512F && cpu.X86.HasAVX512CD && cpu.X86.HasAVX2

// flipsAVX512 is flipsGeneric in AVX-512 (flips_amd64.s).
func flipsAVX512(sq int, p, o uint64) uint64

// Flips returns the discs of o that turn over when the owner of p plays on
// the empty square sq (0..63 in the 8-wide layout). It is zero exactly when
// the move is illegal.
func Flips(sq int, p, o uint64) uint64 {
	if flipsAsm {
		return flipsAVX512(sq, p, o)
	}
	return flipsGeneric(sq, p, o)
}
