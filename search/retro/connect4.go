package retro

import (
	"context"
	"fmt"
	"math/bits"
	"os"

	"tabula/internal/atomicfile"
)

// Connect Four on small boards: every arrangement of stones is numbered,
// column by column, and the generic Build solves them all backward.
//
// A column of height h (stones from the bottom up) with owners b (bit r set
// when the second player holds row r) has the code 2^h - 1 + b: 0 for an
// empty column, 1 and 2 for one stone, 3 to 6 for two, and so on up to
// 2^(H+1) - 2 for a full one. An index is, in mixed radix R = 2^(H+1) - 1,
// the sum of code(column j) * R^j. The player to move follows from the
// number of stones (the first player moves when it is even). An index is
// illegal when the stone counts cannot alternate (the first player has
// neither as many stones as the second nor one more), when the player to
// move has four in a row (the game would have ended before), or when both
// have. A position where the player who just moved has four in a row is
// lost in 0 plies; a full board without four is a draw. Some legal indices
// cannot arise in play (a four that the last stone did not complete); they
// are solved like the rest and never reached from the empty board.
//
// Distances count plies to the end of the game: a win in d plies is the
// mover's ((d+1)/2)-th stone from now connecting four.

// C4IndexVersion numbers the Connect Four index layout stored in table files.
const C4IndexVersion = 1

// MaxC4Indices bounds the indices of a Connect Four table (one byte each
// in memory): 5x4 has 28,629,151, 4x5 15,752,961; 5x5 (992,436,543) and
// larger do not fit.
const MaxC4Indices = 1 << 27

// C4Table is the database of every position of Connect Four on one board.
type C4Table struct {
	// Width and Height are the board's columns and rows.
	Width, Height int
	// Stats sums up the values.
	Stats Stats
	vals  []Value
	radix int
	pow   []int // R^j
}

// C4Indices returns the number of indices of a width x height table, or an
// error naming what is wrong with the board.
func C4Indices(width, height int) (int, error) {
	if width < 1 || height < 1 || width > 8 || height > 7 {
		return 0, fmt.Errorf("retro: connect4 %dx%d: want 1..8 columns and 1..7 rows", width, height)
	}
	n, r := 1, 1<<(height+1)-1
	for range width {
		n *= r
		if n > MaxC4Indices {
			return 0, fmt.Errorf("retro: connect4 %dx%d: more than %d indices (one byte each); the largest boards that fit are 5x4 and 4x5", width, height, MaxC4Indices)
		}
	}
	return n, nil
}

func newC4Table(width, height int) (*C4Table, error) {
	n, err := C4Indices(width, height)
	if err != nil {
		return nil, err
	}
	t := &C4Table{Width: width, Height: height, radix: 1<<(height+1) - 1, pow: make([]int, width+1)}
	t.pow[0] = 1
	for j := 1; j <= width; j++ {
		t.pow[j] = t.pow[j-1] * t.radix
	}
	t.vals = make([]Value, n)
	return t, nil
}

// BuildConnect4 solves every position of Connect Four on a width x height
// board with up to workers goroutines (0: GOMAXPROCS).
func BuildConnect4(ctx context.Context, width, height, workers int) (*C4Table, error) {
	t, err := newC4Table(width, height)
	if err != nil {
		return nil, err
	}
	vals, st, err := Build(ctx, &c4Game{t: t}, workers)
	if err != nil {
		return nil, fmt.Errorf("retro: connect4 %dx%d: %w", width, height, err)
	}
	t.vals, t.Stats = vals, st
	return t, nil
}

// Name is the board as "5x4" (columns x rows).
func (t *C4Table) Name() string { return fmt.Sprintf("%dx%d", t.Width, t.Height) }

// Size is the number of indices of the table (legal or not).
func (t *C4Table) Size() int { return len(t.vals) }

// At returns the value of index i.
func (t *C4Table) At(i int) Value { return t.vals[i] }

// Index returns the index of the position reached by dropping stones in
// the given columns (0-based, the first player first), or an error naming
// the first move that leaves the board or follows the end of the game.
func (t *C4Table) Index(moves []int) (int, error) {
	var heights [8]int
	var p [2]uint64
	i := 0
	for k, c := range moves {
		if c < 0 || c >= t.Width {
			return 0, fmt.Errorf("retro: connect4 %s: move %d: column %d, want 0..%d", t.Name(), k+1, c, t.Width-1)
		}
		h := heights[c]
		if h == t.Height {
			return 0, fmt.Errorf("retro: connect4 %s: move %d: column %d is full", t.Name(), k+1, c)
		}
		if t.hasFour(p[0]) || t.hasFour(p[1]) {
			return 0, fmt.Errorf("retro: connect4 %s: move %d: the game is over", t.Name(), k+1)
		}
		who := k & 1
		// The column's code goes from 2^h - 1 + b to 2^(h+1) - 1 + b + who<<h.
		i += (1<<h + who<<h) * t.pow[c]
		heights[c] = h + 1
		p[who] |= 1 << (c*(t.Height+1) + h)
	}
	return i, nil
}

// Lookup returns the value, for the player to move, of the position with
// the first player's stones first and the second's second, bitboards with
// bit c*(Height+1) + r for column c, row r from the bottom. Stones that
// float or leave the board give Illegal.
func (t *C4Table) Lookup(first, second uint64) Value {
	i := 0
	col := uint64(1)<<(t.Height+1) - 1
	for c := range t.Width {
		shift := c * (t.Height + 1)
		occ := (first | second) >> shift & col
		h := bits.OnesCount64(occ)
		if occ != 1<<h-1 || h > t.Height || first&second != 0 {
			return Illegal
		}
		i += (1<<h - 1 + int(second>>shift&col)) * t.pow[c]
	}
	if (first|second)>>(t.Width*(t.Height+1)) != 0 {
		return Illegal
	}
	return t.vals[i]
}

// Probe returns the value, for the player to move, of the position reached
// by moves (see Index).
func (t *C4Table) Probe(moves []int) (Value, error) {
	i, err := t.Index(moves)
	if err != nil {
		return Illegal, err
	}
	return t.vals[i], nil
}

// hasFour reports whether the stones of one player (bit c*(Height+1) + r
// for column c, row r) hold four in a row. The spare bit above each column
// keeps the shifts from wrapping from one column into the next.
func (t *C4Table) hasFour(s uint64) bool {
	h := uint(t.Height)
	for _, d := range [4]uint{1, h + 1, h, h + 2} {
		m := s & (s >> d)
		if m&(m>>(2*d)) != 0 {
			return true
		}
	}
	return false
}

// decode returns the stones of both players, the column heights and the
// number of stones of index i.
func (t *C4Table) decode(i int, heights *[8]int) (p [2]uint64, n int) {
	for c := range t.Width {
		code := i % t.radix
		i /= t.radix
		h := bits.Len(uint(code+1)) - 1
		b := uint64(code + 1 - 1<<h)
		heights[c] = h
		n += h
		shift := c * (t.Height + 1)
		col := uint64(1)<<h - 1
		p[1] |= b << shift
		p[0] |= (col &^ b) << shift
	}
	return p, n
}

// c4Game is the retro.Game of one board.
type c4Game struct{ t *C4Table }

func (g *c4Game) Size() int          { return len(g.t.vals) }
func (g *c4Game) ExternalPlies() int { return 0 }

func (g *c4Game) Expand(i int, child func(int, Value) bool) (Value, bool) {
	t := g.t
	var heights [8]int
	p, n := t.decode(i, &heights)
	mover := n & 1
	if bits.OnesCount64(p[0])-bits.OnesCount64(p[1]) != mover {
		return Illegal, true
	}
	if t.hasFour(p[mover]) {
		return Illegal, true
	}
	if t.hasFour(p[1-mover]) {
		return Mated, true
	}
	if n == t.Width*t.Height {
		return Draw, true
	}
	for c := range t.Width {
		h := heights[c]
		if h == t.Height {
			continue
		}
		if !child(i+(1<<h+mover<<h)*t.pow[c], Draw) {
			break
		}
	}
	return Draw, false
}

// Marshal encodes t in the table file format (file.go), game "connect4",
// name the board ("5x4").
func (t *C4Table) Marshal() ([]byte, error) {
	return marshalFrame("connect4", t.Name(), C4IndexVersion, t.vals)
}

// Save writes t to path atomically.
func (t *C4Table) Save(path string) error {
	data, err := t.Marshal()
	if err != nil {
		return fmt.Errorf("retro: save %s: %w", path, err)
	}
	return atomicfile.Write(path, data)
}

// UnmarshalConnect4 decodes a Connect Four table from the file format.
func UnmarshalConnect4(data []byte) (*C4Table, error) {
	f, err := readFrame(data)
	if err != nil {
		return nil, err
	}
	if f.game != "connect4" {
		return nil, fmt.Errorf("retro: table file for game %q, want connect4", f.game)
	}
	if f.version != C4IndexVersion {
		return nil, fmt.Errorf("retro: connect4 table file of index version %d, this build reads %d", f.version, C4IndexVersion)
	}
	var w, h int
	if _, err := fmt.Sscanf(f.name, "%dx%d", &w, &h); err != nil || fmt.Sprintf("%dx%d", w, h) != f.name {
		return nil, badFile("board %q, want columns x rows such as 5x4", f.name)
	}
	t, err := newC4Table(w, h)
	if err != nil {
		return nil, badFile("%v", err)
	}
	if f.count != uint64(len(t.vals)) {
		return nil, badFile("connect4 %s has %d indices, the file says %d", f.name, len(t.vals), f.count)
	}
	if t.vals, err = f.values(); err != nil {
		return nil, err
	}
	t.Stats = Count(t.vals)
	return t, nil
}

// LoadConnect4 reads a Connect Four table file.
func LoadConnect4(path string) (*C4Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("retro: %w", err)
	}
	t, err := UnmarshalConnect4(data)
	if err != nil {
		return nil, fmt.Errorf("retro: load %s: %w", path, err)
	}
	return t, nil
}
