// Package small is Connect Four on boards smaller than 7x6 (spec
// connect4small:width=5,height=4), the boards whose every position
// search/retro solves backward. Rules as in games/connect4: stones drop to
// the lowest empty cell of a column; four in a row (across, up or
// diagonal) wins; a full board without four is a draw.
package small

import (
	"fmt"
	"math/bits"
	"strings"

	"tabula/games"
)

var (
	_ games.Game  = (*Game)(nil)
	_ games.State = (*State)(nil)
)

func init() {
	games.Register("connect4small", "Connect Four on a small board; moves are the columns 0..width-1",
		[]games.Param{
			{Name: "width", Default: "5", Doc: "columns, 4..8"},
			{Name: "height", Default: "4", Doc: "rows, 4..7"},
		},
		func(p games.Params) (games.Game, error) {
			w, err := p.Int("width")
			if err != nil {
				return nil, err
			}
			h, err := p.Int("height")
			if err != nil {
				return nil, err
			}
			return New(w, h)
		})
}

// Game is Connect Four on a Width x Height board.
type Game struct {
	width, height int
}

// New returns the game of a width x height board (4..8 columns, 4..7 rows).
func New(width, height int) (*Game, error) {
	if width < 4 || width > 8 {
		return nil, fmt.Errorf("game connect4small: width=%d, want 4..8", width)
	}
	if height < 4 || height > 7 {
		return nil, fmt.Errorf("game connect4small: height=%d, want 4..7", height)
	}
	return &Game{width: width, height: height}, nil
}

// Name returns the spec of the game, such as
// "connect4small:width=5,height=4".
func (g *Game) Name() string {
	return fmt.Sprintf("connect4small:width=%d,height=%d", g.width, g.height)
}

// Size returns the columns and rows.
func (g *Game) Size() (width, height int) { return g.width, g.height }

// NumActions returns the number of columns.
func (g *Game) NumActions() int { return g.width }

// ObservationShape returns 2 planes (the mover's stones, the opponent's)
// of height x width.
func (g *Game) ObservationShape() (planes, height, width int) { return 2, g.height, g.width }

// MaxGameLength returns the number of cells.
func (g *Game) MaxGameLength() int { return g.width * g.height }

// NewInitialState returns the empty board, the first player to move.
func (g *Game) NewInitialState() games.State { return &State{g: g} }

// State is a position. Stones are bitboards with bit c*(height+1) + r for
// column c, row r from the bottom (the layout of retro.C4Table.Lookup).
type State struct {
	g       *Game
	stones  [2]uint64 // the first player's, the second's
	heights [8]int8
	moves   int
	won     bool
}

// Stones returns the first and the second player's stones.
func (s *State) Stones() (first, second uint64) { return s.stones[0], s.stones[1] }

func (s *State) Game() games.Game   { return s.g }
func (s *State) CurrentPlayer() int { return s.moves & 1 }
func (s *State) MoveNumber() int    { return s.moves }
func (s *State) IsTerminal() bool   { return s.won || s.moves == s.g.width*s.g.height }

func (s *State) LegalActions(buf []int) []int {
	buf = buf[:0]
	if s.IsTerminal() {
		return buf
	}
	for c := range s.g.width {
		if int(s.heights[c]) < s.g.height {
			buf = append(buf, c)
		}
	}
	return buf
}

func (s *State) IsLegal(a int) bool {
	return a >= 0 && a < s.g.width && !s.IsTerminal() && int(s.heights[a]) < s.g.height
}

// ApplyAction drops a stone in column a, which must be legal.
func (s *State) ApplyAction(a int) {
	p := s.moves & 1
	s.stones[p] |= 1 << (a*(s.g.height+1) + int(s.heights[a]))
	s.heights[a]++
	s.moves++
	s.won = hasFour(s.stones[p], s.g.height)
}

// hasFour reports four in a row among stones; the spare bit above each
// column keeps shifts from wrapping into the next column.
func hasFour(b uint64, height int) bool {
	h := uint(height)
	for _, d := range [4]uint{1, h + 1, h, h + 2} {
		m := b & (b >> d)
		if m&(m>>(2*d)) != 0 {
			return true
		}
	}
	return false
}

// Returns is +1 for the player who connected four, -1 for the other, 0
// otherwise.
func (s *State) Returns() [2]float64 {
	if !s.won {
		return [2]float64{}
	}
	if (s.moves-1)&1 == 0 {
		return [2]float64{1, -1}
	}
	return [2]float64{-1, 1}
}

// Observation writes the mover's stones then the opponent's, row 0 the top.
func (s *State) Observation(dst []float32) {
	w, h := s.g.width, s.g.height
	clear(dst[:2*w*h])
	me := s.moves & 1
	for k, p := range [2]int{me, 1 - me} {
		b := s.stones[p]
		for c := range w {
			for r := range h {
				if b&(1<<(c*(h+1)+r)) != 0 {
					dst[k*w*h+(h-1-r)*w+c] = 1
				}
			}
		}
	}
}

func (s *State) Clone() games.State { c := *s; return &c }

// Hash mixes both players' stones; the player to move follows from them.
func (s *State) Hash() uint64 {
	x := s.stones[0]*0x9E3779B97F4A7C15 ^ bits.RotateLeft64(s.stones[1]*0xC2B2AE3D27D4EB4F, 31)
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	return x ^ x>>32
}

// String draws the board, top row first: X the first player, O the second.
func (s *State) String() string {
	var b strings.Builder
	w, h := s.g.width, s.g.height
	for r := h - 1; r >= 0; r-- {
		for c := range w {
			bit := uint64(1) << (c*(h+1) + r)
			switch {
			case s.stones[0]&bit != 0:
				b.WriteByte('X')
			case s.stones[1]&bit != 0:
				b.WriteByte('O')
			default:
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
