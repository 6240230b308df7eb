package othello

import (
	"math"
	"math/bits"

	"tabula/games"
)

// axes are the four lines through a square, as shifts in the 8-wide layout:
// horizontal, vertical, diagonal, anti-diagonal.
var axes = [4]struct{ dr, dc int }{{0, 1}, {1, 0}, {1, 1}, {1, -1}}

// evalTables holds the masks Evaluate needs for one board size.
type evalTables struct {
	corners uint64
	// xsq[i] is the diagonal neighbour of corner i, and cornerOf[i] that corner.
	xsq, cornerOf [4]uint64
	// lines[axis][sq] is the board squares on the line through sq.
	lines [4][64]uint64
	// edge[axis] holds the squares with an off-board neighbour along axis.
	edge [4]uint64
}

func (g *Game) initEvaluation() {
	n := g.size
	on := func(r, c int) bool { return r >= 0 && r < n && c >= 0 && c < n }
	bit := func(r, c int) uint64 { return 1 << uint(r*8+c) }
	t := &g.eval
	for i, rc := range [4][2]int{{0, 0}, {0, n - 1}, {n - 1, 0}, {n - 1, n - 1}} {
		r, c := rc[0], rc[1]
		t.cornerOf[i] = bit(r, c)
		t.corners |= bit(r, c)
		dr, dc := 1, 1
		if r > 0 {
			dr = -1
		}
		if c > 0 {
			dc = -1
		}
		t.xsq[i] = bit(r+dr, c+dc)
	}
	for ax, d := range axes {
		for r := 0; r < n; r++ {
			for c := 0; c < n; c++ {
				if !on(r+d.dr, c+d.dc) || !on(r-d.dr, c-d.dc) {
					t.edge[ax] |= bit(r, c)
				}
				var line uint64
				for k := -n; k <= n; k++ {
					if on(r+k*d.dr, c+k*d.dc) {
						line |= bit(r+k*d.dr, c+k*d.dc)
					}
				}
				t.lines[ax][r*8+c] = line
			}
		}
	}
}

// shifts[axis] is the bit distance to the next square along the axis.
var shifts = [4]uint{1, 8, 9, 7}

// stable returns a subset of own's discs that can never be flipped: a disc
// is stable when along each of the four axes its line is full, or it touches
// the edge, or it touches a stable disc of its own colour on either side.
// Iterating from nothing up to the fixed point keeps the estimate sound.
func (g *Game) stable(own, occupied uint64) uint64 {
	t := &g.eval
	var full [4]uint64
	for sq := occupied; sq != 0; sq &= sq - 1 {
		i := bits.TrailingZeros64(sq)
		for ax := range full {
			if l := t.lines[ax][i]; occupied&l == l {
				full[ax] |= 1 << uint(i)
			}
		}
	}
	var st uint64
	for {
		next := own
		for ax, d := range shifts {
			next &= full[ax] | t.edge[ax] | st<<d | st>>d
		}
		if next == st {
			return st
		}
		st = next
	}
}

// Evaluate scores a non-terminal position for the player to move, strictly
// inside (-1, 1). It adds, each normalised to [-1, 1]:
//   - mobility (weight 1): the difference in legal moves, the main
//     strategic factor in the opening and middle game, since a player short
//     of moves is forced into bad ones;
//   - corners (0.8): a corner disc can never be flipped and anchors edges;
//   - stable discs (0.6): discs that can never be flipped count for sure in
//     the final score;
//   - X-squares (0.4): a disc diagonally next to an empty corner tends to
//     give that corner away;
//   - disc difference, weighted by how full the board is squared, since only
//     the final count matters and early on fewer discs is often better;
//   - parity late in the game (0.2 times the fill): with an odd number of
//     empties the mover expects to play the last move.
//
// The sum is squashed by tanh after clamping, which keeps it strictly inside
// (-1, 1) (tanh(4) < 0.9997).
func (g *Game) Evaluate(gs games.State) float64 {
	s, ok := gs.(*State)
	if !ok {
		return 0
	}
	t := &g.eval
	p, o := s.mover, s.opp
	occ := p | o
	total := float64(bits.OnesCount64(g.mask))
	fill := float64(bits.OnesCount64(occ)) / total

	mp := float64(bits.OnesCount64(Moves(p, o) & g.mask))
	mo := float64(bits.OnesCount64(Moves(o, p) & g.mask))
	x := (mp - mo) / (mp + mo + 2)

	x += 0.8 * float64(bits.OnesCount64(p&t.corners)-bits.OnesCount64(o&t.corners)) / 4

	sp := float64(bits.OnesCount64(g.stable(p, occ)))
	so := float64(bits.OnesCount64(g.stable(o, occ)))
	x += 0.6 * (sp - so) / (sp + so + 4)

	var xs float64
	for i := range t.xsq {
		if occ&t.cornerOf[i] == 0 {
			if p&t.xsq[i] != 0 {
				xs--
			} else if o&t.xsq[i] != 0 {
				xs++
			}
		}
	}
	x += 0.4 * xs / 4

	np, no := float64(bits.OnesCount64(p)), float64(bits.OnesCount64(o))
	x += fill * fill * (np - no) / (np + no)

	if empties := int(total) - bits.OnesCount64(occ); empties%2 == 1 {
		x += 0.2 * fill
	} else {
		x -= 0.2 * fill
	}
	return math.Tanh(math.Max(-4, math.Min(4, x)))
}
