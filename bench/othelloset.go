package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"tabula/games"
	"tabula/games/othello"
	"tabula/search/othelloend"
)

// An Othello position set (data/othello/*.txt) is Pons-like ground truth for
// Othello: one position a line, each with the exact result of every legal
// move. The format:
//
//	# tabula othello positions
//	# game othello:size=6
//	# empties 21-24
//	# (other comment lines are free text)
//	d3c3c4e3 b2:-4 b4:-4 ...
//	...
//	# crc32 1a2b3c4d
//
// A data line is the moves from the start position, concatenated in the
// game's notation ("f5d6c3", a pass "pass"; "-" for no moves), then one
// MOVE:SCORE label per legal move: SCORE is the exact final disc margin for
// the side to move after playing MOVE and perfect play by both sides, the
// empty squares left at the end going to the winner (the FFO convention of
// package othelloend). Its sign is the result: win, draw or loss. The
// "game" and "empties" header lines are optional; when present every
// position must be of that game and have that many empty squares. The
// optional last line "# crc32 X" holds the IEEE CRC-32 (8 hex digits) of
// every line before it, each ended by "\n"; when present it is checked.

// OthelloLabel is the exact result of one move: the final disc margin for
// the side to move after playing Action under perfect play.
type OthelloLabel = othelloend.ActionScore

// OthelloPosition is one line of an Othello position set.
type OthelloPosition struct {
	Line   int    // line number in its file, from 1
	Moves  string // the moves from the start, as written
	State  *othello.State
	Labels []OthelloLabel // one per legal move, in file order
}

// Empties returns the number of empty squares of the position.
func (p OthelloPosition) Empties() int {
	return othelloEmpties(p.State)
}

// Best returns the best score among the labels.
func (p OthelloPosition) Best() int {
	best := -1 << 30
	for _, l := range p.Labels {
		best = max(best, l.Score)
	}
	return best
}

// Score returns the label of action a and whether a is labelled.
func (p OthelloPosition) Score(a int) (int, bool) {
	for _, l := range p.Labels {
		if l.Action == a {
			return l.Score, true
		}
	}
	return 0, false
}

// OthelloSet is a parsed Othello position set.
type OthelloSet struct {
	Name                   string // the file's base name without extension
	Game                   *othello.Game
	MinEmpties, MaxEmpties int      // the declared bucket; both 0 when none was declared
	Header                 []string // the comment lines before the positions, without "# "
	Positions              []OthelloPosition
}

// Bucket names the set's range of empties, "21-24", or "any".
func (s *OthelloSet) Bucket() string {
	if s.MaxEmpties == 0 {
		return "any"
	}
	return fmt.Sprintf("%d-%d", s.MinEmpties, s.MaxEmpties)
}

func othelloEmpties(st *othello.State) int {
	return othelloend.Empties(st)
}

// SetName returns the name of a set read from path: its base name without
// the extension.
func SetName(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// ReadOthelloSet reads an Othello position set; name (the file's path)
// prefixes errors, which name the line. g, if not nil, is the game the
// positions must be of; otherwise the file's "game" line says it.
func ReadOthelloSet(r io.Reader, name string, g *othello.Game) (*OthelloSet, error) {
	set := &OthelloSet{Name: SetName(name), Game: g}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	crc := crc32.NewIEEE()
	sawCRC, sawData := false, false
	var legal []int
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, args...))
		}
		if sawCRC {
			if line == "" {
				continue
			}
			return nil, fail("text after the crc32 line")
		}
		comment := strings.HasPrefix(line, "#")
		text := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		if rest, ok := strings.CutPrefix(text, "crc32 "); ok && comment {
			want, err := strconv.ParseUint(strings.TrimSpace(rest), 16, 32)
			if err != nil || len(strings.TrimSpace(rest)) != 8 {
				return nil, fail("crc32 %q: want 8 hex digits", rest)
			}
			if got := crc.Sum32(); got != uint32(want) {
				return nil, fail("checksum mismatch: the lines above have crc32 %08x, the file says %08x (edited or damaged)", got, want)
			}
			sawCRC = true
			continue
		}
		crc.Write([]byte(raw))
		crc.Write([]byte{'\n'})
		switch {
		case line == "":
			continue
		case comment:
			known, err := set.headerLine(text)
			if err != nil {
				return nil, fail("%v", err)
			}
			if !sawData && !known && text != setTitle {
				set.Header = append(set.Header, text)
			}
			continue
		}
		if set.Game == nil {
			return nil, fail("no game: give one or start the file with a line \"# game othello:size=N\"")
		}
		sawData = true
		pos, err := parseOthelloLine(set.Game, line, &legal)
		if err != nil {
			return nil, fail("%v", err)
		}
		pos.Line = n
		if e := pos.Empties(); set.MaxEmpties > 0 && (e < set.MinEmpties || e > set.MaxEmpties) {
			return nil, fail("position %s has %d empty squares, outside the set's %s", pos.Moves, e, set.Bucket())
		}
		set.Positions = append(set.Positions, pos)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if set.Game == nil {
		return nil, fmt.Errorf("%s: no game named and no positions", name)
	}
	return set, nil
}

// setTitle is the first line of a written set, after "# ".
const setTitle = "tabula othello positions"

// headerLine applies a "game" or "empties" comment line and reports whether
// it was one; other comment lines are free text.
func (s *OthelloSet) headerLine(text string) (bool, error) {
	if rest, ok := strings.CutPrefix(text, "game "); ok {
		gg, err := games.New(strings.TrimSpace(rest))
		if err != nil {
			return true, fmt.Errorf("game line: %w", err)
		}
		og, ok := gg.(*othello.Game)
		if !ok {
			return true, fmt.Errorf("game line: %s is not othello", gg.Name())
		}
		switch {
		case len(s.Positions) > 0:
			return true, fmt.Errorf("game line after positions")
		case s.Game != nil && s.Game.Name() != og.Name():
			return true, fmt.Errorf("the set is of %s, not %s", og.Name(), s.Game.Name())
		}
		s.Game = og
		return true, nil
	}
	if rest, ok := strings.CutPrefix(text, "empties "); ok {
		lo, hi, err := parseBucket(strings.TrimSpace(rest))
		if err != nil {
			return true, fmt.Errorf("empties line: %w", err)
		}
		if len(s.Positions) > 0 {
			return true, fmt.Errorf("empties line after positions")
		}
		s.MinEmpties, s.MaxEmpties = lo, hi
		return true, nil
	}
	return false, nil
}

// parseBucket reads "A-B", 1 <= A <= B <= 64.
func parseBucket(t string) (lo, hi int, err error) {
	a, b, ok := strings.Cut(t, "-")
	if ok {
		lo, err = strconv.Atoi(a)
		if err == nil {
			hi, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || lo < 1 || hi < lo || hi > 64 {
		return 0, 0, fmt.Errorf("range %q: want A-B with 1 <= A <= B <= 64", t)
	}
	return lo, hi, nil
}

// parseOthelloLine reads "<moves> MOVE:SCORE ..." and checks that the moves
// are legal, the game is not over, and the labels name every legal move
// once with a possible score. legal is scratch space.
func parseOthelloLine(g *othello.Game, line string, legal *[]int) (OthelloPosition, error) {
	fields := strings.Fields(line)
	pos := OthelloPosition{Moves: fields[0]}
	st := g.NewInitialState().(*othello.State)
	if fields[0] != "-" {
		moves, err := g.ParseActions(fields[0])
		if err != nil {
			return pos, err
		}
		for i, a := range moves {
			if err := games.Play(st, a); err != nil {
				return pos, fmt.Errorf("move %d (%s) of %s: %w", i+1, g.FormatAction(a), fields[0], err)
			}
		}
	}
	pos.State = st
	*legal = st.LegalActions((*legal)[:0])
	if len(*legal) == 0 {
		return pos, fmt.Errorf("position %s: the game is over, nothing to label", fields[0])
	}
	limit := g.Size() * g.Size()
	for _, f := range fields[1:] {
		ms, ss, ok := strings.Cut(f, ":")
		if !ok {
			return pos, fmt.Errorf("label %q: want MOVE:SCORE", f)
		}
		a, err := g.ParseAction(ms)
		if err != nil {
			return pos, fmt.Errorf("label %q: %w", f, err)
		}
		score, err := strconv.Atoi(ss)
		if err != nil || score < -limit || score > limit {
			return pos, fmt.Errorf("label %q: score %q is not a whole number in -%d..%d", f, ss, limit, limit)
		}
		if !st.IsLegal(a) {
			return pos, fmt.Errorf("label %q: %s is not a legal move here", f, g.FormatAction(a))
		}
		if _, dup := pos.Score(a); dup {
			return pos, fmt.Errorf("label %q: %s labelled twice", f, g.FormatAction(a))
		}
		pos.Labels = append(pos.Labels, OthelloLabel{Action: a, Score: score})
	}
	if len(pos.Labels) != len(*legal) {
		var missing []string
		for _, a := range *legal {
			if _, ok := pos.Score(a); !ok {
				missing = append(missing, g.FormatAction(a))
			}
		}
		return pos, fmt.Errorf("position %s: legal moves without a label: %s", fields[0], strings.Join(missing, " "))
	}
	return pos, nil
}

// FormatOthelloLine writes a data line: the moves, then the labels.
func FormatOthelloLine(g *othello.Game, moves string, labels []OthelloLabel) string {
	var b strings.Builder
	if moves == "" {
		moves = "-"
	}
	b.WriteString(moves)
	for _, l := range labels {
		b.WriteByte(' ')
		b.WriteString(g.FormatAction(l.Action))
		b.WriteByte(':')
		if l.Score > 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(l.Score))
	}
	return b.String()
}

// WriteOthelloSet returns the file of a set: its header lines as comments
// (the "game" and "empties" lines first, from the set), the positions, and
// the crc32 line.
func WriteOthelloSet(s *OthelloSet) []byte {
	var b bytes.Buffer
	b.WriteString("# " + setTitle + "\n")
	fmt.Fprintf(&b, "# game %s\n", s.Game.Name())
	if s.MaxEmpties > 0 {
		fmt.Fprintf(&b, "# empties %s\n", s.Bucket())
	}
	for _, h := range s.Header {
		fmt.Fprintf(&b, "# %s\n", h)
	}
	for _, p := range s.Positions {
		b.WriteString(FormatOthelloLine(s.Game, p.Moves, p.Labels))
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "# crc32 %08x\n", crc32.ChecksumIEEE(b.Bytes()))
	return b.Bytes()
}

// LabelOthello returns the exact score of every legal move of st, best
// first, solved by sv (which must be of st's board size).
func LabelOthello(sv *othelloend.Solver, st *othello.State) []OthelloLabel {
	return sv.ActionScores(st)
}

// NewOthelloSolver returns an endgame solver for g's board with 2^ttBits
// table entries.
func NewOthelloSolver(g *othello.Game, ttBits int) (*othelloend.Solver, error) {
	return othelloend.New(othelloend.Config{TTBits: ttBits, Size: g.Size()})
}
