// Package phantom implements phantom tic-tac-toe behind the games API, with
// OpenSpiel's rules (phantom_ttt, the default "reveal-nothing" observation):
// the board is tic-tac-toe's, but each player sees only its own marks. A
// player picks a cell it has not yet seen taken; if the opponent holds it,
// the move fails, the player learns that the cell is the opponent's and
// moves again; otherwise its mark goes there and the turn passes. Nothing
// of the opponent's attempts is shown. Three in a row wins, a full board is
// a draw, as in tic-tac-toe. It is a game of imperfect information without
// chance (games.Imperfect): Lanctot's thesis (2013, ch. 3) and OpenSpiel
// use it as the small "blind tic-tac-toe" of the literature.
//
// Cells and notation are tic-tac-toe's: cells 0..8 row by row from the top
// left, written 1..9. A game is at most 17 actions long: 9 marks and at
// most 8 failed attempts, each on a different cell of the opponent's.
//
// The package registers itself as "phantom".
package phantom

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"

	"tabula/games"
	"tabula/games/tictactoe"
)

// Board side, number of cells, the longest game.
const (
	Side      = 3
	Cells     = Side * Side
	maxLength = 2*Cells - 1
)

func init() {
	games.Register("phantom", "phantom tic-tac-toe: each player sees only its own marks; a move onto a hidden opponent mark fails and the player moves again (imperfect information)", nil,
		func(games.Params) (games.Game, error) { return Game{}, nil })
}

// Game is phantom tic-tac-toe; it has no parameters, so the zero value is
// the game.
type Game struct{}

// Name returns "phantom".
func (Game) Name() string { return "phantom" }

// NumActions returns 9, one action per cell.
func (Game) NumActions() int { return Cells }

// NumPlayers returns 2.
func (Game) NumPlayers() int { return 2 }

// ObservationShape returns 2 planes of 3x3: the mover's marks, and the
// opponent's marks the mover has found by failing on them.
func (Game) ObservationShape() (planes, height, width int) { return 2, Side, Side }

// MaxGameLength returns 17: 9 marks and at most 8 failed attempts.
func (Game) MaxGameLength() int { return maxLength }

// NewInitialState returns the empty board, the first player (X) to move.
func (Game) NewInitialState() games.State { return &State{} }

var wins = [8]uint16{
	0b000000111, 0b000111000, 0b111000000,
	0b001001001, 0b010010010, 0b100100100,
	0b100010001, 0b001010100,
}

const full = 1<<Cells - 1

func hasLine(m uint16) bool {
	for _, w := range wins {
		if m&w == w {
			return true
		}
	}
	return false
}

// State is a position: the true board, what each player has found of the
// other's marks, and every attempt in order.
type State struct {
	marks [2]uint16
	found [2]uint16 // found[p]: the opponent's cells p tried and so knows
	hist  [maxLength]int8
	n     int
}

// Game returns Game{}.
func (*State) Game() games.Game { return Game{} }

// CurrentPlayer is 0 when both players have as many marks, 1 otherwise: a
// turn passes only when a mark is placed.
func (s *State) CurrentPlayer() int {
	if bits.OnesCount16(s.marks[0]) == bits.OnesCount16(s.marks[1]) {
		return 0
	}
	return 1
}

// IsTerminal reports a line of three or a full board.
func (s *State) IsTerminal() bool {
	return s.marks[0]|s.marks[1] == full || hasLine(s.marks[0]) || hasLine(s.marks[1])
}

// LegalActions appends the cells the mover has neither marked nor found
// taken, in increasing order; none once the game is over.
func (s *State) LegalActions(buf []int) []int {
	buf = buf[:0]
	if s.IsTerminal() {
		return buf
	}
	p := s.CurrentPlayer()
	known := s.marks[p] | s.found[p]
	for a := 0; a < Cells; a++ {
		if known&(1<<a) == 0 {
			buf = append(buf, a)
		}
	}
	return buf
}

// IsLegal reports whether the mover may try cell a.
func (s *State) IsLegal(a int) bool {
	if a < 0 || a >= Cells || s.IsTerminal() {
		return false
	}
	p := s.CurrentPlayer()
	return (s.marks[p]|s.found[p])&(1<<a) == 0
}

// ApplyAction tries cell a for the mover: a failure on the opponent's mark
// records what the mover found, a free cell takes the mark. a must be legal.
func (s *State) ApplyAction(a int) {
	p := s.CurrentPlayer()
	bit := uint16(1) << a
	if s.marks[1-p]&bit != 0 {
		s.found[p] |= bit
	} else {
		s.marks[p] |= bit
	}
	s.hist[s.n] = int8(a)
	s.n++
}

// Returns is +1/-1 for the player with a line, 0 for a draw or an
// unfinished game.
func (s *State) Returns() [2]float64 {
	switch {
	case hasLine(s.marks[0]):
		return [2]float64{1, -1}
	case hasLine(s.marks[1]):
		return [2]float64{-1, 1}
	}
	return [2]float64{}
}

// Observation writes the mover's marks (plane 0) and the opponent's marks
// it has found (plane 1): nothing it has not seen.
func (s *State) Observation(dst []float32) {
	p := s.CurrentPlayer()
	for a := 0; a < Cells; a++ {
		dst[a] = float32(s.marks[p] >> a & 1)
		dst[Cells+a] = float32(s.found[p] >> a & 1)
	}
}

// Clone returns a copy.
func (s *State) Clone() games.State { c := *s; return &c }

// Hash mixes the board, what each player found and the number of attempts.
func (s *State) Hash() uint64 {
	x := uint64(s.marks[0]) | uint64(s.marks[1])<<9 | uint64(s.found[0])<<18 | uint64(s.found[1])<<27 | uint64(s.n)<<36
	x ^= x >> 31
	x *= 0x9E3779B97F4A7C15
	x ^= x >> 29
	return x
}

// MoveNumber is the number of attempts, failed ones included.
func (s *State) MoveNumber() int { return s.n }

// String draws the true board (X first player, O second), the cells each
// player has found taken, and the side to move.
func (s *State) String() string {
	var b strings.Builder
	for r := 0; r < Side; r++ {
		for c := 0; c < Side; c++ {
			b.WriteByte(cellChar(s.marks, r*Side+c))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "X found %s, O found %s\n", cellList(s.found[0]), cellList(s.found[1]))
	if !s.IsTerminal() {
		fmt.Fprintf(&b, "%c to move\n", "XO"[s.CurrentPlayer()])
	}
	return b.String()
}

func cellChar(marks [2]uint16, a int) byte {
	switch {
	case marks[0]&(1<<a) != 0:
		return 'X'
	case marks[1]&(1<<a) != 0:
		return 'O'
	}
	return '.'
}

func cellList(m uint16) string {
	if m == 0 {
		return "-"
	}
	var b strings.Builder
	for a := 0; a < Cells; a++ {
		if m&(1<<a) != 0 {
			b.WriteByte(byte('1' + a))
		}
	}
	return b.String()
}

// attempt is one try of a player: the cell and whether it failed.
type attempt struct {
	cell   int8
	failed bool
}

// turns replays the history and returns player p's attempts grouped by
// turn: every turn but an unfinished last one ends with p's mark.
func (s *State) turns(p int) [][]attempt {
	var r State
	var out [][]attempt
	open := false
	for _, a := range s.hist[:s.n] {
		q := r.CurrentPlayer()
		failed := r.marks[1-q]&(1<<a) != 0
		if q == p {
			if !open {
				out = append(out, nil)
				open = true
			}
			out[len(out)-1] = append(out[len(out)-1], attempt{a, failed})
			open = failed
		}
		r.ApplyAction(int(a))
	}
	return out
}

// InformationStateString gives what player p knows: its seat, its view of
// the board (its own marks, the opponent's marks it found), its attempts by
// turn with the failed ones marked '!', whether it is to move, and at the
// end the result. For example "p0 X.. .O. ... | 5!1 to move": X tried 5,
// found it taken, and is to move again.
func (s *State) InformationStateString(p int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "p%d ", p)
	view := [2]uint16{}
	view[p], view[1-p] = s.marks[p], s.found[p]
	for a := 0; a < Cells; a++ {
		if a > 0 && a%Side == 0 {
			b.WriteByte(' ')
		}
		b.WriteByte(cellChar(view, a))
	}
	b.WriteString(" |")
	for _, t := range s.turns(p) {
		b.WriteByte(' ')
		for _, at := range t {
			b.WriteByte(byte('1' + at.cell))
			if at.failed {
				b.WriteByte('!')
			}
		}
	}
	switch r := s.Returns()[p]; {
	case !s.IsTerminal():
		if s.CurrentPlayer() == p {
			b.WriteString(" to move")
		}
	case r > 0:
		b.WriteString(" won")
	case r < 0:
		b.WriteString(" lost")
	default:
		b.WriteString(" drawn")
	}
	return b.String()
}

// Resample returns a state p cannot tell from s, with the opponent's hidden
// marks drawn uniformly among the boards consistent with what p has seen:
// as many marks as the opponent has placed, among them every one p found,
// none on p's marks, and no line of three (the game goes on). There is no
// chance in the game, so no prior to follow; uniform is the choice made
// here. The opponent's failed attempts are as many as in s (the move number
// is kept), on p's marks drawn at random, all in the opponent's last turn.
// That count is the one thing kept that p does not observe; it decides only
// what the opponent has found, not where its marks are. A finished game is
// returned as it is.
func (s *State) Resample(p int, rng *rand.Rand) games.State {
	if s.IsTerminal() {
		c := *s
		return &c
	}
	o := 1 - p
	pTurns := s.turns(p)
	kO := bits.OnesCount16(s.marks[o])
	view := s.found[p]
	need := kO - bits.OnesCount16(view)

	// The opponent's board: view plus need free cells, with no line.
	free := full &^ (s.marks[p] | view)
	var boards []uint16
	for sub := free; ; sub = (sub - 1) & free {
		if bits.OnesCount16(sub) == need && !hasLine(view|sub) {
			boards = append(boards, view|sub)
		}
		if sub == 0 {
			break
		}
	}
	board := boards[rng.IntN(len(boards))]

	// Its placements: the found cells in the order p found them (each then
	// comes before p's attempt on it), then the others in random order.
	var place []int8
	for _, t := range pTurns {
		for _, at := range t {
			if at.failed {
				place = append(place, at.cell)
			}
		}
	}
	var extra []int8
	for a := int8(0); a < Cells; a++ {
		if (board&^view)&(1<<a) != 0 {
			extra = append(extra, a)
		}
	}
	rng.Shuffle(len(extra), func(i, j int) { extra[i], extra[j] = extra[j], extra[i] })
	place = append(place, extra...)

	// Its failures: distinct marks of p, all in its last turn, when every
	// mark of p is already on the board.
	var mine []int8
	for a := int8(0); a < Cells; a++ {
		if s.marks[p]&(1<<a) != 0 {
			mine = append(mine, a)
		}
	}
	rng.Shuffle(len(mine), func(i, j int) { mine[i], mine[j] = mine[j], mine[i] })
	fails := mine[:bits.OnesCount16(s.found[o])]
	oTurns := kO
	if s.CurrentPlayer() == o {
		oTurns++
	}
	last := oTurns - 1

	r := &State{}
	emitO := func(i int) {
		if i >= oTurns {
			return
		}
		if i == last {
			for _, a := range fails {
				r.ApplyAction(int(a))
			}
		}
		if i < kO {
			r.ApplyAction(int(place[i]))
		}
	}
	emitP := func(i int) {
		if i < len(pTurns) {
			for _, at := range pTurns[i] {
				r.ApplyAction(int(at.cell))
			}
		}
	}
	for i := 0; i < max(len(pTurns), oTurns); i++ {
		if p == 0 {
			emitP(i)
			emitO(i)
		} else {
			emitO(i)
			emitP(i)
		}
	}
	return r
}

// FullInformationState returns the true board as a tic-tac-toe position
// (games.Clairvoyant): seen whole, phantom tic-tac-toe is tic-tac-toe, and a
// move onto the opponent's mark changes nothing but what the mover knows.
func (s *State) FullInformationState() games.State { return tictactoe.FromBoards(s.marks) }

// Notation: tic-tac-toe's, a cell is its number 1..9.

// FormatAction writes action a as "1".."9".
func (Game) FormatAction(a int) string { return tictactoe.Game{}.FormatAction(a) }

// ParseAction reads one cell number 1..9.
func (Game) ParseAction(text string) (int, error) {
	a, err := tictactoe.Game{}.ParseAction(text)
	if err != nil {
		return 0, fmt.Errorf("phantom: move %q: want a cell 1-9", text)
	}
	return a, nil
}

// FormatActions writes a game as its cell numbers run together.
func (Game) FormatActions(actions []int) string { return tictactoe.Game{}.FormatActions(actions) }

// ParseActions reads cell numbers, with or without spaces between them.
func (Game) ParseActions(text string) ([]int, error) {
	as, err := tictactoe.Game{}.ParseActions(text)
	if err != nil {
		return nil, fmt.Errorf("phantom: %w", err)
	}
	return as, nil
}
