package othelloend

import (
	"math/bits"

	"tabula/games/othello"
)

// corners are a1, h1, a8 and h8 (the 8x8 board's; Solver.corners holds
// those of its board).
const corners = 0x8100000000000081

// parityMask returns the union of the quadrants holding an odd number of
// the empty squares. The quadrants are the four corners of the board (4x4 on
// 8x8, 3x3 on 6x6), the regions of the parity heuristic: the side that moves
// last in a region tends to gain, so a move into a region with an odd number
// of empties is tried first.
func (s *Solver) parityMask(empty uint64) uint64 {
	var m uint64
	for _, q := range s.quadrants {
		m |= q & -uint64(bits.OnesCount64(empty&q)&1)
	}
	return m
}

// emptyList lists up to four empty squares, those in odd quadrants first.
func (s *Solver) emptyList(empty uint64) (l [smallEmpties]int8) {
	odd := s.parityMask(empty)
	i := 0
	for b := empty & odd; b != 0 && i < len(l); b &= b - 1 {
		l[i] = int8(bits.TrailingZeros64(b))
		i++
	}
	for b := empty &^ odd; b != 0 && i < len(l); b &= b - 1 {
		l[i] = int8(bits.TrailingZeros64(b))
		i++
	}
	return l
}

// neighbours[sq] holds the up to eight squares around sq.
var neighbours = func() (t [64]uint64) {
	for sq := range t {
		r, c := sq/8, sq%8
		for dr := -1; dr <= 1; dr++ {
			for dc := -1; dc <= 1; dc++ {
				if (dr != 0 || dc != 0) && r+dr >= 0 && r+dr < 8 && c+dc >= 0 && c+dc < 8 {
					t[sq] |= 1 << uint((r+dr)*8+c+dc)
				}
			}
		}
	}
	return t
}()

// last1 returns the score when x is the only empty square: the mover plays
// it if it can, else the opponent does, else the game ends and the empty
// square goes to the winner. squares is the number of squares of the board.
func last1(p, o uint64, x, squares int) int {
	n := bits.OnesCount64(p)
	if neighbours[x]&o != 0 {
		if f := othello.Flips(x, p, o); f != 0 {
			return 2*(n+1+bits.OnesCount64(f)) - squares
		}
	}
	if neighbours[x]&p != 0 {
		if f := othello.Flips(x, o, p); f != 0 {
			return 2*(n-bits.OnesCount64(f)) - squares
		}
	}
	if 2*n > squares-1 {
		return 2*n + 2 - squares
	}
	return 2*n - squares
}

// small searches a position with n <= smallEmpties empty squares, listed in
// sq, trying each square directly. passed says the opponent has just passed.
func (s *Solver) small(p, o uint64, alpha, beta int, sq [smallEmpties]int8, n int, passed bool) int {
	s.nodes++
	if n == 1 {
		return last1(p, o, int(sq[0]), s.squares)
	}
	best := -infinity
	for i := 0; i < n; i++ {
		x := int(sq[i])
		if neighbours[x]&o == 0 {
			continue // nothing to flank
		}
		f := othello.Flips(x, p, o)
		if f == 0 {
			continue
		}
		child := sq
		copy(child[i:n-1], sq[i+1:n])
		v := -s.small(o&^f, p|f|1<<uint(x), -beta, -max(alpha, best), child, n-1, false)
		if v > best {
			best = v
			if v >= beta {
				return v
			}
		}
	}
	if best == -infinity {
		if passed {
			return s.final(p, o)
		}
		return -s.small(o, p, -beta, -alpha, sq, n, true)
	}
	return best
}

// shallow searches a position with n empty squares, more than smallEmpties
// and at most shallowEmpties, ordering moves by quadrant parity only.
func (s *Solver) shallow(p, o uint64, alpha, beta, n int, passed bool) int {
	s.nodes++
	moves := othello.Moves(p, o) & s.board
	if moves == 0 {
		if passed {
			return s.final(p, o)
		}
		return -s.shallow(o, p, -beta, -alpha, n, true)
	}
	empty := s.board &^ (p | o)
	odd := s.parityMask(empty)
	best := -infinity
	for _, set := range [2]uint64{moves & odd, moves &^ odd} {
		for ; set != 0; set &= set - 1 {
			x := bits.TrailingZeros64(set)
			f := othello.Flips(x, p, o)
			bit := uint64(1) << uint(x)
			np, no := o&^f, p|f|bit
			var v int
			if n-1 <= smallEmpties {
				v = -s.small(np, no, -beta, -max(alpha, best), s.emptyList(empty&^bit), n-1, false)
			} else {
				v = -s.shallow(np, no, -beta, -max(alpha, best), n-1, false)
			}
			if v > best {
				best = v
				if v >= beta {
					return v
				}
			}
		}
	}
	return best
}

// move is a candidate move with its flips and ordering key (lower first).
type move struct {
	flips uint64
	sq    int
	key   int
}

// moveList holds the moves of one position. 64 entries cover any board,
// reachable or not.
type moveList struct {
	m [64]move
	n int
}

// fill lists the moves of p against o with their ordering keys, lower
// first: fastest first (4 per reply left to the opponent, 8 more per corner
// reply), plus half the opponent's potential mobility (empty squares next to
// the mover's discs), minus the mover's discs anchored on an edge to a
// corner, plus 1 outside an odd quadrant; the table's move ttMove goes
// before all. The weights were tuned on node counts of FFO #22-#31.
func (l *moveList) fill(s *Solver, p, o, moves uint64, ttMove int) {
	l.n = 0
	odd := s.parityMask(s.board &^ (p | o))
	for ; moves != 0; moves &= moves - 1 {
		x := bits.TrailingZeros64(moves)
		f := othello.Flips(x, p, o)
		bit := uint64(1) << uint(x)
		reply := othello.Moves(o&^f, p|f|bit) & s.board
		mine := p | f | bit
		key := 4*bits.OnesCount64(reply) + 8*bits.OnesCount64(reply&s.corners) +
			potential(mine, s.board&^(mine|o))/2 - bits.OnesCount64(stableEdge(mine, s.corners, s.edges))
		if bit&odd == 0 {
			key++ // parity breaks ties
		}
		if x == ttMove {
			key = -1
		}
		l.m[l.n] = move{flips: f, sq: x, key: key}
		l.n++
	}
}

// pick moves the best-keyed move among i.. to slot i (one selection-sort
// step, so a cutoff spares sorting the rest) and returns i.
func (l *moveList) pick(i int) int {
	b := i
	for j := i + 1; j < l.n; j++ {
		if l.m[j].key < l.m[b].key {
			b = j
		}
	}
	l.m[i], l.m[b] = l.m[b], l.m[i]
	return i
}

// etcEmpties is the fewest empties at which deep nodes look up their
// children in the table before searching them.
const etcEmpties = 10

// ttIndex hashes a position to a table slot.
func (s *Solver) ttIndex(p, o uint64) uint64 {
	h := p*0x9E3779B97F4A7C15 ^ o*0xD6E8FEB86659FD93
	return (h ^ h>>29) & s.mask
}

// deep searches a position with more than shallowEmpties empty squares (n
// of them), with the transposition table and fastest-first ordering.
func (s *Solver) deep(p, o uint64, alpha, beta, n int, passed bool) int {
	s.nodes++
	moves := othello.Moves(p, o) & s.board
	if moves == 0 {
		if passed {
			return s.final(p, o)
		}
		return -s.deep(o, p, -beta, -alpha, n, true)
	}
	ttMove := NoMove
	var e *entry
	if s.tt != nil {
		e = &s.tt[s.ttIndex(p, o)]
		if e.p == p && e.o == o {
			lo, hi := int(e.lower), int(e.upper)
			switch {
			case lo >= beta:
				return lo
			case hi <= alpha:
				return hi
			case lo == hi:
				return lo
			}
			alpha, beta = max(alpha, lo), min(beta, hi)
			ttMove = int(e.best)
		}
	}
	list := &s.lists[n]
	list.fill(s, p, o, moves, ttMove)
	if s.tt != nil && n >= etcEmpties {
		// Enhanced transposition cutoff: a child already known to score
		// at most -beta for the opponent refutes this node at once.
		for i := 0; i < list.n; i++ {
			m := &list.m[i]
			np, no := o&^m.flips, p|m.flips|1<<uint(m.sq)
			if c := &s.tt[s.ttIndex(np, no)]; c.p == np && c.o == no && -int(c.upper) >= beta {
				v := -int(c.upper)
				if e != nil {
					if e.p != p || e.o != o {
						*e = entry{p: p, o: o, lower: -64, upper: 64}
					}
					e.lower, e.best = int8(max(int(e.lower), v)), int8(m.sq)
				}
				return v
			}
		}
	}
	best, bestMove := -infinity, NoMove
	a := alpha
	for i := 0; i < list.n; i++ {
		m := &list.m[list.pick(i)]
		v := s.pvs(o&^m.flips, p|m.flips|1<<uint(m.sq), a, beta, i == 0)
		if v > best {
			best, bestMove = v, m.sq
			if v > a {
				a = v
				if a >= beta {
					break
				}
			}
		}
	}
	if e != nil {
		if e.p != p || e.o != o {
			*e = entry{p: p, o: o, lower: -64, upper: 64, best: int8(bestMove)}
		}
		switch {
		case best >= beta:
			e.lower = int8(max(int(e.lower), best))
			e.best = int8(bestMove)
		case best > alpha:
			e.lower, e.upper = int8(best), int8(best)
			e.best = int8(bestMove)
		default:
			e.upper = int8(min(int(e.upper), best))
		}
	}
	return best
}

// potential counts the empty squares next to discs d.
func potential(d, empty uint64) int {
	h := d & 0x7E7E7E7E7E7E7E7E
	n := (h<<1 | h>>1 | h<<7 | h>>7 | h<<9 | h>>9) | d<<8 | d>>8
	return bits.OnesCount64(n & empty)
}

// stableEdge approximates stable discs: those on an edge (of the board with
// these corners and edges) connected to a corner through discs of the same
// colour.
func stableEdge(d, corners, edges uint64) uint64 {
	st := d & corners
	for i := 0; i < 6; i++ {
		e := d & edges
		st |= e & (st<<1&0xFEFEFEFEFEFEFEFE | st>>1&0x7F7F7F7F7F7F7F7F | st<<8 | st>>8)
	}
	return st
}
