// Package othello implements Othello (Reversi) on 8x8 and 6x6 boards with
// bitboards: shift-based (Kogge-Stone) move generation and flips, no
// allocation in the hot paths.
//
// Conventions: black (player 0, "X") moves first; the start position has
// white on d4 and e5 and black on d5 and e4 (the centre 2x2 likewise on
// 6x6: white c3 and d4, black d3 and c4). Action row*size+col is the square
// in that row and column, counted from 0 at the top left (a1 = 0, rows
// numbered from the top as in standard diagrams); action size*size is PASS,
// legal exactly when the mover has no move and the opponent has one. The game
// ends when neither side can move, and the side with more discs wins (empty
// squares are given to no one; equal counts are a draw).
package othello

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"tabula/games"
)

// Player numbers.
const (
	Black = 0 // moves first, "X"
	White = 1 // "O"
)

func init() {
	games.Register("othello", "Othello (Reversi) on a square board, black (player 0) first",
		[]games.Param{{Name: "size", Default: "8", Doc: "board side, 6 or 8"}},
		func(p games.Params) (games.Game, error) {
			n, err := p.Int("size")
			if err != nil {
				return nil, err
			}
			return New(n)
		})
}

// Game is Othello on a board of one size. It is immutable and safe for
// concurrent use.
type Game struct {
	size    int
	mask    uint64 // squares of the board in the 8-wide layout
	pass    int    // the PASS action, size*size
	name    string
	sqOf    []int8        // action -> bit, for the size*size square actions
	actOf   [64]int8      // bit -> action, -1 off the board
	symBits [8][64]int8   // symmetry k maps bit b to symBits[k][b]
	symAct  [8][]int      // symmetry k maps action a to symAct[k][a]
	symInv  [8]int        // inverse of each symmetry
	zobrist [2][64]uint64 // per colour and bit
	zSide   uint64        // xor-ed in when white is to move
	eval    evalTables    // masks used by Evaluate
}

// New returns Othello on a size x size board; size must be 6 or 8.
func New(size int) (*Game, error) {
	if size != 6 && size != 8 {
		return nil, fmt.Errorf("game othello: parameter size=%d must be 6 or 8", size)
	}
	g := &Game{size: size, pass: size * size, name: "othello:size=" + strconv.Itoa(size)}
	for i := range g.actOf {
		g.actOf[i] = -1
	}
	g.sqOf = make([]int8, size*size)
	for r := 0; r < size; r++ {
		for c := 0; c < size; c++ {
			b := r*8 + c
			g.mask |= 1 << uint(b)
			g.sqOf[r*size+c] = int8(b)
			g.actOf[b] = int8(r*size + c)
		}
	}
	g.initSymmetries()
	g.initZobrist()
	g.initEvaluation()
	return g, nil
}

// initZobrist fills the hash keys from a fixed seed with splitmix64, so that
// hashes are the same in every run and process.
func (g *Game) initZobrist() {
	x := uint64(0x0417E110) + uint64(g.size)
	next := func() uint64 {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
	for c := 0; c < 2; c++ {
		for b := 0; b < 64; b++ {
			g.zobrist[c][b] = next()
		}
	}
	g.zSide = next()
}

// Size returns the side of the board.
func (g *Game) Size() int { return g.size }

// Mask returns the squares of the board in the 8-wide bitboard layout.
func (g *Game) Mask() uint64 { return g.mask }

// Pass returns the PASS action, size*size.
func (g *Game) Pass() int { return g.pass }

// Square returns the bit (row*8+col) of square action a, or -1 for PASS or
// an action out of range.
func (g *Game) Square(a int) int {
	if a < 0 || a >= g.pass {
		return -1
	}
	return int(g.sqOf[a])
}

// Action returns the action of bit sq (row*8+col), or -1 when sq is off the
// board.
func (g *Game) Action(sq int) int {
	if sq < 0 || sq >= 64 {
		return -1
	}
	return int(g.actOf[sq])
}

// Name returns "othello:size=N".
func (g *Game) Name() string { return g.name }

// NumActions returns size*size squares plus PASS.
func (g *Game) NumActions() int { return g.pass + 1 }

// ObservationShape returns 3 planes (mover's discs, opponent's discs, the
// mover's legal moves) of size x size.
func (g *Game) ObservationShape() (planes, height, width int) { return 3, g.size, g.size }

// MaxGameLength bounds the number of actions in a game: every move fills a
// square, and since a pass is only legal when the opponent can then move, no
// two passes are consecutive, so at most one pass follows each move (plus
// one before the first).
func (g *Game) MaxGameLength() int { return 2*(g.size*g.size-4) + 1 }

// NewInitialState returns the start position, black to move.
func (g *Game) NewInitialState() games.State {
	h := g.size / 2
	bit := func(r, c int) uint64 { return 1 << uint(r*8+c) }
	white := bit(h-1, h-1) | bit(h, h)
	black := bit(h, h-1) | bit(h-1, h)
	return &State{g: g, mover: black, opp: white, player: Black}
}

// NewState returns a position from the black and white discs (8-wide layout,
// inside Mask) with player (Black or White) to move and moveNumber actions
// already played. It checks that the boards are disjoint and on the board.
func (g *Game) NewState(black, white uint64, player, moveNumber int) (*State, error) {
	if black&white != 0 {
		return nil, fmt.Errorf("othello: black and white discs overlap (%#x)", black&white)
	}
	if (black|white)&^g.mask != 0 {
		return nil, fmt.Errorf("othello: discs off the %dx%d board (%#x)", g.size, g.size, (black|white)&^g.mask)
	}
	if player != Black && player != White {
		return nil, fmt.Errorf("othello: player %d to move, want 0 (black) or 1 (white)", player)
	}
	if moveNumber < 0 {
		return nil, fmt.Errorf("othello: negative move number %d", moveNumber)
	}
	s := &State{g: g, player: player, moves: moveNumber, mover: black, opp: white}
	if player == White {
		s.mover, s.opp = white, black
	}
	return s, nil
}

// State is an Othello position. The zero value is not usable; get one from
// Game.NewInitialState or Game.NewState.
type State struct {
	g          *Game
	mover, opp uint64 // discs of the player to move and of the other
	player     int    // the player to move
	moves      int    // actions played so far
}

// Game returns the game of s.
func (s *State) Game() games.Game { return s.g }

// CurrentPlayer returns Black (0) or White (1).
func (s *State) CurrentPlayer() int { return s.player }

// Boards returns the discs of the player to move and of the opponent (8-wide
// layout).
func (s *State) Boards() (mover, opponent uint64) { return s.mover, s.opp }

// Discs returns the black and the white discs (8-wide layout).
func (s *State) Discs() (black, white uint64) {
	if s.player == Black {
		return s.mover, s.opp
	}
	return s.opp, s.mover
}

// Moves returns the squares (8-wide layout) where the player to move may
// play.
func (s *State) Moves() uint64 { return Moves(s.mover, s.opp) & s.g.mask }

// LegalActions appends the legal actions in increasing order to buf[:0]: the
// squares of the mover's moves, else PASS when only the opponent can move,
// else nothing (the game is over).
func (s *State) LegalActions(buf []int) []int {
	buf = buf[:0]
	mv := Moves(s.mover, s.opp) & s.g.mask
	if mv == 0 {
		if Moves(s.opp, s.mover)&s.g.mask != 0 {
			buf = append(buf, s.g.pass)
		}
		return buf
	}
	for ; mv != 0; mv &= mv - 1 {
		buf = append(buf, int(s.g.actOf[bits.TrailingZeros64(mv)]))
	}
	return buf
}

// IsLegal reports whether action a may be played now.
func (s *State) IsLegal(a int) bool {
	if a == s.g.pass {
		return Moves(s.mover, s.opp)&s.g.mask == 0 && Moves(s.opp, s.mover)&s.g.mask != 0
	}
	if a < 0 || a > s.g.pass {
		return false
	}
	return Moves(s.mover, s.opp)&s.g.mask&(1<<uint(s.g.sqOf[a])) != 0
}

// ApplyAction plays legal action a (unchecked: use games.Play at a
// boundary).
func (s *State) ApplyAction(a int) {
	if a != s.g.pass {
		sq := int(s.g.sqOf[a])
		f := Flips(sq, s.mover, s.opp)
		s.mover |= f | 1<<uint(sq)
		s.opp &^= f
	}
	s.mover, s.opp = s.opp, s.mover
	s.player ^= 1
	s.moves++
}

// IsTerminal reports whether neither side can move.
func (s *State) IsTerminal() bool {
	return (Moves(s.mover, s.opp)|Moves(s.opp, s.mover))&s.g.mask == 0
}

// Returns gives +1 to the player with more discs at the end, -1 to the
// other, zeros for a draw or a game not over.
func (s *State) Returns() [2]float64 {
	if !s.IsTerminal() {
		return [2]float64{}
	}
	d := bits.OnesCount64(s.mover) - bits.OnesCount64(s.opp)
	var r float64
	switch {
	case d > 0:
		r = 1
	case d < 0:
		r = -1
	}
	if s.player == White {
		r = -r
	}
	return [2]float64{r, -r}
}

// DiscDifference returns black's discs minus white's.
func (s *State) DiscDifference() int {
	b, w := s.Discs()
	return bits.OnesCount64(b) - bits.OnesCount64(w)
}

// FinalOwnership writes the owner of every square, row-major: +1 a black
// disc, -1 a white disc, 0 an empty square. Its sum is DiscDifference. It
// makes State a games.Outcomer.
func (s *State) FinalOwnership(dst []float32) {
	n := s.g.size * s.g.size
	dst = dst[:n]
	black, white := s.Discs()
	for a := 0; a < n; a++ {
		b := uint64(1) << uint(s.g.sqOf[a])
		dst[a] = bitValue(black&b) - bitValue(white&b)
	}
}

// FinalScore returns DiscDifference, black's discs minus white's: the
// margin Returns decides by.
func (s *State) FinalScore() float64 { return float64(s.DiscDifference()) }

// Observation writes the planes [mover's discs, opponent's discs, mover's
// legal moves], each size x size, row-major, into dst.
func (s *State) Observation(dst []float32) {
	n := s.g.size * s.g.size
	dst = dst[:3*n]
	mover, opp := s.mover, s.opp
	legal := Moves(mover, opp) & s.g.mask
	// Each value straight from its bit, with no branch: to a branch
	// predictor the bits of self-play's leaves are random, and a branch
	// for each value took 3.3x as long (BenchmarkObservation).
	for a, sq := range s.g.sqOf[:n] {
		dst[a] = float32(mover >> uint(sq) & 1)
		dst[n+a] = float32(opp >> uint(sq) & 1)
		dst[2*n+a] = float32(legal >> uint(sq) & 1)
	}
}

func bitValue(b uint64) float32 {
	if b != 0 {
		return 1
	}
	return 0
}

// Clone returns an independent copy of s.
func (s *State) Clone() games.State {
	c := *s
	return &c
}

// Hash returns the Zobrist hash of the discs and the side to move.
func (s *State) Hash() uint64 {
	black, white := s.Discs()
	var h uint64
	if s.player == White {
		h = s.g.zSide
	}
	for ; black != 0; black &= black - 1 {
		h ^= s.g.zobrist[0][bits.TrailingZeros64(black)]
	}
	for ; white != 0; white &= white - 1 {
		h ^= s.g.zobrist[1][bits.TrailingZeros64(white)]
	}
	return h
}

// MoveNumber returns the number of actions played, passes included.
func (s *State) MoveNumber() int { return s.moves }

// String draws the board: X black, O white, '.' empty, '*' a legal move of
// the mover, then the side to move (or the result).
func (s *State) String() string {
	var b strings.Builder
	black, white := s.Discs()
	legal := Moves(s.mover, s.opp) & s.g.mask
	b.WriteString(" ")
	for c := 0; c < s.g.size; c++ {
		b.WriteByte(' ')
		b.WriteByte(byte('a' + c))
	}
	b.WriteByte('\n')
	for r := 0; r < s.g.size; r++ {
		b.WriteString(strconv.Itoa(r + 1))
		for c := 0; c < s.g.size; c++ {
			bit := uint64(1) << uint(r*8+c)
			ch := byte('.')
			switch {
			case black&bit != 0:
				ch = 'X'
			case white&bit != 0:
				ch = 'O'
			case legal&bit != 0:
				ch = '*'
			}
			b.WriteByte(' ')
			b.WriteByte(ch)
		}
		b.WriteByte('\n')
	}
	nb, nw := bits.OnesCount64(black), bits.OnesCount64(white)
	switch {
	case !s.IsTerminal():
		fmt.Fprintf(&b, "%s to move (X %d, O %d)\n", [2]string{"X", "O"}[s.player], nb, nw)
	default:
		fmt.Fprintf(&b, "game over (X %d, O %d)\n", nb, nw)
	}
	return b.String()
}

// Empties returns the number of empty squares on the board.
func (s *State) Empties() int { return bits.OnesCount64(s.g.mask &^ (s.mover | s.opp)) }
