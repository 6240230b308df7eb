package connect4

import (
	"bufio"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
	"tabula/internal/refdata/refdatatest"
)

func TestConformance(t *testing.T) {
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	gamestest.Check(t, g, gamestest.Config{Games: 2000, Seed: 1, Transpositions: true})
}

// replay plays a move string through the checked path or fails the test.
func replay(t *testing.T, moves string) *State {
	t.Helper()
	s, _, err := games.ParseAndReplay(Game{}, moves)
	if err != nil {
		t.Fatalf("replay %q: %v", moves, err)
	}
	return s.(*State)
}

// boardText parses a board drawn as in String (top row first, X, O, '.',
// optional spaces) into the stones of X and O.
func boardText(t *testing.T, text string) (x, o uint64) {
	t.Helper()
	rows := strings.Split(strings.TrimSpace(text), "\n")
	if len(rows) != Height {
		t.Fatalf("board has %d rows, want %d", len(rows), Height)
	}
	for i, line := range rows {
		line = strings.ReplaceAll(strings.TrimSpace(line), " ", "")
		if len(line) != Width {
			t.Fatalf("row %d %q has %d cells", i, line, len(line))
		}
		for c, ch := range line {
			b := Bit(c, Height-1-i)
			switch ch {
			case 'X':
				x |= b
			case 'O':
				o |= b
			case '.':
			default:
				t.Fatalf("row %d: bad cell %q", i, ch)
			}
		}
	}
	return x, o
}

func TestResults(t *testing.T) {
	tests := []struct {
		name    string
		moves   string
		board   string
		returns [2]float64
	}{
		{"horizontal X", "1122334", `
			. . . . . . .
			. . . . . . .
			. . . . . . .
			. . . . . . .
			O O O . . . .
			X X X X . . .`, [2]float64{1, -1}},
		{"vertical O", "12121272", `
			. . . . . . .
			. . . . . . .
			. O . . . . .
			X O . . . . .
			X O . . . . .
			X O . . . . X`, [2]float64{-1, 1}},
		{"diagonal up-right X", "12234334544", `
			. . . . . . .
			. . . . . . .
			. . . X . . .
			. . X O . . .
			. X O O . . .
			X O O X X . .`, [2]float64{1, -1}},
		{"diagonal down-right O", "564544333713", `
			. . . . . . .
			. . . . . . .
			. . O . . . .
			. . X O . . .
			. . O X O . .
			X . X X X O O`, [2]float64{-1, 1}},
		{"full board draw", "126615525717246671625435544411643733237327", `
			O X O O X X O
			X X O O O X X
			O O O X X O O
			X X X O X X X
			X O X O X O O
			X O X O O X O`, [2]float64{0, 0}},
		{"not over", "4453", `
			. . . . . . .
			. . . . . . .
			. . . . . . .
			. . . . . . .
			. . . O . . .
			. . O X X . .`, [2]float64{0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := replay(t, tc.moves)
			x, o := boardText(t, tc.board)
			if s.playerStones(0) != x || s.playerStones(1) != o {
				t.Fatalf("board after %s:\n%s\nwant\n%s", tc.moves, s, tc.board)
			}
			over := tc.name != "not over"
			if s.IsTerminal() != over {
				t.Fatalf("IsTerminal = %v, want %v\n%s", s.IsTerminal(), over, s)
			}
			if got := s.Returns(); got != tc.returns {
				t.Fatalf("Returns = %v, want %v\n%s", got, tc.returns, s)
			}
			if n := len(s.LegalActions(nil)); over != (n == 0) {
				t.Fatalf("%d legal actions with IsTerminal %v", n, over)
			}
			// One move fewer is never over (the sequences end on the
			// deciding move).
			if over {
				prev := replay(t, tc.moves[:len(tc.moves)-1])
				if prev.IsTerminal() {
					t.Fatalf("game already over before the last move:\n%s", prev)
				}
			}
		})
	}
}

func TestString(t *testing.T) {
	s := replay(t, "4453")
	want := `. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . O . . .
. . O X X . .
1 2 3 4 5 6 7
X to move
`
	if got := s.String(); got != want {
		t.Fatalf("String:\n%s\nwant\n%s", got, want)
	}
	if got := replay(t, "1122334").String(); !strings.HasSuffix(got, "X won\n") {
		t.Fatalf("String of a won game does not say X won:\n%s", got)
	}
}

func TestIllegalMoves(t *testing.T) {
	tests := []struct {
		name   string
		moves  string
		action int
	}{
		{"full column", "111111", 0},
		{"full column 7", "777777", 6},
		{"after a win", "1122334", 5},
		{"after a draw", "126615525717246671625435544411643733237327", 0},
		{"negative", "", -1},
		{"too large", "4", 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := replay(t, tc.moves)
			before := *s
			err := games.Play(s, tc.action)
			if !errors.Is(err, games.ErrIllegalMove) {
				t.Fatalf("Play(%d) after %q: err = %v, want ErrIllegalMove", tc.action, tc.moves, err)
			}
			if *s != before {
				t.Fatalf("a refused move changed the state")
			}
		})
	}
	// The same through Replay and the notation.
	for _, moves := range []string{"1111111", "11223345", "8", "1x2"} {
		if _, _, err := games.ParseAndReplay(Game{}, moves); err == nil {
			t.Errorf("ParseAndReplay(%q) succeeded", moves)
		}
	}
}

func TestObservation(t *testing.T) {
	s := replay(t, "44536") // O to move
	var obs [2 * Cells]float32
	s.Observation(obs[:])
	// Plane 0 is the mover's (O), plane 1 the opponent's (X), row 0 on top.
	want := [2]string{`
		. . . . . . .
		. . . . . . .
		. . . . . . .
		. . . . . . .
		. . . X . . .
		. . X . . . .`, `
		. . . . . . .
		. . . . . . .
		. . . . . . .
		. . . . . . .
		. . . . . . .
		. . . X X X .`}
	for p := 0; p < 2; p++ {
		b, _ := boardText(t, want[p])
		for r := 0; r < Height; r++ {
			for c := 0; c < Width; c++ {
				w := float32(0)
				if b&Bit(c, Height-1-r) != 0 {
					w = 1
				}
				if got := obs[p*Cells+r*Width+c]; got != w {
					t.Fatalf("plane %d row %d col %d = %v, want %v", p, r, c, got, w)
				}
			}
		}
	}
}

func TestMirror(t *testing.T) {
	g := Game{}
	r := rand.New(rand.NewPCG(7, 7))
	buf := make([]int, 0, Width)
	for i := 0; i < 200; i++ {
		s, m := NewState(), NewState()
		for !s.IsTerminal() {
			legal := s.LegalActions(buf)
			a := legal[r.IntN(len(legal))]
			s.ApplyAction(a)
			m.ApplyAction(g.TransformAction(1, a))
			ts := g.TransformState(1, s).(*State)
			if *ts != *m {
				t.Fatalf("mirror of\n%s\nis\n%s\nwant\n%s", s, ts, m)
			}
		}
	}
}

// perft counts the move sequences of exactly depth plies from s (a game
// may end on the last one); with early it also counts games that end sooner
// as leaves.
func perft(s State, depth int, early bool) uint64 {
	if depth == 0 {
		return 1
	}
	if s.IsTerminal() {
		if early {
			return 1
		}
		return 0
	}
	var n uint64
	for c := 0; c < Width; c++ {
		if s.mask&topMask(c) == 0 {
			child := s
			child.ApplyAction(c)
			n += perft(child, depth-1, early)
		}
	}
	return n
}

// perftRef reads perft.txt: for each depth, the exact count, the count with
// early ends, and the distinct positions.
func perftRef(t testing.TB) (exact, early, distinct map[int]uint64) {
	path := refdatatest.Path(t, "connect4", "perft.txt")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exact, early, distinct = map[int]uint64{}, map[int]uint64{}, map[int]uint64{}
	section := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if fields[0] == "ply" {
			section++
			continue
		}
		var nums []uint64
		for _, f := range fields {
			v, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				t.Fatalf("%s: bad line %q", path, sc.Text())
			}
			nums = append(nums, v)
		}
		d := int(nums[0])
		switch {
		case section == 1 && len(nums) == 3:
			exact[d], early[d] = nums[1], nums[2]
		case section == 2 && len(nums) == 2:
			distinct[d] = nums[1]
		default:
			t.Fatalf("%s: unexpected line %q", path, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return exact, early, distinct
}

func TestPerft(t *testing.T) {
	exact, early, _ := perftRef(t)
	for d := 1; d <= 8; d++ {
		if got := perft(State{}, d, false); got != exact[d] {
			t.Errorf("perft(%d) = %d, want %d", d, got, exact[d])
		}
		if got := perft(State{}, d, true); got != early[d] {
			t.Errorf("perft with early ends(%d) = %d, want %d", d, got, early[d])
		}
	}
}

// TestDistinctPositions counts the distinct positions by depth, once by
// bitboards and once by Zobrist hash: both must match the published counts,
// so that equal positions reached by different orders hash equally and
// different ones (at these depths) do not collide.
func TestDistinctPositions(t *testing.T) {
	_, _, distinct := perftRef(t)
	level := map[[2]uint64]*State{{0, 0}: NewState()}
	for d := 1; d <= 8; d++ {
		next := make(map[[2]uint64]*State, len(level)*4)
		hashes := make(map[uint64]bool, len(level)*4)
		for _, s := range level {
			if s.IsTerminal() {
				continue
			}
			for c := 0; c < Width; c++ {
				if !s.IsLegal(c) {
					continue
				}
				child := *s
				child.ApplyAction(c)
				next[[2]uint64{child.current, child.mask}] = &child
				hashes[child.hash] = true
			}
		}
		if uint64(len(next)) != distinct[d] || len(hashes) != len(next) {
			t.Fatalf("depth %d: %d positions, %d hashes, want %d", d, len(next), len(hashes), distinct[d])
		}
		level = next
	}
}

func TestNotation(t *testing.T) {
	g := Game{}
	tests := []struct {
		in   string
		want []int
		ok   bool
	}{
		{"4453", []int{3, 3, 4, 2}, true},
		{" 4 4\t5 3\n", []int{3, 3, 4, 2}, true},
		{"", []int{}, true},
		{"1234567", []int{0, 1, 2, 3, 4, 5, 6}, true},
		{"0", nil, false},
		{"8", nil, false},
		{"4a", nil, false},
		{"4,4", nil, false},
	}
	for _, tc := range tests {
		got, err := g.ParseActions(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseActions(%q) error %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && (len(got) != len(tc.want) || g.FormatActions(got) != g.FormatActions(tc.want)) {
			t.Errorf("ParseActions(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	for a := 0; a < Width; a++ {
		text := g.FormatAction(a)
		if b, err := g.ParseAction(text); err != nil || b != a {
			t.Errorf("ParseAction(FormatAction(%d) = %q) = %d, %v", a, text, b, err)
		}
	}
	for _, bad := range []string{"", "0", "8", "12", "x", "-1"} {
		if _, err := g.ParseAction(bad); err == nil {
			t.Errorf("ParseAction(%q) succeeded", bad)
		}
	}
}

func TestRegistry(t *testing.T) {
	g, err := games.New(" connect4 ")
	if err != nil || g.Name() != "connect4" {
		t.Fatalf("New(connect4) = %v, %v", g, err)
	}
	if _, err := games.New("connect4:size=7"); err == nil {
		t.Fatal("New accepted an unknown parameter")
	}
}

func TestHeuristic(t *testing.T) {
	g := Game{}
	tests := []struct {
		name  string
		moves string
		check func(v float64) bool
	}{
		{"mover wins next", "112233", func(v float64) bool { return v == immediateValue }},
		{"opponent has two playable threats", "33445", func(v float64) bool { return v == -immediateValue }},
		// X (to move) has the centre stone, O an edge one.
		{"centre beats edge", "41", func(v float64) bool { return v > 0 && v < immediateValue }},
		{"edge loses to centre", "14", func(v float64) bool { return v < 0 && v > -immediateValue }},
		{"empty board", "", func(v float64) bool { return v == 0 }},
		{"lost game", "1122334", func(v float64) bool { return v == -0.99 }},
	}
	for _, tc := range tests {
		s := replay(t, tc.moves)
		if v := g.Evaluate(s); !tc.check(v) {
			t.Errorf("%s: Evaluate(%q) = %v\n%s", tc.name, tc.moves, v, s)
		}
	}
	// Random positions: strictly inside (-1, 1) and mirror-invariant.
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]int, 0, Width)
	for i := 0; i < 300; i++ {
		s := NewState()
		for !s.IsTerminal() {
			v := g.Evaluate(s)
			if !(v > -1 && v < 1) {
				t.Fatalf("Evaluate = %v outside (-1, 1)\n%s", v, s)
			}
			if m := g.Evaluate(g.TransformState(1, s)); m != v {
				t.Fatalf("Evaluate of mirror %v != %v\n%s", m, v, s)
			}
			legal := s.LegalActions(buf)
			s.ApplyAction(legal[r.IntN(len(legal))])
		}
	}
}

func FuzzParseActions(f *testing.F) {
	for _, s := range []string{"4453", " 1 2 ", "", "8", "1a", "\x00"} {
		f.Add(s)
	}
	g := Game{}
	f.Fuzz(func(t *testing.T, text string) {
		gamestest.CheckParse(t, g, text)
	})
}

func FuzzNew(f *testing.F) {
	for _, s := range []string{"connect4", "connect4:", "connect4:a=1", "connect4:,", " connect4 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		g, err := games.New(spec)
		if err != nil {
			return
		}
		if strings.HasPrefix(strings.TrimSpace(spec), "connect4") && g.Name() != "connect4" {
			t.Fatalf("New(%q).Name() = %q", spec, g.Name())
		}
	})
}

// TestNoAllocations checks that the fast path allocates nothing.
func TestNoAllocations(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	buf := make([]int, 0, Width)
	var s State
	var sum uint64
	allocs := testing.AllocsPerRun(100, func() {
		s = State{}
		for !s.IsTerminal() {
			legal := s.LegalActions(buf)
			s.ApplyAction(legal[r.IntN(len(legal))])
			sum += s.Hash()
		}
	})
	if allocs != 0 {
		t.Fatalf("a random game allocates %v times", allocs)
	}
}
