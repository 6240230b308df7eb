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
// the move is illegal. It runs flipsAVX512 where the CPU has AVX-512
// (flipsAsm), flipsGeneric elsewhere.
func Flips(sq int, p, o uint64) uint64 {
	if flipsAsm {
		return flipsAVX512(sq, p, o)
	}
	return flipsGeneric(sq, p, o)
}

// flipsGeneric is Flips in portable Go.
//
// Along each of the four rays towards higher bits, adding the ray's first
// square to (o | ^ray) carries through the run of o discs (and through the
// bits off the ray, all set) and stops on the first square of the ray that
// is not o: that square, if it holds a disc of p, outflanks the run. Along
// the four rays towards lower bits the first non-o square is the highest set
// bit of ray &^ o.
func flipsGeneric(sq int, p, o uint64) uint64 {
	r := &rays[sq&63]
	x := uint64(1) << uint(sq&63)
	return flipsUp(r[0], p, o) | flipsUp(r[1], p, o) | flipsUp(r[2], p, o) | flipsUp(r[3], p, o) |
		flipsDown(x, r[4], p, o) | flipsDown(x, r[5], p, o) | flipsDown(x, r[6], p, o) | flipsDown(x, r[7], p, o)
}

// flipsUp returns the flips along a ray m towards higher bits.
func flipsUp(m, p, o uint64) uint64 {
	out := ((o | ^m) + (m & -m)) & m & p
	return (out - (nonZeroMask(out) & 1)) & m
}

// flipsDown returns the flips along a ray m towards lower bits from x.
func flipsDown(x, m, p, o uint64) uint64 {
	out := (uint64(1) << 63 >> uint(bits.LeadingZeros64(m&^o))) & m & p
	return (x - out<<1) & m
}

// rays[sq][d] holds the squares from sq (exclusive) to the edge along
// direction d: east, south-west, south, south-east (towards higher bits),
// then west, north-east, north, north-west.
var rays = func() (t [64][8]uint64) {
	dirs := [8][2]int{{0, 1}, {1, -1}, {1, 0}, {1, 1}, {0, -1}, {-1, 1}, {-1, 0}, {-1, -1}}
	for sq := 0; sq < 64; sq++ {
		for d, dd := range dirs {
			for r, c := sq/8+dd[0], sq%8+dd[1]; r >= 0 && r < 8 && c >= 0 && c < 8; r, c = r+dd[0], c+dd[1] {
				t[sq][d] |= 1 << uint(r*8+c)
			}
		}
	}
	return t
}()

// nonZeroMask returns all ones when v is not zero and zero otherwise,
// without a branch.
func nonZeroMask(v uint64) uint64 {
	return -((v | -v) >> 63)
}

// Count returns the number of discs on a bitboard.
func Count(b uint64) int { return bits.OnesCount64(b) }

func trailingZeros(b uint64) int { return bits.TrailingZeros64(b) }
