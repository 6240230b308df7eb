// Package gogame implements the game of Go on square boards from 2x2 to
// 19x19 under Tromp-Taylor style rules: area scoring with komi, suicide
// illegal, positional superko, passing allowed, the game over after two
// consecutive passes or at a length cap (then scored as it stands).
//
// It registers itself as "go" with parameters size, komi and max_moves, e.g.
// games.New("go:size=9,komi=7.5"). Black (player 0) moves first. Actions are
// the points, row*size+col with row 0 the top row as displayed (GTP row
// size), plus Pass = size*size.
//
// Groups are kept incrementally as circular stone lists with a liberty
// bitset, a liberty count and a Zobrist sub-hash per group; superko is
// checked by looking the would-be board hash up in a table of the hashes of
// every earlier board of the game.
package gogame

import (
	"fmt"
	"math"
	"strconv"

	"tabula/games"
)

// Parameter limits and defaults.
const (
	MinSize     = 2
	MaxSize     = 19
	DefaultSize = 9
	DefaultKomi = 7.5
	MaxKomi     = 400
	// HistoryPlanes is the number of positions (the current one and the
	// ones before it) shown in the observation.
	HistoryPlanes = 4
	// NumPlanes is the number of observation planes: mover's and
	// opponent's stones at each of the last HistoryPlanes positions, then
	// one plane of ones when the mover is black.
	NumPlanes = 2*HistoryPlanes + 1
)

// Point colours, as returned by State.At.
const (
	Empty = 0
	Black = 1
	White = 2
)

const gtpColumns = "ABCDEFGHJKLMNOPQRST"

func init() {
	games.Register("go", "Go with area (Tromp-Taylor) scoring, positional superko, suicide illegal",
		[]games.Param{
			{Name: "size", Default: strconv.Itoa(DefaultSize), Doc: "board size, 2..19"},
			{Name: "komi", Default: strconv.FormatFloat(DefaultKomi, 'g', -1, 64), Doc: "points added to white's score, finite, -400..400"},
			{Name: "max_moves", Default: "0", Doc: "length cap in moves (passes included), 1..20*size*size; 0 means 3*size*size"},
		},
		func(p games.Params) (games.Game, error) {
			size, err := p.Int("size")
			if err != nil {
				return nil, err
			}
			komi, err := p.Float("komi")
			if err != nil {
				return nil, err
			}
			maxMoves, err := p.Int("max_moves")
			if err != nil {
				return nil, err
			}
			return New(size, komi, maxMoves)
		})
}

// Game is an immutable Go game description: board size, komi and length
// cap, with the tables (neighbours, Zobrist keys, symmetries) its states
// share. It implements games.Game, games.Notation, games.Symmetric and
// games.Heuristic.
type Game struct {
	size, n  int
	komi     float64
	maxMoves int
	words    int // uint64 words in one liberty bitset
	tblBits  uint
	tblSize  int
	// adj holds the on-board orthogonal neighbours of point p in
	// adj[4p:4p+deg[p]]; diag likewise the diagonal ones.
	adj   []int16
	deg   []uint8
	diag  []int16
	ddeg  []uint8
	keys  []uint64 // keys[(colour-1)*n+p]
	sym   [8][]int16
	empty uint64 // hash of the empty board
}

var (
	_ games.Game      = (*Game)(nil)
	_ games.Notation  = (*Game)(nil)
	_ games.Symmetric = (*Game)(nil)
	_ games.Heuristic = (*Game)(nil)
)

// New builds a game on a size x size board with the given komi and length
// cap. maxMoves 0 selects the default 3*size*size: uniformly random
// playouts that never fill their own eyes exceed 2*size*size moves in about
// 8% of games on 5x5 (ko fights and long capture races) but 3*size*size in
// about 0.1%, and none on 9x9 and up in 3000 games.
func New(size int, komi float64, maxMoves int) (*Game, error) {
	if size < MinSize || size > MaxSize {
		return nil, fmt.Errorf("game go: parameter size=%d out of range %d..%d", size, MinSize, MaxSize)
	}
	if math.IsNaN(komi) || math.IsInf(komi, 0) || komi < -MaxKomi || komi > MaxKomi {
		return nil, fmt.Errorf("game go: parameter komi=%v out of range -%d..%d", komi, MaxKomi, MaxKomi)
	}
	n := size * size
	if maxMoves == 0 {
		maxMoves = 3 * n
	}
	if maxMoves < 1 || maxMoves > 20*n {
		return nil, fmt.Errorf("game go: parameter max_moves=%d out of range 1..%d (or 0 for the default)", maxMoves, 20*n)
	}
	g := &Game{size: size, n: n, komi: komi, maxMoves: maxMoves, words: (n + 63) / 64}
	// The superko table holds at most maxMoves+1 hashes; keep it at most
	// three quarters full.
	g.tblBits = 4
	for 3<<g.tblBits < 4*(maxMoves+1) {
		g.tblBits++
	}
	g.tblSize = 1 << g.tblBits
	g.adj = make([]int16, 4*n)
	g.deg = make([]uint8, n)
	g.diag = make([]int16, 4*n)
	g.ddeg = make([]uint8, n)
	for r := 0; r < size; r++ {
		for c := 0; c < size; c++ {
			p := r*size + c
			for _, d := range [4][2]int{{-1, 0}, {0, -1}, {0, 1}, {1, 0}} {
				if rr, cc := r+d[0], c+d[1]; rr >= 0 && rr < size && cc >= 0 && cc < size {
					g.adj[4*p+int(g.deg[p])] = int16(rr*size + cc)
					g.deg[p]++
				}
			}
			for _, d := range [4][2]int{{-1, -1}, {-1, 1}, {1, -1}, {1, 1}} {
				if rr, cc := r+d[0], c+d[1]; rr >= 0 && rr < size && cc >= 0 && cc < size {
					g.diag[4*p+int(g.ddeg[p])] = int16(rr*size + cc)
					g.ddeg[p]++
				}
			}
		}
	}
	// Zobrist keys from a fixed generator, so that equal games hash alike.
	seed := uint64(0x9e3779b97f4a7c15) ^ uint64(size)<<32
	next := func() uint64 {
		seed += 0x9e3779b97f4a7c15
		return mix64(seed)
	}
	g.keys = make([]uint64, 2*n)
	for i := range g.keys {
		g.keys[i] = next()
	}
	g.empty = next()
	for k := 0; k < 8; k++ {
		g.sym[k] = make([]int16, n)
		for p := 0; p < n; p++ {
			r, c := p/size, p%size
			if k&1 != 0 {
				r = size - 1 - r
			}
			if k&2 != 0 {
				c = size - 1 - c
			}
			if k&4 != 0 {
				r, c = c, r
			}
			g.sym[k][p] = int16(r*size + c)
		}
	}
	return g, nil
}

// mix64 is the SplitMix64 finaliser: a bijective scrambling of 64 bits.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Name returns the canonical spec, e.g. "go:size=9,komi=7.5,max_moves=243".
func (g *Game) Name() string {
	return fmt.Sprintf("go:size=%d,komi=%s,max_moves=%d", g.size, strconv.FormatFloat(g.komi, 'g', -1, 64), g.maxMoves)
}

// Size returns the length of a side of the board.
func (g *Game) Size() int { return g.size }

// Komi returns the points added to white's area score.
func (g *Game) Komi() float64 { return g.komi }

// Pass returns the pass action, size*size.
func (g *Game) Pass() int { return g.n }

// NumActions returns size*size+1: every point and pass.
func (g *Game) NumActions() int { return g.n + 1 }

// ObservationShape returns NumPlanes x size x size.
func (g *Game) ObservationShape() (planes, height, width int) { return NumPlanes, g.size, g.size }

// MaxGameLength returns the length cap.
func (g *Game) MaxGameLength() int { return g.maxMoves }

// NewInitialState returns the empty board with black to move.
func (g *Game) NewInitialState() games.State { return g.newState() }

// FormatAction writes a in GTP notation: "D4" (columns A..T without I, rows
// 1..size from the bottom) or "pass". Out-of-range actions are written as
// "?<number>".
func (g *Game) FormatAction(a int) string {
	if a == g.n {
		return "pass"
	}
	if a < 0 || a > g.n {
		return "?" + strconv.Itoa(a)
	}
	r, c := a/g.size, a%g.size
	return string(gtpColumns[c]) + strconv.Itoa(g.size-r)
}

// ParseAction reads one move in GTP notation, in either case: "D4", "pass".
// It checks syntax and range, not legality.
func (g *Game) ParseAction(text string) (int, error) {
	if len(text) == 4 && (text[0]|0x20) == 'p' && (text[1]|0x20) == 'a' && (text[2]|0x20) == 's' && (text[3]|0x20) == 's' {
		return g.n, nil
	}
	if len(text) < 2 || len(text) > 3 {
		return 0, fmt.Errorf("go move %q: want a point such as D4 or pass", text)
	}
	col := -1
	ch := text[0]
	if ch >= 'a' && ch <= 'z' {
		ch -= 'a' - 'A'
	}
	for i := 0; i < g.size; i++ {
		if gtpColumns[i] == ch {
			col = i
			break
		}
	}
	if col < 0 {
		return 0, fmt.Errorf("go move %q: column %q is not one of %s", text, text[:1], gtpColumns[:g.size])
	}
	row := 0
	for i := 1; i < len(text); i++ {
		d := text[i]
		if d < '0' || d > '9' || (i == 1 && d == '0') {
			return 0, fmt.Errorf("go move %q: row %q is not a number 1..%d", text, text[1:], g.size)
		}
		row = row*10 + int(d-'0')
	}
	if row < 1 || row > g.size {
		return 0, fmt.Errorf("go move %q: row %d out of range 1..%d", text, row, g.size)
	}
	return (g.size-row)*g.size + col, nil
}

// FormatActions writes a move sequence separated by spaces, e.g.
// "D4 C3 pass".
func (g *Game) FormatActions(actions []int) string {
	b := make([]byte, 0, 4*len(actions))
	for i, a := range actions {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, g.FormatAction(a)...)
	}
	return string(b)
}

// ParseActions reads a move sequence separated by spaces, tabs, newlines or
// commas. It checks syntax, not legality.
func (g *Game) ParseActions(text string) ([]int, error) {
	actions := []int{}
	start := -1
	for i := 0; i <= len(text); i++ {
		sep := i == len(text) || text[i] == ' ' || text[i] == ',' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'
		if !sep {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			a, err := g.ParseAction(text[start:i])
			if err != nil {
				return nil, fmt.Errorf("move %d: %w", len(actions)+1, err)
			}
			actions = append(actions, a)
			start = -1
		}
	}
	return actions, nil
}

// NumSymmetries returns 8: the dihedral group of the square.
func (g *Game) NumSymmetries() int { return 8 }

// TransformAction maps a point through symmetry k (bit 0 flips rows, bit 1
// flips columns, bit 2 then transposes); pass maps to pass. Actions or
// symmetries out of range are returned unchanged.
func (g *Game) TransformAction(k, a int) int {
	if a < 0 || a >= g.n || k < 0 || k >= 8 {
		return a
	}
	return int(g.sym[k][a])
}

// Inverse returns the symmetry that undoes k.
func (g *Game) Inverse(k int) int {
	if k&4 == 0 {
		return k
	}
	// (transpose after flips a, b) is undone by (transpose after flips b, a).
	return 4 | (k&1)<<1 | (k&2)>>1
}

// TransformObservation writes observation src mapped through symmetry k
// into dst: every plane is permuted like the points.
func (g *Game) TransformObservation(k int, dst, src []float32) {
	if k < 0 || k >= 8 {
		copy(dst, src)
		return
	}
	perm := g.sym[k]
	n := g.n
	for pl := 0; pl+n <= len(src) && pl+n <= len(dst); pl += n {
		s, d := src[pl:pl+n], dst[pl:pl+n]
		for p, q := range perm {
			d[q] = s[p]
		}
	}
}

// TransformState returns s mapped through symmetry k, history included (it
// replays the game's moves mapped through k from the mapped starting
// position), so that superko and the observation's history planes agree.
// It returns nil when s is not a state of this game.
func (g *Game) TransformState(k int, s games.State) games.State {
	st, ok := s.(*State)
	if !ok || st.g.size != g.size || k < 0 || k >= 8 {
		return nil
	}
	var t *State
	if st.setup != nil {
		b := make([]int8, g.n)
		for p, c := range st.setup.board {
			b[g.sym[k][p]] = c
		}
		var err error
		t, err = st.g.fromBoard(b, st.setup.toMove)
		if err != nil {
			return nil // unreachable: a symmetric image of a valid board is valid
		}
	} else {
		t = st.g.newState()
	}
	for _, a := range st.moves {
		t.ApplyAction(g.TransformAction(k, int(a)))
	}
	return t
}

// Evaluate scores a non-terminal state for the player to move: the area
// estimate of Score (stones plus single-colour empty regions, komi
// included), squashed into (-1, 1) by x/(1+|x|) with x the lead in units of
// size/2 points.
func (g *Game) Evaluate(s games.State) float64 {
	st, ok := s.(*State)
	if !ok {
		return 0
	}
	x := st.Score() / (0.5 * float64(g.size))
	if st.toMove == 1 {
		x = -x
	}
	return x / (1 + math.Abs(x))
}
