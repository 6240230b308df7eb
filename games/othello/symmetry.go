package othello

import "tabula/games"

// The 8 symmetries of the square. Symmetry k transposes the board when bit 0
// of k is set, then mirrors the columns (bit 1), then the rows (bit 2); 0 is
// the identity. The rules of Othello are invariant under all of them (the
// start position is only invariant under the two diagonal reflections and
// the half turn).

// mapSquare applies symmetry k to row r, column c of an n x n board.
func mapSquare(k, n, r, c int) (int, int) {
	if k&1 != 0 {
		r, c = c, r
	}
	if k&2 != 0 {
		c = n - 1 - c
	}
	if k&4 != 0 {
		r = n - 1 - r
	}
	return r, c
}

func (g *Game) initSymmetries() {
	n := g.size
	for k := 0; k < 8; k++ {
		for b := range g.symBits[k] {
			g.symBits[k][b] = -1
		}
		g.symAct[k] = make([]int, g.pass+1)
		for r := 0; r < n; r++ {
			for c := 0; c < n; c++ {
				r2, c2 := mapSquare(k, n, r, c)
				g.symBits[k][r*8+c] = int8(r2*8 + c2)
				g.symAct[k][r*n+c] = r2*n + c2
			}
		}
		g.symAct[k][g.pass] = g.pass
	}
	for k := 0; k < 8; k++ {
		for j := 0; j < 8; j++ {
			if g.symAct[j][g.symAct[k][1]] == 1 && g.symAct[j][g.symAct[k][n]] == n {
				// Square 1 (b1) and n (a2) fix every symmetry of the square.
				g.symInv[k] = j
				break
			}
		}
	}
}

// NumSymmetries returns 8.
func (g *Game) NumSymmetries() int { return 8 }

// TransformAction maps action a through symmetry k (PASS maps to itself).
func (g *Game) TransformAction(k, a int) int {
	if k < 0 || k >= 8 || a < 0 || a > g.pass {
		return a
	}
	return g.symAct[k][a]
}

// TransformObservation maps observation src through symmetry k into dst.
func (g *Game) TransformObservation(k int, dst, src []float32) {
	n := g.size * g.size
	m := g.symAct[k&7]
	for p := 0; p < 3; p++ {
		d, s := dst[p*n:(p+1)*n], src[p*n:(p+1)*n]
		for a := 0; a < n; a++ {
			d[m[a]] = s[a]
		}
	}
}

// TransformBoard maps a bitboard (8-wide layout) through symmetry k.
func (g *Game) TransformBoard(k int, b uint64) uint64 {
	var out uint64
	for ; b != 0; b &= b - 1 {
		if t := g.symBits[k&7][trailingZeros(b)]; t >= 0 {
			out |= 1 << uint(t)
		}
	}
	return out
}

// TransformState returns s mapped through symmetry k, same side to move and
// move number.
func (g *Game) TransformState(k int, s games.State) games.State {
	o := s.(*State)
	t := *o
	t.mover = g.TransformBoard(k, o.mover)
	t.opp = g.TransformBoard(k, o.opp)
	return &t
}

// Inverse returns the symmetry that undoes k.
func (g *Game) Inverse(k int) int { return g.symInv[k&7] }
