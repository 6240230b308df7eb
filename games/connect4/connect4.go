// Package connect4 implements Connect Four (7 columns, 6 rows) behind the
// games.Game/State API, with bitboards in the layout of Pascal Pons' solver:
// each column takes 7 bits, 6 for its cells from the bottom up and one spare
// bit above that keeps columns apart. Actions 0..6 are the columns from left
// to right; the notation writes them as the digits 1..7 ("4453").
//
// The package registers itself as "connect4" (no parameters).
package connect4

import (
	"fmt"
	"math/bits"
	"strings"

	"tabula/games"
)

// Board dimensions and derived constants.
const (
	Width  = 7              // number of columns
	Height = 6              // number of rows
	Cells  = Width * Height // number of cells, also the longest game
	// colBits is the number of bits a column takes in a bitboard: its
	// cells plus one spare bit above them.
	colBits = Height + 1
)

// BottomMask has the bottom cell of every column set.
const BottomMask uint64 = 1 | 1<<7 | 1<<14 | 1<<21 | 1<<28 | 1<<35 | 1<<42

// BoardMask has every cell of the board set (and no spare bit).
const BoardMask uint64 = BottomMask * ((1 << Height) - 1)

// ColumnMask returns the cells of column col.
func ColumnMask(col int) uint64 { return ((1 << Height) - 1) << (uint(col) * colBits) }

// topMask returns the top cell of column col.
func topMask(col int) uint64 { return 1 << (Height - 1 + uint(col)*colBits) }

// bottomCell returns the bottom cell of column col.
func bottomCell(col int) uint64 { return 1 << (uint(col) * colBits) }

// Bit returns the bitboard bit of the cell in column col and row row, row 0
// being the bottom row.
func Bit(col, row int) uint64 { return 1 << (uint(col)*colBits + uint(row)) }

// HasFour reports whether the stones in bitboard pos contain four in a row
// in any direction.
func HasFour(pos uint64) bool {
	// Horizontal: neighbours are one column (7 bits) apart.
	m := pos & (pos >> colBits)
	if m&(m>>(2*colBits)) != 0 {
		return true
	}
	// Diagonal going down to the right: 6 bits apart.
	m = pos & (pos >> (colBits - 1))
	if m&(m>>(2*(colBits-1))) != 0 {
		return true
	}
	// Diagonal going up to the right: 8 bits apart.
	m = pos & (pos >> (colBits + 1))
	if m&(m>>(2*(colBits+1))) != 0 {
		return true
	}
	// Vertical: 1 bit apart.
	m = pos & (pos >> 1)
	return m&(m>>2) != 0
}

// WinningCells returns the empty cells (of the board, under mask) that would
// give the player owning the stones in pos four in a row. Cells that are not
// yet playable are included.
func WinningCells(pos, mask uint64) uint64 {
	// Vertical: three stones directly below.
	r := (pos << 1) & (pos << 2) & (pos << 3)

	for _, d := range [3]uint{colBits, colBits - 1, colBits + 1} {
		// Horizontal (d = 7) and the two diagonals (d = 6, 8): the cell
		// completes a four with three stones on one side, or two and one,
		// or one and two.
		p := (pos << d) & (pos << (2 * d))
		r |= p & (pos << (3 * d))
		r |= p & (pos >> d)
		p = (pos >> d) & (pos >> (2 * d))
		r |= p & (pos << d)
		r |= p & (pos >> (3 * d))
	}
	return r & (BoardMask ^ mask)
}

// Game is the Connect Four game. Its zero value is ready to use; it implements
// games.Game, games.Symmetric, games.Notation and games.Heuristic.
type Game struct{}

var (
	_ games.Game      = Game{}
	_ games.Symmetric = Game{}
	_ games.Notation  = Game{}
	_ games.Heuristic = Game{}
	_ games.State     = (*State)(nil)
	_ games.Threats   = (*State)(nil)
)

func init() {
	games.Register("connect4", "Connect Four, 7 columns x 6 rows; moves are the columns 1-7", nil,
		func(games.Params) (games.Game, error) { return Game{}, nil })
}

// Name returns "connect4".
func (Game) Name() string { return "connect4" }

// NumActions returns 7, one action per column.
func (Game) NumActions() int { return Width }

// ObservationShape returns 2 planes of 6 rows by 7 columns.
func (Game) ObservationShape() (planes, height, width int) { return 2, Height, Width }

// MaxGameLength returns 42, the number of cells.
func (Game) MaxGameLength() int { return Cells }

// NewInitialState returns the empty board, first player (X) to move.
func (Game) NewInitialState() games.State { return NewState() }

// NewState returns the empty board as a *State.
func NewState() *State { return &State{} }

// State is a Connect Four position. Its zero value is the empty board.
type State struct {
	current uint64 // stones of the player to move
	mask    uint64 // all stones
	hash    uint64 // Zobrist hash of the stones and the side to move
	moves   int32  // number of stones on the board
	won     bool   // the player who moved last connected four
}

// Game returns Game{}.
func (s *State) Game() games.Game { return Game{} }

// Bitboards returns the stones of the player to move and all stones, in the
// layout described in the package comment.
func (s *State) Bitboards() (current, mask uint64) { return s.current, s.mask }

// CurrentPlayer returns 0 when the first player (X) is to move, else 1.
func (s *State) CurrentPlayer() int { return int(s.moves & 1) }

// MoveNumber returns the number of stones on the board.
func (s *State) MoveNumber() int { return int(s.moves) }

// Won reports whether the player who moved last connected four.
func (s *State) Won() bool { return s.won }

// LegalActions appends the columns that are not full to buf[:0], or nothing
// once the game is over.
func (s *State) LegalActions(buf []int) []int {
	buf = buf[:0]
	if s.won || s.moves == Cells {
		return buf
	}
	for c := 0; c < Width; c++ {
		if s.mask&topMask(c) == 0 {
			buf = append(buf, c)
		}
	}
	return buf
}

// IsLegal reports whether a is a column that is not full in a game that is
// not over.
func (s *State) IsLegal(a int) bool {
	return a >= 0 && a < Width && !s.won && s.mask&topMask(a) == 0
}

// ApplyAction drops a stone of the player to move into column a, which the
// caller guarantees is legal.
func (s *State) ApplyAction(a int) {
	move := (s.mask + bottomCell(a)) & ColumnMask(a)
	mine := s.current | move
	s.won = HasFour(mine)
	s.hash ^= zobrist[s.moves&1][bits.TrailingZeros64(move)&63] ^ zobristSide
	s.current = mine ^ (s.mask | move) // the opponent's stones
	s.mask |= move
	s.moves++
}

// ForcedResult reads the next two plies off the bitboards: +1 when the
// player to move has a playable winning cell; -1 when it has none and the
// opponent has two (one can be blocked, not both), or one whose blocking
// stone would make the cell above it playable and that cell also wins for
// the opponent; 0 otherwise, and once the game is over.
func (s *State) ForcedResult() int {
	if s.won || s.moves == Cells {
		return 0
	}
	playable := (s.mask + BottomMask) & BoardMask
	if WinningCells(s.current, s.mask)&playable != 0 {
		return 1
	}
	oppWins := WinningCells(s.current^s.mask, s.mask)
	threats := oppWins & playable
	switch {
	case threats == 0:
		return 0
	case threats&(threats-1) != 0, threats<<1&oppWins != 0:
		return -1
	}
	return 0
}

// IsTerminal reports whether a player has connected four or the board is full.
func (s *State) IsTerminal() bool { return s.won || s.moves == Cells }

// Returns gives +1 to the player who connected four and -1 to the other, or
// zeros for a draw and for a game not over.
func (s *State) Returns() [2]float64 {
	if !s.won {
		return [2]float64{}
	}
	if s.moves&1 == 1 { // the first player moved last
		return [2]float64{1, -1}
	}
	return [2]float64{-1, 1}
}

// Observation writes 2 planes of 6x7: plane 0 holds the stones of the player
// to move, plane 1 the opponent's; row 0 is the top row as displayed.
func (s *State) Observation(dst []float32) {
	opp := s.current ^ s.mask
	// Each value straight from its bit, with no branch (to a branch
	// predictor the cells of self-play's leaves are random).
	for r := 0; r < Height; r++ {
		row := Height - 1 - r
		for c := 0; c < Width; c++ {
			sh := uint(c)*colBits + uint(row)
			dst[r*Width+c] = float32(s.current >> sh & 1)
			dst[Cells+r*Width+c] = float32(opp >> sh & 1)
		}
	}
}

// Clone returns a copy of s.
func (s *State) Clone() games.State {
	c := *s
	return &c
}

// Hash returns the Zobrist hash of the stones and the side to move.
func (s *State) Hash() uint64 { return s.hash }

// String draws the board, top row first, X for the first player, O for the
// second, '.' for an empty cell, then the column numbers and who is to move
// (or the result).
func (s *State) String() string {
	var b strings.Builder
	x, o := s.playerStones(0), s.playerStones(1)
	for row := Height - 1; row >= 0; row-- {
		for c := 0; c < Width; c++ {
			if c > 0 {
				b.WriteByte(' ')
			}
			switch bit := Bit(c, row); {
			case x&bit != 0:
				b.WriteByte('X')
			case o&bit != 0:
				b.WriteByte('O')
			default:
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	b.WriteString("1 2 3 4 5 6 7\n")
	switch {
	case s.won && s.moves&1 == 1:
		b.WriteString("X won\n")
	case s.won:
		b.WriteString("O won\n")
	case s.moves == Cells:
		b.WriteString("draw\n")
	case s.moves&1 == 0:
		b.WriteString("X to move\n")
	default:
		b.WriteString("O to move\n")
	}
	return b.String()
}

// playerStones returns the stones of player p (0 = X, 1 = O).
func (s *State) playerStones(p int) uint64 {
	if int(s.moves&1) == p {
		return s.current
	}
	return s.current ^ s.mask
}

// zobrist holds one key per player and bit position; zobristSide is toggled
// at every move. They come from a fixed splitmix64 sequence, so hashes are
// the same in every run.
var (
	zobrist     [2][64]uint64
	zobristSide uint64
)

func init() {
	x := uint64(0xC0FFEE4C0117EC7)
	next := func() uint64 {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
		z = (z ^ z>>27) * 0x94D049BB133111EB
		return z ^ z>>31
	}
	for p := range zobrist {
		for i := range zobrist[p] {
			zobrist[p][i] = next()
		}
	}
	zobristSide = next()
}

// fromBitboards builds a state from the stones of both players and the
// number of moves, recomputing the hash and the win flag.
func fromBitboards(x, o uint64, moves int32) *State {
	s := &State{mask: x | o, moves: moves}
	if moves&1 == 0 {
		s.current = x
		s.won = HasFour(o)
	} else {
		s.current = o
		s.won = HasFour(x)
	}
	for p, stones := range [2]uint64{x, o} {
		for b := stones; b != 0; b &= b - 1 {
			s.hash ^= zobrist[p][bits.TrailingZeros64(b)]
		}
	}
	if moves&1 == 1 {
		s.hash ^= zobristSide
	}
	return s
}

// mirror reflects bitboard b left to right.
func mirror(b uint64) uint64 {
	var r uint64
	for c := 0; c < Width; c++ {
		r |= ((b >> (uint(c) * colBits)) & (1<<colBits - 1)) << (uint(Width-1-c) * colBits)
	}
	return r
}

// NumSymmetries returns 2: the identity and the left-right mirror.
func (Game) NumSymmetries() int { return 2 }

// TransformAction maps column a through symmetry k (1 mirrors; any other k
// is treated as the identity).
func (Game) TransformAction(k, a int) int {
	if k == 1 {
		return Width - 1 - a
	}
	return a
}

// TransformObservation writes src mirrored left to right into dst when k is
// 1, and copies it otherwise.
func (Game) TransformObservation(k int, dst, src []float32) {
	if k != 1 {
		copy(dst, src)
		return
	}
	for i := 0; i+Width <= len(src) && i+Width <= len(dst); i += Width {
		for c := 0; c < Width; c++ {
			dst[i+c] = src[i+Width-1-c]
		}
	}
}

// TransformState returns s mirrored when k is 1, or a copy of s otherwise. It
// returns nil when s is not a Connect Four state.
func (Game) TransformState(k int, s games.State) games.State {
	cs, ok := s.(*State)
	if !ok {
		return nil
	}
	if k != 1 {
		return cs.Clone()
	}
	return fromBitboards(mirror(cs.playerStones(0)), mirror(cs.playerStones(1)), cs.moves)
}

// Inverse returns k: both symmetries are their own inverse.
func (Game) Inverse(k int) int { return k }

// FormatAction writes column a as a digit 1-7 ("?" when a is out of range).
func (Game) FormatAction(a int) string {
	if a < 0 || a >= Width {
		return "?"
	}
	return string(rune('1' + a))
}

// ParseAction reads one column digit 1-7, surrounding spaces allowed.
func (Game) ParseAction(text string) (int, error) {
	t := strings.TrimSpace(text)
	if len(t) != 1 || t[0] < '1' || t[0] > '0'+Width {
		return 0, fmt.Errorf("connect4: move %q is not a column 1-%d", text, Width)
	}
	return int(t[0] - '1'), nil
}

// FormatActions concatenates the column digits, e.g. "4453".
func (g Game) FormatActions(actions []int) string {
	var b strings.Builder
	b.Grow(len(actions))
	for _, a := range actions {
		b.WriteString(g.FormatAction(a))
	}
	return b.String()
}

// ParseActions reads a sequence of column digits 1-7; white space anywhere is
// ignored ("4453", "4 4 5 3"). It checks syntax, not legality.
func (Game) ParseActions(text string) ([]int, error) {
	actions := make([]int, 0, len(text))
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
		case ch >= '1' && ch <= '0'+Width:
			actions = append(actions, int(ch-'1'))
		default:
			return nil, fmt.Errorf("connect4: byte %d of %q is not a column 1-%d", i+1, text, Width)
		}
	}
	return actions, nil
}
