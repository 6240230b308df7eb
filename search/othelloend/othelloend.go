// Package othelloend solves Othello endgames exactly: from an 8x8 or 6x6
// position it finds the final disc differential under perfect play by both
// sides and a move that achieves it.
//
// Scores follow the FFO convention (and the .obf files): the final disc
// count of the side to move minus the opponent's, with the empty squares left
// at the end given to the winner, so every score is even and in [-64, 64]
// ([-36, 36] on 6x6). Boards use the 8-wide layout of package othello: a 6x6
// board is the top left corner, its squares row*8+col.
//
// The search is a fail-soft negamax alpha-beta with principal variation
// (null-window) searches on bitboards, in three regimes by the number of
// empty squares:
//   - deep (more than shallowEmpties): a transposition table holding bounds
//     and the best move (with an enhanced transposition cutoff from
//     etcEmpties up), and fastest-first ordering: the move that leaves the
//     opponent the fewest replies first, corner replies weighing three
//     times, refined by potential mobility and edge anchors, the table's
//     move before all;
//   - shallow (down to smallEmpties+1): no table, moves ordered by quadrant
//     parity (a move into a region with an odd number of empties first);
//   - small (smallEmpties or fewer): no move generation at all, the empty
//     squares are kept in a little list and tried directly, with the very
//     last empty counted in closed form.
package othelloend

import (
	"fmt"
	"math/bits"
	"slices"

	"tabula/games/othello"
)

// Pass is the best move returned when the side to move has no move but the
// opponent has one; it equals the PASS action of othello:size=8 (on 6x6 it
// is a code, not the game's action).
const Pass = 64

// NoMove is the best move returned when the game is over.
const NoMove = -1

const (
	// shallowEmpties is the largest number of empties searched without the
	// table and without fastest-first ordering.
	shallowEmpties = 6
	// smallEmpties is the largest number of empties searched by trying the
	// empty squares directly.
	smallEmpties = 4
	// infinity is beyond every score.
	infinity = 65
)

// Config sets up a Solver.
type Config struct {
	// TTBits is log2 of the number of transposition-table entries (24 bytes
	// each); 0 disables the table. Range 0..28; default 20 (24 MiB).
	TTBits int `yaml:"tt_bits"`
	// Size is the side of the board, 8 or 6; 0 means 8.
	Size int `yaml:"size"`
}

// DefaultConfig returns the default configuration.
func DefaultConfig() Config { return Config{TTBits: 20, Size: 8} }

// Validate checks the ranges of the fields.
func (c Config) Validate() error {
	if c.TTBits < 0 || c.TTBits > 28 {
		return fmt.Errorf("othelloend: tt_bits=%d, want 0..28", c.TTBits)
	}
	if c.Size != 0 && c.Size != 6 && c.Size != 8 {
		return fmt.Errorf("othelloend: size=%d, want 6 or 8", c.Size)
	}
	return nil
}

// entry is a transposition-table slot: the exact position and bounds on its
// score.
type entry struct {
	p, o         uint64
	lower, upper int8
	best         int8
}

// Solver is an exact endgame solver with its own transposition table. It is
// not safe for concurrent use; use one per goroutine.
type Solver struct {
	nodes uint64
	tt    []entry
	mask  uint64
	// board holds the squares of the board (all bits on 8x8), squares
	// their number; corners, edges and quadrants are the board's, for
	// move ordering.
	board          uint64
	squares        int
	corners, edges uint64
	quadrants      [4]uint64
	// lists[n] is the move list of the deep node with n empties being
	// searched (a pass keeps n but needs no list), so that no list is
	// zeroed per node.
	lists [65]moveList
}

// New returns a solver configured by cfg.
func New(cfg Config) (*Solver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Solver{board: ^uint64(0), squares: 64, corners: corners, edges: 0xFF818181818181FF,
		quadrants: [4]uint64{0x0F0F0F0F, 0xF0F0F0F0, 0x0F0F0F0F00000000, 0xF0F0F0F000000000}}
	if cfg.Size == 6 {
		s.board, s.squares, s.corners, s.edges = 0x3F3F3F3F3F3F, 36, 0x210000000021, 0x3F212121213F
		s.quadrants = [4]uint64{0x070707, 0x383838, 0x070707000000, 0x383838000000}
	}
	if cfg.TTBits > 0 {
		s.tt = make([]entry, 1<<cfg.TTBits)
		s.mask = uint64(len(s.tt) - 1)
	}
	return s, nil
}

// Solve solves one 8x8 position with a fresh solver of the default
// configuration (it allocates the 24 MiB table); reuse a Solver to solve
// many. Time grows exponentially with the empties: about 20 is seconds.
func Solve(mover, opp uint64) (score, best int) {
	s, _ := New(DefaultConfig()) // the default configuration is valid
	return s.Solve(mover, opp)
}

// Nodes returns the number of positions searched since the solver was made
// or last Reset.
func (s *Solver) Nodes() uint64 { return s.nodes }

// Reset clears the node counter and the transposition table.
func (s *Solver) Reset() {
	s.nodes = 0
	clear(s.tt)
}

// Solve returns the exact score of the position for the side to move (whose
// discs are mover) and a best move: a square 0..63 (row*8+col, a1 = 0), Pass,
// or NoMove when the game is over. Overlapping boards are treated as the
// mover's; discs off a 6x6 board are ignored.
func (s *Solver) Solve(mover, opp uint64) (score, best int) {
	return s.Search(mover, opp, -infinity, infinity)
}

// Search is Solve within the window (alpha, beta): a score at or below alpha
// is an upper bound on the true score, one at or above beta a lower bound,
// and one between them exact. Search(p, o, -1, 1) decides win, draw or loss
// faster than a full solve. The best move is only meaningful for a score
// above alpha.
func (s *Solver) Search(mover, opp uint64, alpha, beta int) (score, best int) {
	p, o := mover&s.board, opp&^mover&s.board
	alpha, beta = max(alpha, -infinity), min(beta, infinity)
	if alpha >= beta {
		alpha = beta - 1
	}
	moves := othello.Moves(p, o) & s.board
	if moves == 0 {
		if othello.Moves(o, p)&s.board == 0 {
			return s.final(p, o), NoMove
		}
		s.nodes++
		return -s.search(o, p, -beta, -alpha), Pass
	}
	s.nodes++
	list := &s.lists[bits.OnesCount64(s.board&^(p|o))]
	list.fill(s, p, o, moves, NoMove)
	best, score = list.m[0].sq, -infinity
	for i := 0; i < list.n; i++ {
		m := &list.m[list.pick(i)]
		np, no := o&^m.flips, p|m.flips|1<<uint(m.sq)
		v := s.pvs(np, no, alpha, beta, i == 0)
		if v > score {
			score, best = v, m.sq
			if v > alpha {
				alpha = v
				if alpha >= beta {
					break
				}
			}
		}
	}
	return score, best
}

// MoveScores returns the exact score of every legal move of the side to
// move, best first (ties by square): what an FFO .obf line lists. A forced
// pass is the single move Pass; a finished game has no moves. It solves
// each move with a full window, so it costs several Solves.
func (s *Solver) MoveScores(mover, opp uint64) []othello.MoveScore {
	p, o := mover&s.board, opp&^mover&s.board
	moves := othello.Moves(p, o) & s.board
	if moves == 0 {
		if othello.Moves(o, p)&s.board == 0 {
			return nil
		}
		s.nodes++
		return []othello.MoveScore{{Square: Pass, Score: -s.search(o, p, -infinity, infinity)}}
	}
	out := make([]othello.MoveScore, 0, bits.OnesCount64(moves))
	for ; moves != 0; moves &= moves - 1 {
		x := bits.TrailingZeros64(moves)
		f := othello.Flips(x, p, o)
		s.nodes++
		out = append(out, othello.MoveScore{Square: x, Score: -s.search(o&^f, p|f|1<<uint(x), -infinity, infinity)})
	}
	slices.SortStableFunc(out, func(a, b othello.MoveScore) int { return b.Score - a.Score })
	return out
}

// pvs returns the negated score of the child (np to move): a full-window
// search for the first move, a null-window one for the others, re-searched
// when it lands inside the window.
func (s *Solver) pvs(np, no uint64, alpha, beta int, first bool) int {
	if first {
		return -s.search(np, no, -beta, -alpha)
	}
	v := -s.search(np, no, -alpha-1, -alpha)
	if v > alpha && v < beta {
		v = -s.search(np, no, -beta, -alpha)
	}
	return v
}

// final returns the score of a finished game: the disc differential, the
// empties going to the winner.
func (s *Solver) final(p, o uint64) int {
	np, no := bits.OnesCount64(p), bits.OnesCount64(o)
	d := np - no
	switch {
	case d > 0:
		d = s.squares - 2*no
	case d < 0:
		d = 2*np - s.squares
	}
	return d
}

// search dispatches on the number of empty squares.
func (s *Solver) search(p, o uint64, alpha, beta int) int {
	empty := s.board &^ (p | o)
	n := bits.OnesCount64(empty)
	switch {
	case n == 0:
		s.nodes++
		return bits.OnesCount64(p)*2 - s.squares
	case n <= smallEmpties:
		return s.small(p, o, alpha, beta, s.emptyList(empty), n, false)
	case n <= shallowEmpties:
		return s.shallow(p, o, alpha, beta, n, false)
	}
	return s.deep(p, o, alpha, beta, n, false)
}
