// Package c4solver is a perfect Connect Four solver: negamax with alpha-beta
// pruning over bitboards, null-window searches that narrow the score interval
// (Pascal Pons' approach), a transposition table storing lower and upper
// bounds under a key shared by a position and its mirror image, in buckets of
// two entries (one kept for the entry nearest the root), move ordering by the
// number of winning cells a move creates (centre columns first on ties),
// pruning of the moves that let the opponent win at once, and early detection
// of immediate wins.
//
// Scores follow Pons' convention, the one of ../shared/refdata/README.md: a
// win is 22 - s, where s is the number of stones the winner has played when
// it connects four, a loss is the negative of the opponent's win and a draw
// is 0, always from the point of view of the player to move.
package c4solver

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"tabula/games"
	"tabula/games/connect4"
	"tabula/internal/prefetch"
)

const (
	width  = connect4.Width
	height = connect4.Height
	cells  = connect4.Cells

	// minScore and maxScore bound the scores negamax can return when the
	// player to move cannot win at once and the opponent cannot win on its
	// next move.
	minScore = -cells/2 + 3
	maxScore = (cells+1)/2 - 3

	bottom = connect4.BottomMask
	board  = connect4.BoardMask
)

// Invalid is the score ScoreMoves gives a full column (or any column once the
// game is over).
const Invalid = -1000

// tableMoves is the number of stones below which positions are looked up in
// and stored to the transposition table. Closer to the end of the game the
// subtrees are so small that searching them again costs less than the cache
// miss of a table probe. On the first 200 positions of Test_L2_R2, measured
// as CPU time while other work loaded the machine, skipping the table from
// 32 stones on searched 83% more nodes but took about 35% less time than
// using it everywhere (36: 15% less, 28: 25% less).
const tableMoves = 32

// DefaultTableLog2 is the log2 of the number of transposition-table entries
// used by the tests and benchmarks: 2^23 entries of 8 bytes, 64 MiB (Pons
// used 2^24 entries of 5 bytes; the difference in nodes searched is below
// 0.1% on the benchmark sets).
const DefaultTableLog2 = 23

// Bounds on the table size accepted by New.
const (
	MinTableLog2 = 10
	MaxTableLog2 = 30
)

// columnOrder lists the columns centre first, the order in which moves of
// equal merit are tried.
var columnOrder = [width]int{3, 2, 4, 1, 5, 0, 6}

// columnMasks[i] holds the cells of column columnOrder[i].
var columnMasks = func() (m [width]uint64) {
	for i, c := range columnOrder {
		m[i] = connect4.ColumnMask(c)
	}
	return m
}()

// Solver solves Connect Four positions exactly. Its transposition table is
// kept from one call to the next (entries are bounds that hold whatever
// position is being solved), so solving many positions in a row shares work.
// A Solver is not safe for concurrent use; use one per goroutine.
type Solver struct {
	// table holds key<<8 | value, key = current + mask (unique per
	// position, below 2^49), value an encoded bound (0 = empty).
	table []uint64
	shift uint // 64 - log2(len(table))
	nodes uint64
}

// New returns a solver whose transposition table has 2^tableLog2 entries of
// 8 bytes. tableLog2 must lie in [MinTableLog2, MaxTableLog2].
func New(tableLog2 int) (*Solver, error) {
	if tableLog2 < MinTableLog2 || tableLog2 > MaxTableLog2 {
		return nil, fmt.Errorf("c4solver: table size 2^%d entries outside [2^%d, 2^%d]", tableLog2, MinTableLog2, MaxTableLog2)
	}
	return &Solver{table: newTable(1 << tableLog2), shift: uint(64 - tableLog2)}, nil
}

// Nodes returns the number of positions searched since New or Reset.
func (s *Solver) Nodes() uint64 { return s.nodes }

// Reset empties the transposition table and zeroes the node count.
func (s *Solver) Reset() {
	clear(s.table)
	s.nodes = 0
}

// index maps a key to the first slot of its bucket by Fibonacci hashing.
// A bucket is two adjacent slots (one cache line holds both).
func (s *Solver) index(key uint64) uint64 {
	return (key * 0x9E3779B97F4A7C15) >> s.shift &^ 1
}

// Table entries: moves<<57 | key<<8 | value. The key (cur + mask) is below
// 2^49; moves, the stones on the board, tells how big the subtree behind the
// entry is likely to be.
const (
	entryKeyMask = 1<<49 - 1
	entryMoves   = 57
)

// get returns the stored value for key, or 0.
func (s *Solver) get(key uint64) int {
	i := s.index(key)
	b := s.table[i : i+2 : i+2]
	if e := b[0]; (e>>8)&entryKeyMask == key {
		return int(e & 0xff)
	}
	if e := b[1]; (e>>8)&entryKeyMask == key {
		return int(e & 0xff)
	}
	return 0
}

// put stores value (1..255) for key, a position with moves stones. The first
// slot of a bucket keeps the entry nearest the root (fewest stones, the most
// work to redo), the second the most recent other entry: a two-tier table
// in the manner of Breuker's replacement schemes and Tromp's Fhourstones.
func (s *Solver) put(key uint64, moves, value int) {
	i := s.index(key)
	b := s.table[i : i+2 : i+2]
	e := uint64(moves)<<entryMoves | key<<8 | uint64(value)
	first := b[0]
	switch {
	case (first>>8)&entryKeyMask == key:
		b[0] = e
	case first == 0 || int(first>>entryMoves) >= moves:
		if (b[1]>>8)&entryKeyMask == key || first != 0 {
			b[1] = first
		}
		b[0] = e
	default:
		b[1] = e
	}
}

// Column masks of a key (7 bits a column) for mirroring.
const (
	keyCol0 = 0x7f
	keyCol1 = keyCol0 << 7
	keyCol2 = keyCol0 << 14
	keyCol3 = keyCol0 << 21
	keyCol4 = keyCol0 << 28
	keyCol5 = keyCol0 << 35
	keyCol6 = keyCol0 << 42
)

// symmetricKey returns the smaller of key (cur + mask, which identifies a
// position) and the key of its mirror image, columns 1-7 reversed. A
// position and its mirror have the same score, so they share one table
// entry, as in Pons' solver.
func symmetricKey(key uint64) uint64 {
	m := key&keyCol3 |
		(key&keyCol0)<<42 | (key&keyCol6)>>42 |
		(key&keyCol1)<<28 | (key&keyCol5)>>28 |
		(key&keyCol2)<<14 | (key&keyCol4)>>14
	return min(key, m)
}

// winningCells returns the empty cells that would complete a four for the
// stones in pos (the same as connect4.WinningCells, unrolled for speed).
func winningCells(pos, mask uint64) uint64 {
	// Vertical.
	r := (pos << 1) & (pos << 2) & (pos << 3)

	// Horizontal.
	p := (pos << 7) & (pos << 14)
	r |= p & (pos << 21)
	r |= p & (pos >> 7)
	p = (pos >> 7) & (pos >> 14)
	r |= p & (pos << 7)
	r |= p & (pos >> 21)

	// Diagonal 1.
	p = (pos << 6) & (pos << 12)
	r |= p & (pos << 18)
	r |= p & (pos >> 6)
	p = (pos >> 6) & (pos >> 12)
	r |= p & (pos << 6)
	r |= p & (pos >> 18)

	// Diagonal 2.
	p = (pos << 8) & (pos << 16)
	r |= p & (pos << 24)
	r |= p & (pos >> 8)
	p = (pos >> 8) & (pos >> 16)
	r |= p & (pos << 8)
	r |= p & (pos >> 24)

	return r & (board ^ mask)
}

// canWinNext reports whether the player to move (stones cur) can connect
// four at once.
func canWinNext(cur, mask uint64) bool {
	return winningCells(cur, mask)&((mask+bottom)&board) != 0
}

// Solve returns the exact score of s for the player to move. On a finished
// game it returns the result in the same convention: the negative of the
// winner's score when the previous move connected four, 0 for a full board.
func (s *Solver) Solve(st *connect4.State) int {
	cur, mask := st.Bitboards()
	moves := st.MoveNumber()
	switch {
	case st.Won():
		// The winner's score one move earlier, when it could win at once.
		return -(cells + 1 - (moves - 1)) / 2
	case moves == cells:
		return 0
	}
	return s.solve(cur, mask, moves)
}

// ScoreMoves returns, for each column, the exact score for the player to move
// of playing there: Invalid for a full column (and for every column once the
// game is over). The best score equals Solve(st).
func (s *Solver) ScoreMoves(st *connect4.State) [width]int {
	return eachMove(st, (cells+1-st.MoveNumber())/2, func(cur, mask uint64, moves int) int {
		return s.solve(cur, mask, moves)
	})
}

// eachMove returns, for each column, Invalid for a full column (and for every
// column once the game is over), win for a move that connects four, 0 for one
// that fills the board, and otherwise the negative of child's value of the
// position after the move (the opponent's stones cur, the mask, the move
// number).
func eachMove(st *connect4.State, win int, child func(cur, mask uint64, moves int) int) [width]int {
	var out [width]int
	for c := range out {
		out[c] = Invalid
	}
	if st.IsTerminal() {
		return out
	}
	cur, mask := st.Bitboards()
	moves := st.MoveNumber()
	wins := winningCells(cur, mask)
	for c := 0; c < width; c++ {
		move := (mask + connect4.Bit(c, 0)) & connect4.ColumnMask(c)
		switch {
		case move == 0:
			// Full column.
		case move&wins != 0:
			out[c] = win
		case moves+1 == cells:
			out[c] = 0
		default:
			out[c] = -child(cur^mask, mask|move, moves+1)
		}
	}
	return out
}

// Outcome returns the game-theoretic result of st for the player to move:
// +1 a win, 0 a draw, -1 a loss. It searches only as far as needed to tell
// these apart (a weak solve), often much faster than Solve. On a finished
// game it returns the result of that game for the player to move.
func (s *Solver) Outcome(st *connect4.State) int {
	cur, mask := st.Bitboards()
	moves := st.MoveNumber()
	switch {
	case st.Won():
		return -1
	case moves == cells:
		return 0
	}
	return sign(s.solveWithin(cur, mask, moves, -1, 1))
}

// OutcomeMoves returns, for each column, the result (+1, 0, -1) for the
// player to move of playing there, or Invalid for a full column (and for
// every column once the game is over). A move is a mistake when another
// column has a strictly greater outcome.
func (s *Solver) OutcomeMoves(st *connect4.State) [width]int {
	return eachMove(st, 1, func(cur, mask uint64, moves int) int {
		return sign(s.solveWithin(cur, mask, moves, -1, 1))
	})
}

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// solve returns the score of a position that is not over.
func (s *Solver) solve(cur, mask uint64, moves int) int {
	return s.solveWithin(cur, mask, moves, -(cells-moves)/2, (cells+1-moves)/2)
}

// solveWithin narrows [lo, hi] around the score of a position that is not
// over by null-window searches, probing near zero first, and returns the
// score, or a bound of it beyond lo or hi when it lies outside [lo, hi].
func (s *Solver) solveWithin(cur, mask uint64, moves, lo, hi int) int {
	if canWinNext(cur, mask) {
		return (cells + 1 - moves) / 2
	}
	for lo < hi {
		med := lo + (hi-lo)/2
		if med <= 0 && lo/2 < med {
			med = lo / 2
		} else if med >= 0 && hi/2 > med {
			med = hi / 2
		}
		if r := s.negamax(cur, mask, moves, med, med+1); r <= med {
			hi = r
		} else {
			lo = r
		}
	}
	return lo
}

// negamax returns the score of the position with the stones cur of the
// player to move and all stones mask, or a bound of it outside (alpha,
// beta): a result r <= alpha means score <= r, r >= beta means score >= r.
// The player to move must not be able to win at once, and the game must not
// be over.
func (s *Solver) negamax(cur, mask uint64, moves, alpha, beta int) int {
	s.nodes++
	possible := (mask + bottom) & board
	oppWin := winningCells(cur^mask, mask)
	if forced := possible & oppWin; forced != 0 {
		if forced&(forced-1) != 0 {
			return -(cells - moves) / 2 // two threats: one cannot block both
		}
		possible = forced
	}
	next := possible &^ (oppWin >> 1) // never play under an opponent's winning cell
	if next == 0 {
		return -(cells - moves) / 2
	}
	if moves >= cells-2 {
		return 0
	}

	// The opponent cannot win on its next move, so the score is at least
	// this; and we cannot win on this move, so it is at most that.
	if lo := -(cells - 2 - moves) / 2; alpha < lo {
		alpha = lo
		if alpha >= beta {
			return alpha
		}
	}
	hi := (cells - 1 - moves) / 2
	key := symmetricKey(cur + mask)
	useTable := moves < tableMoves
	stored := 0
	if useTable {
		stored = s.get(key)
	}
	if v := stored; v != 0 {
		if v > maxScore-minScore+1 { // a lower bound
			if lo := v + 2*minScore - maxScore - 2; alpha < lo {
				alpha = lo
				if alpha >= beta {
					return alpha
				}
			}
		} else if up := v + minScore - 1; up < hi { // an upper bound
			hi = up
		}
	}
	if beta > hi {
		beta = hi
		if alpha >= beta {
			return beta
		}
	}

	// Order the moves: most winning cells created first, then centre
	// first (columns are added edge first; equal scores keep the later
	// added ahead).
	var order [width]uint64
	var score [width]int
	n := 0
	opp := cur ^ mask
	prefetchChildren := moves+1 < tableMoves
	for i := width - 1; i >= 0; i-- {
		move := next & columnMasks[i]
		if move == 0 {
			continue
		}
		sc := bits.OnesCount64(winningCells(cur|move, mask))
		if prefetchChildren {
			// Start loading the child's table bucket now, so that
			// the probe when it is searched finds it in the cache.
			prefetch.Lines(unsafe.Pointer(&s.table[s.index(symmetricKey(opp+(mask|move)))]), 16)
		}
		j := n
		for ; j > 0 && score[j-1] > sc; j-- {
			order[j], score[j] = order[j-1], score[j-1]
		}
		order[j], score[j] = move, sc
		n++
	}

	for j := n - 1; j >= 0; j-- {
		v := -s.negamax(opp, mask|order[j], moves+1, -beta, -alpha)
		if v >= beta {
			if useTable {
				s.put(key, moves, v+maxScore-2*minScore+2)
			}
			return v
		}
		if v > alpha {
			alpha = v
		}
	}
	if useTable {
		s.put(key, moves, alpha-minScore+1)
	}
	return alpha
}

// Position is one line of a benchmark file in Pascal Pons' format.
type Position struct {
	Line     int    // line number in its file, from 1
	Moves    string // columns played, 1-7
	State    *connect4.State
	Score    int  // the exact score for the player to move, when HasScore
	HasScore bool // the line gave a score
}

// ReadSet reads Pons-format lines ("<moves> [score]"), skipping blank
// lines. The error names the file (name) and the line number.
func ReadSet(r io.Reader, name string) ([]Position, error) {
	var out []Position
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		st, score, has, err := ParsePosition(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		out = append(out, Position{Line: n, Moves: strings.Fields(line)[0], State: st, Score: score, HasScore: has})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// ReadSetFile reads the Pons-format file at path with ReadSet.
func ReadSetFile(path string) ([]Position, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSet(f, path)
}

// ParsePosition reads one line in Pons' format, "<moves> [score]": the
// columns played from the empty board as digits 1-7, then optionally the
// score. The moves are replayed through the checked path, so an illegal
// sequence (a full column, a move after the game is over) is an error. An
// empty line is the empty board.
func ParsePosition(line string) (st *connect4.State, score int, hasScore bool, err error) {
	fields := strings.Fields(line)
	if len(fields) > 2 {
		return nil, 0, false, fmt.Errorf("c4solver: position %q: want \"<moves> [score]\"", line)
	}
	moves := ""
	if len(fields) > 0 {
		moves = fields[0]
	}
	gs, _, err := games.ParseAndReplay(connect4.Game{}, moves)
	if err != nil {
		return nil, 0, false, fmt.Errorf("c4solver: position %q: %w", line, err)
	}
	if len(fields) == 2 {
		score, err = strconv.Atoi(fields[1])
		if err != nil {
			return nil, 0, false, fmt.Errorf("c4solver: position %q: score %q is not an integer", line, fields[1])
		}
		hasScore = true
	}
	return gs.(*connect4.State), score, hasScore, nil
}
