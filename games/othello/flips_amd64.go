//go:build amd64 && !noasm

package othello

import "golang.org/x/sys/cpu"

// flipsAsm says whether Flips runs flipsAVX512: its eight rays in the eight
// lanes of one 512-bit register, the downward ones by AVX-512CD's leading
// zero count: 3.6 ns a call against the portable code's 10.2 (Zen 5), whose
// eight rays spill registers.
var flipsAsm = cpu.X86.HasAVX512F && cpu.X86.HasAVX512CD && cpu.X86.HasAVX2

// flipsAVX512 is flipsGeneric in AVX-512 (flips_amd64.s).
func flipsAVX512(sq int, p, o uint64) uint64
