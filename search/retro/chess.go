package retro

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"tabula/games/chess"
)

// Chess endgames here are a king and one to three pieces (queens, rooks,
// bishops, knights, pawns) against a lone king, White holding the pieces;
// a position with Black holding them is probed with colours swapped and
// the board mirrored rank for rank. The 50-move rule is ignored (the
// distances are pure DTM), and there is no castling or en passant in such
// positions.
//
// # Index
//
// An index is, in mixed radix, (side to move, king pair, piece 1, ...).
// The king pair is one of the pairs of distinct, non-adjacent squares left
// after the board's symmetries: without pawns the eight symmetries of the
// square put White's king on the triangle a1-d1-d4 (10 squares) and, when
// it stands on the a1-h8 diagonal, Black's king on or below it: 462 pairs.
// With pawns only the left-right mirror applies (White's king on files
// a-d): 1806 pairs. Each piece other than a pawn then takes one of the
// squares left free by the kings and the pieces before it (62, 61, 60
// choices); a pawn takes one of the 48 squares of ranks 2 to 7, an index
// whose pawn shares a square with another piece being illegal. Positions
// with both kings on the diagonal keep both of their diagonal mirror
// images, and two like pieces both of their orders; each such pair has
// equal values. KBNK thus has 2 x 462 x 62 x 61 = 3,494,568 indices.

// pieceOrder is the order of White's pieces in a material signature.
var pieceOrder = []chess.PieceType{chess.Queen, chess.Rook, chess.Bishop, chess.Knight, chess.Pawn}

const pieceLetters = "PNBRQK"

// maxPieces bounds White's pieces besides the king.
const maxPieces = 3

// ParseMaterial reads a signature such as "KBNK" (White's king and pieces,
// then Black's lone king) into White's pieces in signature order.
func ParseMaterial(sig string) ([]chess.PieceType, error) {
	s := strings.ToUpper(sig)
	if len(s) < 3 || s[0] != 'K' || s[len(s)-1] != 'K' {
		return nil, fmt.Errorf("retro: material %q: want K, White's pieces, K (such as KBNK)", sig)
	}
	var ps []chess.PieceType
	for _, c := range s[1 : len(s)-1] {
		i := strings.IndexRune(pieceLetters[:5], c)
		if i < 0 {
			return nil, fmt.Errorf("retro: material %q: %q is not one of Q, R, B, N, P", sig, c)
		}
		ps = append(ps, chess.PieceType(i))
	}
	if len(ps) > maxPieces {
		return nil, fmt.Errorf("retro: material %q: at most %d pieces beside the kings", sig, maxPieces)
	}
	return sortPieces(ps), nil
}

// sortPieces orders piece types as signatures write them.
func sortPieces(ps []chess.PieceType) []chess.PieceType {
	out := make([]chess.PieceType, 0, len(ps))
	for _, t := range pieceOrder {
		for _, p := range ps {
			if p == t {
				out = append(out, p)
			}
		}
	}
	return out
}

// Signature writes White's pieces as a material signature.
func Signature(ps []chess.PieceType) string {
	var b strings.Builder
	b.WriteByte('K')
	for _, p := range sortPieces(ps) {
		b.WriteByte(pieceLetters[p])
	}
	b.WriteByte('K')
	return b.String()
}

// insufficient reports whether White's pieces cannot mate at all: none,
// or one bishop or one knight.
func insufficient(ps []chess.PieceType) bool {
	return len(ps) == 0 || len(ps) == 1 && (ps[0] == chess.Bishop || ps[0] == chess.Knight)
}

// Board geometry shared by every table.
var (
	kingAtt, knightAtt [64]uint64
	rays               [64][8][]int8 // squares in each direction: 0-3 orthogonal, 4-7 diagonal
	between            [64][64]uint64
	lineKind           [64][64]uint8 // 1 same rank or file, 2 same diagonal, 0 neither
)

func init() {
	dirs := [8][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}}
	jumps := [8][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}}
	on := func(f, r int) bool { return f >= 0 && f < 8 && r >= 0 && r < 8 }
	for s := range 64 {
		f, r := s&7, s>>3
		for d, dir := range dirs {
			if on(f+dir[0], r+dir[1]) {
				kingAtt[s] |= 1 << ((r+dir[1])*8 + f + dir[0])
			}
			if on(f+jumps[d][0], r+jumps[d][1]) {
				knightAtt[s] |= 1 << ((r+jumps[d][1])*8 + f + jumps[d][0])
			}
			var path uint64
			for k := 1; on(f+k*dir[0], r+k*dir[1]); k++ {
				t := (r+k*dir[1])*8 + f + k*dir[0]
				rays[s][d] = append(rays[s][d], int8(t))
				between[s][t] = path
				lineKind[s][t] = 1 + uint8(d/4)
				path |= 1 << t
			}
		}
	}
}

// transform applies symmetry t to square s: bit 0 mirrors the files, bit 1
// the ranks, bit 2 then swaps files and ranks (the a1-h8 diagonal).
func transform(t uint8, s int) int {
	f, r := s&7, s>>3
	if t&1 != 0 {
		f = 7 - f
	}
	if t&2 != 0 {
		r = 7 - r
	}
	if t&4 != 0 {
		f, r = r, f
	}
	return r*8 + f
}

// indexer numbers the positions of one material.
type indexer struct {
	pieces    []chess.PieceType
	nPawnless int // pieces before the first pawn
	nKK       int
	kkW, kkB  []int8
	kkIdx     [64][64]int16
	trans     [64][64]uint8 // the symmetry putting a king pair in canonical form; noPair when illegal
	radix     []int
	size      int
}

const noPair = 255

func newIndexer(pieces []chess.PieceType) *indexer {
	ix := &indexer{pieces: pieces}
	pawns := false
	for i, p := range pieces {
		if p == chess.Pawn {
			pawns = true
			ix.radix = append(ix.radix, 48)
		} else {
			ix.nPawnless = i + 1
			ix.radix = append(ix.radix, 62-i)
		}
	}
	syms := uint8(8)
	if pawns {
		syms = 2
	}
	canonical := func(w, b int) bool {
		wf, wr := w&7, w>>3
		if pawns {
			return wf <= 3
		}
		if wf > 3 || wr > wf {
			return false
		}
		return wr != wf || b>>3 <= b&7
	}
	for w := range 64 {
		for b := range 64 {
			ix.kkIdx[w][b] = -1
			ix.trans[w][b] = noPair
			if w == b || kingAtt[w]&(1<<b) != 0 {
				continue
			}
			for t := range syms {
				if canonical(transform(t, w), transform(t, b)) {
					ix.trans[w][b] = t
					break
				}
			}
			if canonical(w, b) {
				ix.kkIdx[w][b] = int16(len(ix.kkW))
				ix.kkW = append(ix.kkW, int8(w))
				ix.kkB = append(ix.kkB, int8(b))
			}
		}
	}
	ix.nKK = len(ix.kkW)
	ix.size = 2 * ix.nKK
	for _, r := range ix.radix {
		ix.size *= r
	}
	return ix
}

// encode returns the index of a position (side 0: White to move), or -1
// when the kings touch or pieces share a square.
func (ix *indexer) encode(side, wk, bk int, sq []int8) int {
	t := ix.trans[wk][bk]
	if t == noPair {
		return -1
	}
	w, b := transform(t, wk), transform(t, bk)
	i := side*ix.nKK + int(ix.kkIdx[w][b])
	occ := uint64(1)<<w | uint64(1)<<b
	for j, p := range ix.pieces {
		s := transform(t, int(sq[j]))
		if occ&(1<<s) != 0 {
			return -1
		}
		r := s - 8
		if p != chess.Pawn {
			r = s - bits.OnesCount64(occ&(1<<s-1))
			occ |= 1 << s
		} else if r < 0 || r >= 48 {
			return -1
		}
		i = i*ix.radix[j] + r
	}
	return i
}

// decode returns the position of index i into sq; ok is false when a pawn
// shares a square with another piece.
func (ix *indexer) decode(i int, sq []int8) (side, wk, bk int, ok bool) {
	for j := len(ix.pieces) - 1; j >= 0; j-- {
		sq[j] = int8(i % ix.radix[j])
		i /= ix.radix[j]
	}
	kk := i % ix.nKK
	side = i / ix.nKK
	wk, bk = int(ix.kkW[kk]), int(ix.kkB[kk])
	occ := uint64(1)<<wk | uint64(1)<<bk
	for j, p := range ix.pieces {
		s := int(sq[j])
		if p == chess.Pawn {
			s += 8
			if occ&(1<<s) != 0 {
				return 0, 0, 0, false
			}
		} else {
			for o := occ; o != 0; o &= o - 1 {
				if bits.TrailingZeros64(o) > s {
					break
				}
				s++
			}
		}
		occ |= 1 << s
		sq[j] = int8(s)
	}
	return side, wk, bk, true
}

// attacked reports whether square s is attacked by White's pieces other
// than piece skip (its king not counted), with occupancy occ.
func attacked(pieces []chess.PieceType, sq []int8, skip, s int, occ uint64) bool {
	for j, p := range pieces {
		if j == skip {
			continue
		}
		from := int(sq[j])
		switch p {
		case chess.Knight:
			if knightAtt[from]&(1<<s) != 0 {
				return true
			}
		case chess.Pawn:
			if s>>3 == from>>3+1 && (s&7 == from&7-1 || s&7 == from&7+1) {
				return true
			}
		default:
			k := lineKind[from][s]
			if k == 0 || between[from][s]&occ != 0 {
				continue
			}
			if p == chess.Queen || p == chess.Rook && k == 1 || p == chess.Bishop && k == 2 {
				return true
			}
		}
	}
	return false
}

// Table is one chess endgame database.
type Table struct {
	// Material is the signature, such as "KBNK".
	Material string
	// Stats sums up the values.
	Stats Stats
	ix    *indexer
	vals  []Value
}

// Size is the number of indices of the table (legal or not).
func (t *Table) Size() int { return len(t.vals) }

// At returns the value of index i.
func (t *Table) At(i int) Value { return t.vals[i] }

// Lookup returns the value of a position: side to move (White holds the
// pieces), the kings' squares and White's pieces' squares in the order of
// the signature. It returns Illegal for squares no legal position has.
func (t *Table) Lookup(side chess.Color, wk, bk chess.Square, pieces []chess.Square) Value {
	var sq [maxPieces]int8
	for j, s := range pieces {
		sq[j] = int8(s)
	}
	i := t.ix.encode(int(side), int(wk), int(bk), sq[:len(pieces)])
	if i < 0 {
		return Illegal
	}
	return t.vals[i]
}

// game is the retro.Game of one chess material under construction.
type game struct {
	ix   *indexer
	subs map[string]*Table
	ext  int
}

// BuildChess builds the table of material sig. Tables of the materials a
// capture or promotion leads to (other than ones that cannot mate) must be
// in subs, keyed by signature.
func BuildChess(ctx context.Context, sig string, subs map[string]*Table, workers int) (*Table, error) {
	ps, err := ParseMaterial(sig)
	if err != nil {
		return nil, err
	}
	g := &game{ix: newIndexer(ps), subs: subs}
	for _, m := range successorMaterials(ps) {
		if insufficient(m) {
			continue
		}
		sub, ok := subs[Signature(m)]
		if !ok {
			return nil, fmt.Errorf("retro: building %s needs the table of %s", Signature(ps), Signature(m))
		}
		g.ext = max(g.ext, sub.Stats.LongestWin, sub.Stats.LongestLoss)
	}
	vals, st, err := Build(ctx, g, workers)
	if err != nil {
		return nil, fmt.Errorf("retro: %s: %w", Signature(ps), err)
	}
	return &Table{Material: Signature(ps), Stats: st, ix: g.ix, vals: vals}, nil
}

// SuccessorMaterials lists the signatures of the materials, other than
// those that cannot mate, that one capture by Black or one promotion by
// White leads to: the tables BuildChess needs for ps.
func SuccessorMaterials(ps []chess.PieceType) []string {
	var out []string
	for _, m := range successorMaterials(ps) {
		if sig := Signature(m); !insufficient(m) && !slices.Contains(out, sig) {
			out = append(out, sig)
		}
	}
	return out
}

// successorMaterials lists the materials one capture by Black or one
// promotion by White leads to.
func successorMaterials(ps []chess.PieceType) [][]chess.PieceType {
	var out [][]chess.PieceType
	for j, p := range ps {
		rest := append(append([]chess.PieceType(nil), ps[:j]...), ps[j+1:]...)
		out = append(out, rest)
		if p == chess.Pawn {
			for _, q := range []chess.PieceType{chess.Queen, chess.Rook, chess.Bishop, chess.Knight} {
				out = append(out, append(append([]chess.PieceType(nil), rest...), q))
			}
		}
	}
	return out
}

func (g *game) Size() int          { return g.ix.size }
func (g *game) ExternalPlies() int { return g.ext }

// external returns the value of the position after a capture or promotion:
// White's pieces ps on squares sq, the given side to move.
func (g *game) external(side, wk, bk int, ps []chess.PieceType, sq []int8) Value {
	if insufficient(ps) {
		return Draw
	}
	sub := g.subs[Signature(ps)]
	// Put the squares in the sub-table's signature order.
	var order [maxPieces]int8
	var used [maxPieces]bool
	n := 0
	for _, t := range sub.ix.pieces {
		for j, p := range ps {
			if p == t && !used[j] {
				order[n], used[j] = sq[j], true
				n++
				break
			}
		}
	}
	i := sub.ix.encode(side, wk, bk, order[:n])
	if i < 0 {
		return Illegal
	}
	return sub.vals[i]
}

func (g *game) Expand(i int, child func(int, Value) bool) (Value, bool) {
	ix := g.ix
	var sq [maxPieces]int8
	np := len(ix.pieces)
	side, wk, bk, ok := ix.decode(i, sq[:np])
	if !ok {
		return Illegal, true
	}
	occ := uint64(1)<<wk | uint64(1)<<bk
	for j := range np {
		occ |= 1 << sq[j]
	}
	ps := ix.pieces
	moves := 0
	stopped := false
	emit := func(c int, v Value) {
		moves++
		if !stopped && !child(c, v) {
			stopped = true
		}
	}
	if side == 1 {
		// Black: king moves, captures included, to squares White does
		// not attack.
		inner := occ &^ (1 << bk)
		for tg := kingAtt[bk] &^ kingAtt[wk]; tg != 0 && !stopped; tg &= tg - 1 {
			to := bits.TrailingZeros64(tg)
			capt := -1
			for j := range np {
				if int(sq[j]) == to {
					capt = j
				}
			}
			if attacked(ps, sq[:np], capt, to, inner) {
				continue
			}
			if capt < 0 {
				emit(ix.encode(0, wk, to, sq[:np]), 0)
				continue
			}
			var rest [maxPieces]chess.PieceType
			var rsq [maxPieces]int8
			n := 0
			for j := range np {
				if j != capt {
					rest[n], rsq[n] = ps[j], sq[j]
					n++
				}
			}
			emit(-1, g.external(0, wk, to, rest[:n], rsq[:n]))
		}
		if stopped {
			return 0, false
		}
		if moves == 0 {
			if attacked(ps, sq[:np], -1, bk, occ) {
				return Mated, true
			}
			return Draw, true
		}
		return 0, false
	}
	// White to move: Black must not be in check.
	if attacked(ps, sq[:np], -1, bk, occ) {
		return Illegal, true
	}
	for tg := kingAtt[wk] &^ kingAtt[bk] &^ occ; tg != 0 && !stopped; tg &= tg - 1 {
		emit(ix.encode(1, bits.TrailingZeros64(tg), bk, sq[:np]), 0)
	}
	for j := 0; j < np && !stopped; j++ {
		from := sq[j]
		switch p := ps[j]; p {
		case chess.Knight:
			for tg := knightAtt[from] &^ occ; tg != 0 && !stopped; tg &= tg - 1 {
				sq[j] = int8(bits.TrailingZeros64(tg))
				emit(ix.encode(1, wk, bk, sq[:np]), 0)
			}
		case chess.Pawn:
			to := int(from) + 8
			if occ&(1<<to) != 0 {
				break
			}
			if to >= 56 {
				for _, q := range []chess.PieceType{chess.Queen, chess.Rook, chess.Bishop, chess.Knight} {
					var prom [maxPieces]chess.PieceType
					copy(prom[:], ps)
					prom[j] = q
					sq[j] = int8(to)
					var psq [maxPieces]int8
					copy(psq[:], sq[:np])
					emit(-1, g.external(1, wk, bk, prom[:np], psq[:np]))
				}
				break
			}
			sq[j] = int8(to)
			emit(ix.encode(1, wk, bk, sq[:np]), 0)
			if from>>3 == 1 && occ&(1<<(to+8)) == 0 && !stopped {
				sq[j] = int8(to + 8)
				emit(ix.encode(1, wk, bk, sq[:np]), 0)
			}
		default:
			d0, d1 := 0, 8
			if p == chess.Rook {
				d1 = 4
			} else if p == chess.Bishop {
				d0 = 4
			}
			for d := d0; d < d1 && !stopped; d++ {
				for _, to := range rays[from][d] {
					if occ&(1<<to) != 0 || stopped {
						break
					}
					sq[j] = to
					emit(ix.encode(1, wk, bk, sq[:np]), 0)
				}
			}
		}
		sq[j] = from
	}
	if stopped {
		return 0, false
	}
	if moves == 0 {
		return Draw, true
	}
	return 0, false
}

// fenOf writes a position of table t's material as FEN.
func fenOf(t *Table, side, wk, bk int, sq []int8) string {
	var board [64]byte
	board[wk], board[bk] = 'K', 'k'
	for j, p := range t.ix.pieces {
		board[sq[j]] = pieceLetters[p]
	}
	var b strings.Builder
	for r := 7; r >= 0; r-- {
		empty := 0
		for f := range 8 {
			c := board[r*8+f]
			if c == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteByte(c)
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	return b.String() + " " + string("wb"[side]) + " - - 0 1"
}

// FEN returns index i as a FEN string, and false for an illegal index.
func (t *Table) FEN(i int) (string, bool) {
	if i < 0 || i >= len(t.vals) || t.vals[i] == Illegal {
		return "", false
	}
	var sq [maxPieces]int8
	np := len(t.ix.pieces)
	side, wk, bk, _ := t.ix.decode(i, sq[:np])
	return fenOf(t, side, wk, bk, sq[:np]), true
}
