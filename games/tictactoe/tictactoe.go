// Package tictactoe implements tic-tac-toe (noughts and crosses) behind the
// games API: the worked example of docs/adding-a-game.md. It has the rules
// only; search, training and play come from the rest of tabula once the game
// is registered (init below) and its package is imported.
//
// Cells are numbered 0..8 row by row from the top left; action a puts the
// mover's mark on cell a. In text a move is the cell's number plus one
// ("1".."9", as on a phone keypad), and a game is its moves run together
// ("5193").
package tictactoe

import (
	"fmt"
	"math/bits"
	"strings"

	"tabula/games"
)

// Board side, number of cells.
const (
	Side  = 3
	Cells = Side * Side
)

func init() {
	games.Register("tictactoe", "tic-tac-toe on 3x3; moves are the cells 1-9, row by row from the top left", nil,
		func(games.Params) (games.Game, error) { return Game{}, nil })
}

// Game is tic-tac-toe. It has no parameters and no state, so the zero
// value is the game.
type Game struct{}

// Name returns "tictactoe", the spec games.New accepts.
func (Game) Name() string { return "tictactoe" }

// NumActions returns 9, one action per cell.
func (Game) NumActions() int { return Cells }

// ObservationShape returns 2 planes of 3x3: the mover's marks, the
// opponent's marks.
func (Game) ObservationShape() (planes, height, width int) { return 2, Side, Side }

// MaxGameLength returns 9: every move fills a cell.
func (Game) MaxGameLength() int { return Cells }

// NewInitialState returns the empty board, the first player to move.
func (Game) NewInitialState() games.State { return &State{} }

// wins lists the eight lines as bit masks over the cells.
var wins = [8]uint16{
	0b000000111, 0b000111000, 0b111000000, // rows
	0b001001001, 0b010010010, 0b100100100, // columns
	0b100010001, 0b001010100, // diagonals
}

const full = 1<<Cells - 1

// State is a position: one bit board per player. Player 0 moves first.
type State struct {
	marks [2]uint16
	moves int
}

// Game returns Game{}.
func (*State) Game() games.Game { return Game{} }

// CurrentPlayer is 0 after an even number of moves, 1 after an odd one.
func (s *State) CurrentPlayer() int { return s.moves & 1 }

// won reports whether player p has three in a line.
func (s *State) won(p int) bool {
	for _, w := range wins {
		if s.marks[p]&w == w {
			return true
		}
	}
	return false
}

// IsTerminal reports a line of three or a full board.
func (s *State) IsTerminal() bool {
	return s.marks[0]|s.marks[1] == full || s.won(0) || s.won(1)
}

// LegalActions appends the empty cells, in increasing order, to buf[:0];
// none once the game is over.
func (s *State) LegalActions(buf []int) []int {
	buf = buf[:0]
	if s.IsTerminal() {
		return buf
	}
	taken := s.marks[0] | s.marks[1]
	for a := 0; a < Cells; a++ {
		if taken&(1<<a) == 0 {
			buf = append(buf, a)
		}
	}
	return buf
}

// IsLegal reports whether cell a is on the board and empty in an unfinished
// game.
func (s *State) IsLegal(a int) bool {
	return a >= 0 && a < Cells && (s.marks[0]|s.marks[1])&(1<<a) == 0 && !s.IsTerminal()
}

// ApplyAction marks cell a for the player to move; a must be legal.
func (s *State) ApplyAction(a int) {
	s.marks[s.moves&1] |= 1 << a
	s.moves++
}

// Returns is +1/-1 for the player with a line, 0 for a draw or an
// unfinished game.
func (s *State) Returns() [2]float64 {
	switch {
	case s.won(0):
		return [2]float64{1, -1}
	case s.won(1):
		return [2]float64{-1, 1}
	}
	return [2]float64{}
}

// Observation writes plane 0 (the mover's marks) and plane 1 (the
// opponent's) as 0/1 values, row-major.
func (s *State) Observation(dst []float32) {
	me, them := s.marks[s.moves&1], s.marks[1-s.moves&1]
	for a := 0; a < Cells; a++ {
		dst[a] = float32(me >> a & 1)
		dst[Cells+a] = float32(them >> a & 1)
	}
}

// Clone returns a copy.
func (s *State) Clone() games.State { c := *s; return &c }

// CopyFrom makes s a copy of src, another tic-tac-toe state (the optional
// Copier capability search uses to avoid allocations).
func (s *State) CopyFrom(src games.State) { *s = *src.(*State) }

// Hash mixes both boards; the player to move follows from them.
func (s *State) Hash() uint64 {
	x := uint64(s.marks[0]) | uint64(s.marks[1])<<16
	x ^= x >> 31
	x *= 0x9E3779B97F4A7C15
	x ^= x >> 29
	return x
}

// MoveNumber is the number of marks on the board.
func (s *State) MoveNumber() int { return s.moves }

// String draws the board, X for the first player, O for the second, with
// the side to move under it.
func (s *State) String() string {
	var b strings.Builder
	for r := 0; r < Side; r++ {
		for c := 0; c < Side; c++ {
			bit := uint16(1) << (r*Side + c)
			switch {
			case s.marks[0]&bit != 0:
				b.WriteByte('X')
			case s.marks[1]&bit != 0:
				b.WriteByte('O')
			default:
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	if !s.IsTerminal() {
		fmt.Fprintf(&b, "%c to move\n", "XO"[s.moves&1])
	}
	return b.String()
}

// Notation: a cell is written as its number 1..9.

// FormatAction writes action a as "1".."9".
func (Game) FormatAction(a int) string { return string(rune('1' + a)) }

// ParseAction reads one cell number 1..9.
func (Game) ParseAction(text string) (int, error) {
	t := strings.TrimSpace(text)
	if len(t) != 1 || t[0] < '1' || t[0] > '9' {
		return 0, fmt.Errorf("tictactoe: move %q: want a cell 1-9", text)
	}
	return int(t[0] - '1'), nil
}

// FormatActions writes a game as its cell numbers run together.
func (g Game) FormatActions(actions []int) string {
	var b strings.Builder
	for _, a := range actions {
		b.WriteString(g.FormatAction(a))
	}
	return b.String()
}

// ParseActions reads cell numbers, with or without spaces between them.
func (g Game) ParseActions(text string) ([]int, error) {
	var out []int
	for _, r := range text {
		if r == ' ' || r == ',' {
			continue
		}
		a, err := g.ParseAction(string(r))
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// Symmetries: the 8 of the square (4 rotations, each with or without a
// mirror), used to augment training data and by sym=K players.

// sym[k][a] is the cell that cell a maps to under symmetry k.
var sym [8][Cells]int

func init() {
	for k := 0; k < 8; k++ {
		for a := 0; a < Cells; a++ {
			r, c := a/Side, a%Side
			if k&4 != 0 { // mirror left-right first
				c = Side - 1 - c
			}
			for i := 0; i < k&3; i++ { // then rotate a quarter turn k&3 times
				r, c = c, Side-1-r
			}
			sym[k][a] = r*Side + c
		}
	}
}

// NumSymmetries returns 8.
func (Game) NumSymmetries() int { return 8 }

// TransformAction maps cell a through symmetry k.
func (Game) TransformAction(k, a int) int { return sym[k][a] }

// Inverse returns the symmetry that undoes k: the opposite rotation, or k
// itself for a mirrored one (a reflection is its own inverse).
func (Game) Inverse(k int) int {
	if k&4 != 0 {
		return k
	}
	return (4 - k) & 3
}

// TransformObservation maps both planes through symmetry k.
func (Game) TransformObservation(k int, dst, src []float32) {
	for p := 0; p < 2; p++ {
		for a := 0; a < Cells; a++ {
			dst[p*Cells+sym[k][a]] = src[p*Cells+a]
		}
	}
}

// TransformState returns s mapped through symmetry k.
func (Game) TransformState(k int, st games.State) games.State {
	s := st.(*State)
	t := &State{moves: s.moves}
	for p := 0; p < 2; p++ {
		for a := 0; a < Cells; a++ {
			if s.marks[p]&(1<<a) != 0 {
				t.marks[p] |= 1 << sym[k][a]
			}
		}
	}
	return t
}

// Evaluate is the static evaluation alpha-beta reads at its horizon: the
// lines still open to the mover minus those open to the opponent, scaled
// into (-1, 1).
func (Game) Evaluate(st games.State) float64 {
	s := st.(*State)
	me, them := s.marks[s.moves&1], s.marks[1-s.moves&1]
	open := 0
	for _, w := range wins {
		if them&w == 0 {
			open++
		}
		if me&w == 0 {
			open--
		}
	}
	return float64(open) / 9 // |open| <= 8
}

// FromBoards returns the position with marks[0] the first player's cells
// and marks[1] the second's (bit a is cell a), the player to move following
// from the number of marks. It is how a game that hides marks (phantom
// tic-tac-toe) hands its whole board to a perfect-information search.
func FromBoards(marks [2]uint16) *State {
	return &State{marks: marks, moves: bits.OnesCount16(marks[0]) + bits.OnesCount16(marks[1])}
}
