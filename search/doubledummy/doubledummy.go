// Package doubledummy solves deals of two-handed whist (games/whist) with
// every card face up: the most tricks the player to move can take from a
// position against best defence, found by alpha-beta over the whole deal.
//
// The search is over whole tricks: a node is a trick's start, where the
// leader chooses a card and the follower a reply; the value is the tricks
// the leader takes from there. A transposition table keyed by the two
// hands and the leader (which decide everything that follows: the tricks
// already taken only add) keeps lower and upper bounds, so a deal's
// positions are each settled once per window. Of several cards of one suit
// that are adjacent among the cards still held by either player (a
// sequence such as K Q when the ace is gone) only the lowest is tried: they
// win and lose the same tricks. The stock and the played cards take no
// part.
//
// This is the method of double-dummy solvers for bridge (Ginsberg's GIB,
// 2001; Haglund's DDS) cut down to two hands: partition search and the
// other refinements of those programs are not needed at this size.
package doubledummy

import (
	"fmt"
	"math/bits"

	"tabula/games"
	"tabula/games/whist"
)

const ttBits = 16

type entry struct {
	h0, h1       uint32
	leader       int8
	lower, upper int8
	gen          uint8 // the table's generation when written; 0: empty
}

// Solver solves deals of one game. It keeps its table between deals (a
// position's value does not depend on the deal it came from), clearing it
// when the trump suit changes. It is not safe for concurrent use.
type Solver struct {
	g      *whist.Game
	trump  int
	suits  [4]uint32
	tt     []entry
	nodes  int64
	gen    uint8 // entries of other generations are empty
	primed bool
}

// New returns a solver for g.
func New(g *whist.Game) *Solver {
	s := &Solver{g: g, tt: make([]entry, 1<<ttBits), gen: 1}
	for i := range s.suits {
		s.suits[i] = g.SuitMask(i)
	}
	return s
}

// Nodes returns the tricks' starts searched so far (table hits included).
func (s *Solver) Nodes() int64 { return s.nodes }

func (s *Solver) setTrump(t int) {
	if !s.primed || t != s.trump {
		s.Reset()
		s.trump, s.primed = t, true
	}
}

// Reset empties the table (in constant time but once every 255 calls).
func (s *Solver) Reset() {
	s.gen++
	if s.gen == 0 {
		clear(s.tt)
		s.gen = 1
	}
}

// Tricks returns the tricks player 0 takes from st to the end of the deal
// (the tricks already taken not counted) with best play by both sides and
// every card seen. st must be past the deal.
func (s *Solver) Tricks(st *whist.State) (int, error) {
	if st.Rules() != s.g {
		return 0, fmt.Errorf("doubledummy: state of %s, solver of %s", st.Game().Name(), s.g.Name())
	}
	if st.IsChanceNode() {
		return 0, fmt.Errorf("doubledummy: the deal is not complete")
	}
	if st.IsTerminal() {
		return 0, nil
	}
	s.setTrump(st.Trump())
	h := st.Hands()
	p := st.CurrentPlayer()
	lead := st.Lead()
	if lead < 0 {
		t := s.search(h, p, -1, bits.OnesCount32(h[p])+1)
		if p == 0 {
			return t, nil
		}
		return bits.OnesCount32(h[p]) - t, nil
	}
	// Mid-trick: p follows lead; p minimises the leader's tricks.
	leader := 1 - p
	n := bits.OnesCount32(h[p]) // tricks left, this one included
	best := n + 1
	for m := s.follows(h[p], lead); m != 0; m &= m - 1 {
		f := bits.TrailingZeros32(m)
		v := s.after(h, leader, lead, f, n, 0, n+1)
		best = min(best, v)
	}
	if leader == 0 {
		return best, nil
	}
	return n - best, nil
}

// Value returns player 0's return (games.State.Returns) at the end of the
// deal under double-dummy play from st: the tricks taken so far plus the
// solved rest.
func (s *Solver) Value(st *whist.State) (float64, error) {
	t, err := s.Tricks(st)
	if err != nil {
		return 0, err
	}
	taken := st.Tricks()
	hand := s.g.Hand()
	t0 := taken[0] + t
	t1 := hand - t0
	return float64(t0-t1) / float64(hand), nil
}

// Exact adapts the solver to the hook of search/pimc: player 0's value of a
// whist state past the deal, false for anything else.
func (s *Solver) Exact(st games.State) (float64, bool) {
	w, ok := st.(*whist.State)
	if !ok || w.Rules() != s.g || w.IsChanceNode() {
		return 0, false
	}
	v, err := s.Value(w)
	return v, err == nil
}

// follows returns the cards of hand that may answer lead.
func (s *Solver) follows(hand uint32, lead int) uint32 {
	if f := hand & s.suits[s.g.Suit(lead)]; f != 0 {
		return f
	}
	return hand
}

// candidates returns the cards of set worth trying: the lowest of each run
// of cards adjacent in a suit among the cards either player still holds.
func (s *Solver) candidates(set, held uint32) uint32 {
	// A card is skipped when the next lower card still held is also in set
	// (and in the same suit).
	out := uint32(0)
	for m := set; m != 0; m &= m - 1 {
		c := bits.TrailingZeros32(m)
		below := held & s.suits[s.g.Suit(c)] & (uint32(1)<<c - 1)
		if below != 0 && set&(uint32(1)<<(31-bits.LeadingZeros32(below))) != 0 {
			continue
		}
		out |= 1 << c
	}
	return out
}

// after returns the leader's tricks, out of the n left with this one, once
// leader has led lead and the other player answered f, searching the rest
// with window (alpha, beta) on that count.
func (s *Solver) after(h [2]uint32, leader, lead, f, n, alpha, beta int) int {
	h[leader] &^= 1 << lead
	h[1-leader] &^= 1 << f
	if s.g.TrickWinner(lead, f, s.trump) == 0 {
		return 1 + s.search(h, leader, alpha-1, beta-1)
	}
	return n - 1 - s.search(h, 1-leader, n-1-beta, n-1-alpha)
}

// search returns the tricks leader takes from a trick's start with hands h,
// exact inside (alpha, beta), else a bound on the side it fails.
func (s *Solver) search(h [2]uint32, leader, alpha, beta int) int {
	n := bits.OnesCount32(h[leader])
	if n == 0 {
		return 0
	}
	s.nodes++
	if n == 1 {
		lead := bits.TrailingZeros32(h[leader])
		f := bits.TrailingZeros32(h[1-leader])
		return 1 - s.g.TrickWinner(lead, f, s.trump)
	}
	idx := (uint64(h[0])*0x9e3779b97f4a7c15 ^ uint64(h[1])*0xc2b2ae3d27d4eb4f ^ uint64(leader)) >> (64 - ttBits)
	e := &s.tt[idx]
	lower, upper := 0, n
	if e.gen == s.gen && e.h0 == h[0] && e.h1 == h[1] && int(e.leader) == leader {
		lower, upper = int(e.lower), int(e.upper)
	}
	switch {
	case lower == upper || lower >= beta:
		return lower
	case upper <= alpha:
		return upper
	}
	a, b := max(alpha, lower), min(beta, upper)
	held := h[0] | h[1]
	best := -1
	for m := s.candidates(h[leader], held); m != 0 && best < b; m &= m - 1 {
		lead := bits.TrailingZeros32(m)
		// The follower minimises the leader's tricks; once it holds them to
		// best or fewer, this lead cannot improve on best.
		worst := n + 1
		lo := max(a, best)
		for r := s.candidates(s.follows(h[1-leader], lead), held); r != 0 && worst > lo; r &= r - 1 {
			f := bits.TrailingZeros32(r)
			v := s.after(h, leader, lead, f, n, lo, min(b, worst))
			worst = min(worst, v)
		}
		best = max(best, worst)
	}
	// best is exact inside (a, b); a fail low is an upper bound, a fail
	// high a lower bound.
	switch {
	case best <= a:
		upper = min(upper, best)
	case best >= b:
		lower = max(lower, best)
	default:
		lower, upper = best, best
	}
	*e = entry{h0: h[0], h1: h[1], leader: int8(leader), lower: int8(lower), upper: int8(upper), gen: s.gen}
	return best
}
