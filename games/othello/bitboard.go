package othello

import "math/bits"

// The bitboards of this package use one layout for both sizes: bit
// row*8+col holds the square in row row and column col, counted from 0 at the
// top left (a1 = bit 0, h1 = bit 7, a8 = bit 56). A 6x6 board uses the top
// left 6x6 corner of that layout, and the other squares are always empty.

// notEdgeCols masks out columns a and h, so that horizontal and diagonal
// propagation never wraps from one row into the next.
const notEdgeCols = 0x7E7E7E7E7E7E7E7E

// Moves returns the squares where the player owning p may play against the
// discs o, on the 8-wide layout. Callers on a smaller board intersect the
// result with their board mask.
func Moves(p, o uint64) uint64 {
	m := o & notEdgeCols
	return (movesDir(p, m, 1) | movesDir(p, o, 8) | movesDir(p, m, 7) | movesDir(p, m, 9)) &^ (p | o)
}

// movesDir returns the squares just beyond a run of mask discs that starts
// next to a disc of p, in both senses of direction dir (a shift of 1, 7, 8 or
// 9). Runs are grown by parallel prefix (Kogge-Stone): lengths 1, 2, then 4,
// then 6, the longest run that fits between two discs on a line of 8.
func movesDir(p, mask uint64, dir uint) uint64 {
	fl := mask & (p << dir)
	fr := mask & (p >> dir)
	fl |= mask & (fl << dir)
	fr |= mask & (fr >> dir)
	ml := mask & (mask << dir)
	mr := mask & (mask >> dir)
	d2 := dir * 2
	fl |= ml & (fl << d2)
	fr |= mr & (fr >> d2)
	fl |= ml & (fl << d2)
	fr |= mr & (fr >> d2)
	return (fl << dir) | (fr >> dir)
}

// Flips returns the discs of o that turn over when the owner of p plays on
// the empty square sq (0..63 in the 8-wide layout). It is zero exactly when
// the move is illegal.
func Flips(sq int, p, o uint64) uint64 {
	x := uint64(1) << uint(sq&63)
	m := o & notEdgeCols
	return flipsDir(x, p, m, 1) | flipsDir(x, p, o, 8) | flipsDir(x, p, m, 7) | flipsDir(x, p, m, 9)
}

// flipsDir returns the discs flipped by a disc placed on x along direction
// dir in both senses: the run of mask discs next to x, kept when the square
// after its end holds a disc of p. Since p and mask are disjoint, only the
// end of the run can be followed by a disc of p.
func flipsDir(x, p, mask uint64, dir uint) uint64 {
	fl := mask & (x << dir)
	fr := mask & (x >> dir)
	fl |= mask & (fl << dir)
	fr |= mask & (fr >> dir)
	ml := mask & (mask << dir)
	mr := mask & (mask >> dir)
	d2 := dir * 2
	fl |= ml & (fl << d2)
	fr |= mr & (fr >> d2)
	fl |= ml & (fl << d2)
	fr |= mr & (fr >> d2)
	return fl&nonZeroMask((fl<<dir)&p) | fr&nonZeroMask((fr>>dir)&p)
}

// nonZeroMask returns all ones when v is not zero and zero otherwise,
// without a branch.
func nonZeroMask(v uint64) uint64 {
	return -((v | -v) >> 63)
}

// Count returns the number of discs on a bitboard.
func Count(b uint64) int { return bits.OnesCount64(b) }

func trailingZeros(b uint64) int { return bits.TrailingZeros64(b) }
