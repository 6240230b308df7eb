package chess

import (
	"fmt"
	"math/bits"
	"sync"
)

// Bitboard is a set of squares, bit i for square i (a1 = 0, b1 = 1, ...,
// h8 = 63).
type Bitboard uint64

// Square is a board square 0..63, a1 = 0, h1 = 7, a8 = 56, h8 = 63.
// NoSquare marks its absence (no en passant target).
type Square uint8

// NoSquare is the value of an absent square.
const NoSquare Square = 64

// File returns 0 for the a-file up to 7 for the h-file.
func (s Square) File() int { return int(s & 7) }

// Rank returns 0 for the first rank up to 7 for the eighth.
func (s Square) Rank() int { return int(s >> 3) }

// String writes the square as file letter and rank digit ("e4"), or "-"
// for NoSquare.
func (s Square) String() string {
	if s >= 64 {
		return "-"
	}
	return string([]byte{byte('a' + s.File()), byte('1' + s.Rank())})
}

func squareAt(file, rank int) Square { return Square(rank*8 + file) }

func (b Bitboard) count() int { return bits.OnesCount64(uint64(b)) }

// first returns the lowest square of a non-empty set.
func (b Bitboard) first() Square { return Square(bits.TrailingZeros64(uint64(b))) }

// popFirst removes and returns the lowest square of a non-empty set.
func (b *Bitboard) popFirst() Square {
	s := Square(bits.TrailingZeros64(uint64(*b)))
	*b &= *b - 1
	return s
}

func bb(s Square) Bitboard { return 1 << s }

const (
	fileA Bitboard = 0x0101010101010101
	fileH Bitboard = fileA << 7
	rank1 Bitboard = 0xff
	rank2 Bitboard = rank1 << 8
	rank3 Bitboard = rank1 << 16
	rank6 Bitboard = rank1 << 40
	rank7 Bitboard = rank1 << 48
	rank8 Bitboard = rank1 << 56

	lightSquares Bitboard = 0x55aa55aa55aa55aa
)

// Attack tables filled by init.
var (
	knightAttacks [64]Bitboard
	kingAttacks   [64]Bitboard
	pawnAttacks   [2][64]Bitboard  // [color][square]: squares a pawn there attacks
	between       [64][64]Bitboard // squares strictly between two aligned squares
	lineThrough   [64][64]Bitboard // the whole line through two aligned squares
	rookRays      [64]Bitboard     // rook attacks on an empty board
	bishopRays    [64]Bitboard
)

// magic is one square's entry of the magic-bitboard lookup: the attacks of
// a slider on sq with occupancy occ are table[((occ&mask)*magic)>>shift].
type magic struct {
	mask  Bitboard
	magic uint64
	shift uint8
	table []Bitboard
}

var (
	rookMagics   [64]magic
	bishopMagics [64]magic
)

func rookAttacks(s Square, occ Bitboard) Bitboard {
	m := &rookMagics[s]
	return m.table[(uint64(occ&m.mask)*m.magic)>>m.shift]
}

func bishopAttacks(s Square, occ Bitboard) Bitboard {
	m := &bishopMagics[s]
	return m.table[(uint64(occ&m.mask)*m.magic)>>m.shift]
}

var (
	rookDirs   = [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	bishopDirs = [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}
)

// slide computes slider attacks from s along dirs by walking the rays, the
// slow reference the magic tables are built from and tested against.
func slide(s Square, occ Bitboard, dirs [4][2]int) Bitboard {
	var att Bitboard
	for _, d := range dirs {
		f, r := s.File()+d[0], s.Rank()+d[1]
		for f >= 0 && f < 8 && r >= 0 && r < 8 {
			t := squareAt(f, r)
			att |= bb(t)
			if occ&bb(t) != 0 {
				break
			}
			f, r = f+d[0], r+d[1]
		}
	}
	return att
}

// relevantMask is the set of squares whose occupancy changes a slider's
// attacks from s: the rays without their last square.
func relevantMask(s Square, dirs [4][2]int) Bitboard {
	var m Bitboard
	for _, d := range dirs {
		f, r := s.File()+d[0], s.Rank()+d[1]
		for f+d[0] >= 0 && f+d[0] < 8 && r+d[1] >= 0 && r+d[1] < 8 {
			m |= bb(squareAt(f, r))
			f, r = f+d[0], r+d[1]
		}
	}
	return m
}

// buildMagics fills ms for one slider kind from the multipliers in nums
// (magics.go). Every relevant occupancy of each square must map to a slot
// without a harmful collision; a table that breaks that is a programming
// error, and building panics.
func buildMagics(ms *[64]magic, dirs [4][2]int, nums *[64]uint64) {
	size := 0
	for s := 0; s < 64; s++ {
		size += 1 << relevantMask(Square(s), dirs).count()
	}
	backing := make([]Bitboard, size)
	for s := Square(0); s < 64; s++ {
		mask := relevantMask(s, dirs)
		n := mask.count()
		table := backing[: 1<<n : 1<<n]
		backing = backing[1<<n:]
		m := magic{mask: mask, magic: nums[s], shift: uint8(64 - n), table: table}
		for sub := Bitboard(0); ; {
			idx := (uint64(sub) * m.magic) >> m.shift
			att := slide(s, sub, dirs)
			if table[idx] != 0 && table[idx] != att {
				panic(fmt.Sprintf("chess: bad magic for square %v", s))
			}
			table[idx] = att
			sub = (sub - mask) & mask
			if sub == 0 {
				break
			}
		}
		ms[s] = m
	}
}

// next is splitmix64: a small seeded generator for magics and Zobrist keys.
func next(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	z := *state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// tablesOnce builds the attack tables and Zobrist keys on first use (about
// 25 ms, which binaries that never touch chess do not pay): every position
// comes from ParseFEN, which calls initTables.
var tablesOnce sync.Once

func initTables() { tablesOnce.Do(buildTables) }

func buildTables() {
	for s := Square(0); s < 64; s++ {
		f, r := s.File(), s.Rank()
		for _, d := range [8][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}} {
			if f+d[0] >= 0 && f+d[0] < 8 && r+d[1] >= 0 && r+d[1] < 8 {
				knightAttacks[s] |= bb(squareAt(f+d[0], r+d[1]))
			}
		}
		for df := -1; df <= 1; df++ {
			for dr := -1; dr <= 1; dr++ {
				if (df != 0 || dr != 0) && f+df >= 0 && f+df < 8 && r+dr >= 0 && r+dr < 8 {
					kingAttacks[s] |= bb(squareAt(f+df, r+dr))
				}
			}
		}
		for _, df := range [2]int{-1, 1} {
			if f+df < 0 || f+df > 7 {
				continue
			}
			if r < 7 {
				pawnAttacks[White][s] |= bb(squareAt(f+df, r+1))
			}
			if r > 0 {
				pawnAttacks[Black][s] |= bb(squareAt(f+df, r-1))
			}
		}
		rookRays[s] = slide(s, 0, rookDirs)
		bishopRays[s] = slide(s, 0, bishopDirs)
	}
	for a := Square(0); a < 64; a++ {
		for _, dirs := range [2][4][2]int{rookDirs, bishopDirs} {
			for _, d := range dirs {
				var path Bitboard
				f, r := a.File()+d[0], a.Rank()+d[1]
				for f >= 0 && f < 8 && r >= 0 && r < 8 {
					b := squareAt(f, r)
					between[a][b] = path
					path |= bb(b)
					f, r = f+d[0], r+d[1]
				}
			}
		}
		for b := Square(0); b < 64; b++ {
			if a == b {
				continue
			}
			if rookRays[a]&bb(b) != 0 {
				lineThrough[a][b] = (rookRays[a] & rookRays[b]) | bb(a) | bb(b)
				if a.File() == b.File() {
					lineThrough[a][b] = fileA << a.File()
				} else {
					lineThrough[a][b] = rank1 << (8 * a.Rank())
				}
			} else if bishopRays[a]&bb(b) != 0 {
				lineThrough[a][b] = (bishopRays[a] & bishopRays[b]) | bb(a) | bb(b)
			}
		}
	}
	buildMagics(&rookMagics, rookDirs, &rookMagicNumbers)
	buildMagics(&bishopMagics, bishopDirs, &bishopMagicNumbers)
	initZobrist()
	initCastleMask()
}
