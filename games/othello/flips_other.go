//go:build !amd64

package othello

// flipsAsm is false: flipsAVX512 exists only on amd64.
const flipsAsm = false

func flipsAVX512(sq int, p, o uint64) uint64 { panic("othello: no AVX-512 flips on this architecture") }

// Flips returns the discs of o that turn over when the owner of p plays on
// the empty square sq (0..63 in the 8-wide layout). It is zero exactly when
// the move is illegal.
func Flips(sq int, p, o uint64) uint64 { return flipsGeneric(sq, p, o) }
