package othello

import (
	"bufio"
	"errors"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
	"tabula/internal/refdata/refdatatest"
)

func mustGame(t testing.TB, spec string) *Game {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatalf("games.New(%q): %v", spec, err)
	}
	return g.(*Game)
}

// board builds a state from rows of text: X black, O white, '.' empty;
// spaces are ignored.
func board(t testing.TB, g *Game, player int, text string) *State {
	t.Helper()
	var black, white uint64
	rows := strings.Split(strings.TrimSpace(text), "\n")
	if len(rows) != g.size {
		t.Fatalf("board has %d rows, want %d", len(rows), g.size)
	}
	for r, row := range rows {
		row = strings.ReplaceAll(strings.TrimSpace(row), " ", "")
		if len(row) != g.size {
			t.Fatalf("row %d %q has %d squares, want %d", r+1, row, len(row), g.size)
		}
		for c := 0; c < g.size; c++ {
			switch row[c] {
			case 'X':
				black |= 1 << uint(r*8+c)
			case 'O':
				white |= 1 << uint(r*8+c)
			case '.':
			default:
				t.Fatalf("row %d: bad square %q", r+1, row[c])
			}
		}
	}
	s, err := g.NewState(black, white, player, 0)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	for _, spec := range []string{"othello", "othello:size=6"} {
		t.Run(spec, func(t *testing.T) {
			gamestest.Check(t, mustGame(t, spec), gamestest.Config{Games: 2000, Seed: 1, Transpositions: true})
		})
	}
}

func TestSpecs(t *testing.T) {
	tests := []struct {
		spec, name string
		actions    int
		wantErr    bool
	}{
		{"othello", "othello:size=8", 65, false},
		{"othello:size=8", "othello:size=8", 65, false},
		{"othello:size=6", "othello:size=6", 37, false},
		{" othello : size = 6 ", "othello:size=6", 37, false},
		{"othello:size=7", "", 0, true},
		{"othello:size=10", "", 0, true},
		{"othello:size=x", "", 0, true},
		{"othello:komi=7", "", 0, true},
		{"othello:size=6,size=8", "", 0, true},
	}
	for _, tc := range tests {
		g, err := games.New(tc.spec)
		if tc.wantErr {
			if err == nil {
				t.Errorf("games.New(%q) = %s, want an error", tc.spec, g.Name())
			}
			continue
		}
		if err != nil {
			t.Errorf("games.New(%q): %v", tc.spec, err)
			continue
		}
		if g.Name() != tc.name || g.NumActions() != tc.actions {
			t.Errorf("games.New(%q) = %s with %d actions, want %s with %d", tc.spec, g.Name(), g.NumActions(), tc.name, tc.actions)
		}
	}
}

func TestInitialState(t *testing.T) {
	tests := []struct {
		spec  string
		legal string
		text  string
	}{
		{"othello", "d3 c4 f5 e6", `
. . . . . . . .
. . . . . . . .
. . . . . . . .
. . . O X . . .
. . . X O . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .`},
		{"othello:size=6", "c2 b3 e4 d5", `
. . . . . .
. . . . . .
. . O X . .
. . X O . .
. . . . . .
. . . . . .`},
	}
	for _, tc := range tests {
		g := mustGame(t, tc.spec)
		s := g.NewInitialState().(*State)
		want := board(t, g, Black, tc.text)
		if s.mover != want.mover || s.opp != want.opp || s.CurrentPlayer() != Black {
			t.Errorf("%s: initial state\n%s want\n%s", tc.spec, s, want)
		}
		wantLegal, err := g.ParseActions(tc.legal)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(wantLegal)
		if got := s.LegalActions(nil); !slices.Equal(got, wantLegal) {
			t.Errorf("%s: legal %s, want %s", tc.spec, g.FormatActions(got), g.FormatActions(wantLegal))
		}
	}
}

func TestMoves(t *testing.T) {
	g := mustGame(t, "othello")
	tests := []struct {
		name   string
		player int
		before string
		move   string
		after  string
	}{
		{"all eight directions", Black, `
X . . X . . X .
. O . O . O . .
. . O O O . . .
X O O . O O O X
. . O O O . . .
. O . O . O . .
X . . X . . X .
. . . . . . . .`, "d4", `
X . . X . . X .
. X . X . X . .
. . X X X . . .
X X X X X X X X
. . X X X . . .
. X . X . X . .
X . . X . . X .
. . . . . . . .`},
		{"runs ending in an empty square or the edge stay", Black, `
. . . . . . . .
. . . . . . . .
. . . . . . . .
O O O . O O O .
. . . O . . . .
. . . X . . . .
. . . . . . . .
. . . . . . . .`, "d4", `
. . . . . . . .
. . . . . . . .
. . . . . . . .
O O O X O O O .
. . . X . . . .
. . . X . . . .
. . . . . . . .
. . . . . . . .`},
		{"white flips, corner to corner", White, `
O . . . . . . O
. X . . . . . .
. . X . . . . .
. . . X . . . .
. . . . X . . .
. . . . . X . .
. . . . . . X .
. . . . . . . .`, "h8", `
O . . . . . . O
. O . . . . . .
. . O . . . . .
. . . O . . . .
. . . . O . . .
. . . . . O . .
. . . . . . O .
. . . . . . . O`},
		{"two lines, one closed", White, `
. . . . . . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .
O X X X X X X .
. . . . . . X .
. . . . . . X .`, "h6", `
. . . . . . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .
O O O O O O O O
. . . . . . X .
. . . . . . X .`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := board(t, g, tc.player, tc.before)
			want := board(t, g, 1-tc.player, tc.after)
			a, err := g.ParseAction(tc.move)
			if err != nil {
				t.Fatal(err)
			}
			if err := games.Play(s, a); err != nil {
				t.Fatalf("Play(%s): %v", tc.move, err)
			}
			if s.mover != want.mover || s.opp != want.opp || s.CurrentPlayer() != 1-tc.player || s.MoveNumber() != 1 {
				t.Errorf("after %s:\n%s want\n%s", tc.move, s, want)
			}
		})
	}
}

func TestIllegalMoves(t *testing.T) {
	g := mustGame(t, "othello")
	// The wrap-around case: b1 O at the end of row 1 must not be flanked by
	// X at a2 through the edge.
	wrap := `
. . . . . . X O
. . . . . . . .
. . . . . . . .
. . . O X . . .
. . . X O . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .`
	tests := []struct {
		name  string
		board string
		moves string // played through games.Play; the last one must fail
	}{
		{"occupied square", wrap, "d4"},
		{"no flip", wrap, "a1"},
		{"no flip through the row wrap", wrap, "a2"},
		{"pass while moves exist", wrap, "pass"},
		{"second move on the same square", wrap, "d3 c3 d3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := board(t, g, Black, tc.board)
			actions, err := g.ParseActions(tc.moves)
			if err != nil {
				t.Fatal(err)
			}
			last := len(actions) - 1
			for _, a := range actions[:last] {
				if err := games.Play(s, a); err != nil {
					t.Fatalf("Play(%s): %v", g.FormatAction(a), err)
				}
			}
			before := *s
			err = games.Play(s, actions[last])
			if !errors.Is(err, games.ErrIllegalMove) {
				t.Fatalf("Play(%s) = %v, want ErrIllegalMove", g.FormatAction(actions[last]), err)
			}
			if *s != before {
				t.Errorf("refused move changed the state")
			}
		})
	}
	s := g.NewInitialState()
	for _, a := range []int{-1, 65, 1000} {
		if err := games.Play(s, a); !errors.Is(err, games.ErrIllegalMove) {
			t.Errorf("Play(%d) = %v, want ErrIllegalMove", a, err)
		}
	}
}

func TestPassAndEnd(t *testing.T) {
	g := mustGame(t, "othello:size=6")
	tests := []struct {
		name     string
		player   int
		board    string
		legal    string // "" when the game is over
		returns  [2]float64
		terminal bool
	}{
		{"mover must pass", Black, `
O X . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .`, "pass", [2]float64{}, false},
		{"neither can move: game over, white wins", Black, `
O O . . . X
. . . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .`, "", [2]float64{-1, 1}, true},
		{"only one colour left", White, `
X X . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . X`, "", [2]float64{1, -1}, true},
		{"full board draw", Black, `
X X X X X X
X X X X X X
X X X X X X
O O O O O O
O O O O O O
O O O O O O`, "", [2]float64{0, 0}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := board(t, g, tc.player, tc.board)
			want, err := g.ParseActions(tc.legal)
			if err != nil {
				t.Fatal(err)
			}
			got := s.LegalActions(nil)
			if !slices.Equal(got, want) || s.IsTerminal() != tc.terminal || s.Returns() != tc.returns {
				t.Errorf("legal %v terminal %v returns %v, want %v %v %v\n%s", got, s.IsTerminal(), s.Returns(), want, tc.terminal, tc.returns, s)
			}
			if tc.legal == "pass" {
				if err := games.Play(s, g.Pass()); err != nil {
					t.Fatal(err)
				}
				if s.CurrentPlayer() != 1-tc.player || len(s.LegalActions(nil)) == 0 || s.IsLegal(g.Pass()) {
					t.Errorf("after the pass the opponent should move:\n%s", s)
				}
			}
		})
	}
}

func TestNotation(t *testing.T) {
	g := mustGame(t, "othello")
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"f5d6c3", []int{37, 43, 18}, false},
		{"F5 D6 C3", []int{37, 43, 18}, false},
		{"f5,d6, pass", []int{37, 43, 64}, false},
		{"a1h8PS--Pass", []int{0, 63, 64, 64, 64}, false},
		{"", nil, false},
		{"i1", nil, true},
		{"a9", nil, true},
		{"a0", nil, true},
		{"f5d", nil, true},
		{"f 5", nil, true},
	}
	for _, tc := range tests {
		got, err := g.ParseActions(tc.in)
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("ParseActions(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
	if got := g.FormatActions([]int{37, 43, 18, 64}); got != "f5d6c3pass" {
		t.Errorf("FormatActions = %q", got)
	}
	g6 := mustGame(t, "othello:size=6")
	if _, err := g6.ParseAction("g1"); err == nil {
		t.Errorf("g1 accepted on 6x6")
	}
	if a, err := g6.ParseAction("f6"); err != nil || a != 35 {
		t.Errorf("6x6 f6 = %d, %v; want 35", a, err)
	}
}

// perft counts the leaves of the game tree to depth plies: a pass is a ply
// and a game that ends earlier is one leaf (the refdata "A" convention).
func perft(s State, depth int, buf []int) uint64 {
	if depth == 1 {
		// Bulk count: a forced pass and a finished game are one leaf each.
		return uint64(max(1, bits.OnesCount64(s.Moves())))
	}
	legal := s.LegalActions(buf[:0])
	if len(legal) == 0 {
		return 1
	}
	var n uint64
	for i := range legal {
		c := s
		c.ApplyAction(legal[i])
		n += perft(c, depth-1, buf[len(legal):])
	}
	return n
}

// perftBuffer is big enough for depth plies of at most 64 moves each.
func perftBuffer(depth int) []int { return make([]int, 64*(depth+1)) }

// readPerft reads the A column of a refdata perft file.
func readPerft(t testing.TB, name string) map[int]uint64 {
	f, err := os.Open(refdatatest.Path(t, "othello", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[int]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fs := strings.Fields(line)
		d, err1 := strconv.Atoi(fs[0])
		n, err2 := strconv.ParseUint(fs[1], 10, 64)
		if len(fs) < 2 || err1 != nil || err2 != nil {
			t.Fatalf("%s: bad line %q", name, line)
		}
		want[d] = n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return want
}

func TestPerft(t *testing.T) {
	for _, tc := range []struct {
		spec, file string
	}{{"othello", "perft_8x8.txt"}, {"othello:size=6", "perft_6x6.txt"}} {
		t.Run(tc.spec, func(t *testing.T) {
			want := readPerft(t, tc.file)
			g := mustGame(t, tc.spec)
			for d := 1; d <= 9; d++ {
				w, ok := want[d]
				if !ok {
					t.Fatalf("%s has no depth %d", tc.file, d)
				}
				if got := perft(*g.NewInitialState().(*State), d, perftBuffer(d)); got != w {
					t.Errorf("perft(%d) = %d, want %d", d, got, w)
				}
			}
		})
	}
}

// TestPerftInterface runs a shallow perft through the games.State interface
// (Clone, not value copies), the way search code sees the game.
func TestPerftInterface(t *testing.T) {
	want := readPerft(t, "perft_8x8.txt")
	var walk func(s games.State, d int) uint64
	walk = func(s games.State, d int) uint64 {
		legal := s.LegalActions(nil)
		if d == 0 || len(legal) == 0 {
			return 1
		}
		var n uint64
		for _, a := range legal {
			c := s.Clone()
			if err := games.Play(c, a); err != nil {
				t.Fatal(err)
			}
			n += walk(c, d-1)
		}
		return n
	}
	g := mustGame(t, "othello")
	if got := walk(g.NewInitialState(), 6); got != want[6] {
		t.Errorf("perft(6) through the interface = %d, want %d", got, want[6])
	}
}

func TestSymmetryOfStart(t *testing.T) {
	g := mustGame(t, "othello")
	s := g.NewInitialState()
	// The start is invariant under the two diagonal reflections and the half
	// turn, and swaps colours under the other four symmetries.
	var invariant int
	for k := 0; k < 8; k++ {
		if g.TransformState(k, s).Hash() == s.Hash() {
			invariant++
		}
	}
	if invariant != 4 {
		t.Errorf("start is invariant under %d symmetries, want 4 (identity, 2 diagonals, half turn)", invariant)
	}
	// Transposing maps f5 to e6, both legal first moves.
	f5, _ := g.ParseAction("f5")
	e6, _ := g.ParseAction("e6")
	if got := g.TransformAction(1, f5); got != e6 {
		t.Errorf("transpose(f5) = %s, want e6", g.FormatAction(got))
	}
}

func TestOBF(t *testing.T) {
	line := "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; A4:-22; PS:-4;"
	p, err := ParseOBF(line)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGame(t, "othello")
	s, err := g.NewState(p.Black, p.White, p.Player, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := Count(^(p.Black | p.White)); n != 14 {
		t.Errorf("empties = %d, want 14", n)
	}
	if !strings.HasPrefix(s.String(), "  a b c d e f g h\n1 . * X X X X X *\n2 * O O O X X * O\n") {
		t.Errorf("board:\n%s", s)
	}
	want := []MoveScore{{62, 18}, {7, 12}, {24, -22}, {64, -4}}
	if !slices.Equal(p.Moves, want) || p.Player != Black {
		t.Errorf("moves %v player %d, want %v 0", p.Moves, p.Player, want)
	}
	if b, ok := p.Best(); !ok || b != 18 {
		t.Errorf("Best = %d, %v", b, ok)
	}
	for _, bad := range []string{"", "X", strings.Repeat("-", 63) + " X", strings.Repeat("-", 64) + " Y", strings.Repeat("Z", 64) + " X", strings.Repeat("-", 64) + " X; G9:+2", strings.Repeat("-", 64) + " X; G8:+200", strings.Repeat("-", 64) + " X; G8"} {
		if _, err := ParseOBF(bad); err == nil {
			t.Errorf("ParseOBF(%q) accepted", bad)
		}
	}
}

func TestNewStateErrors(t *testing.T) {
	g6 := mustGame(t, "othello:size=6")
	for _, tc := range []struct {
		black, white uint64
		player, n    int
	}{
		{1, 1, Black, 0},
		{1 << 6, 0, Black, 0},
		{0, 1 << 48, White, 0},
		{1, 2, 2, 0},
		{1, 2, Black, -1},
	} {
		if _, err := g6.NewState(tc.black, tc.white, tc.player, tc.n); err == nil {
			t.Errorf("NewState(%#x, %#x, %d, %d) accepted", tc.black, tc.white, tc.player, tc.n)
		}
	}
}

func TestEvaluate(t *testing.T) {
	g := mustGame(t, "othello")
	// Black holds three corners and more moves; white to move should see a
	// clearly negative score, black a clearly positive one.
	text := `
X X X . . . . X
X X . . . . . .
X . . O . . . .
. . . O O . . .
. . . X O O . .
. . . . . . . .
. . . . . . . .
X . . . . . . .`
	w := board(t, g, White, text)
	b := board(t, g, Black, text)
	if vw, vb := g.Evaluate(w), g.Evaluate(b); !(vw < -0.3 && vb > 0.3) {
		t.Errorf("Evaluate: white to move %.3f, black to move %.3f; want < -0.3 and > 0.3", vw, vb)
	}
	// Stable discs: the corner block a1..c1, a2..b2, a3 is stable, the lone
	// discs in the centre are not.
	st := g.stable(b.mover, b.mover|b.opp)
	wantStable := uint64(1<<0 | 1<<1 | 1<<2 | 1<<8 | 1<<9 | 1<<16 | 1<<7 | 1<<56)
	if st != wantStable {
		t.Errorf("stable = %#x, want %#x", st, wantStable)
	}
}

// TestEvaluateStrength checks that the heuristic carries information: a
// player taking the move with the best one-ply evaluation beats a uniformly
// random player in most games.
func TestEvaluateStrength(t *testing.T) {
	for _, spec := range []string{"othello", "othello:size=6"} {
		g := mustGame(t, spec)
		rng := rand.New(rand.NewPCG(5, 6))
		const n = 100
		wins := 0
		for i := 0; i < n; i++ {
			greedy := i % 2 // the greedy player's colour
			s := *g.NewInitialState().(*State)
			for !s.IsTerminal() {
				legal := s.LegalActions(nil)
				a := legal[rng.IntN(len(legal))]
				if s.CurrentPlayer() == greedy {
					best := 2.0
					for _, b := range legal {
						c := s
						c.ApplyAction(b)
						var v float64 // the opponent's view after b
						if c.IsTerminal() {
							v = -c.Returns()[greedy] * 2 // a win sorts first
						} else if c.CurrentPlayer() == greedy {
							v = -g.Evaluate(&c)
						} else {
							v = g.Evaluate(&c)
						}
						if v < best {
							best, a = v, b
						}
					}
				}
				s.ApplyAction(a)
			}
			if s.Returns()[greedy] > 0 {
				wins++
			}
		}
		if wins < 75 {
			t.Errorf("%s: one-ply heuristic player won %d of %d games against random, want >= 75", spec, wins, n)
		}
		t.Logf("%s: one-ply heuristic player won %d of %d games against random", spec, wins, n)
	}
}

// TestObservation: the three planes are the mover's discs, the opponent's
// and the mover's legal moves, square by square in action order, on
// random positions of both sizes (passes and ended games included).
func TestObservation(t *testing.T) {
	for _, spec := range []string{"othello", "othello:size=6"} {
		g := mustGame(t, spec)
		n := g.size * g.size
		dst := make([]float32, 3*n)
		for _, s := range randomPositions(g, 300, rand.New(rand.NewPCG(7, 8))) {
			for i := range dst {
				dst[i] = 7 // every value must be written
			}
			s.Observation(dst)
			legal := map[int]bool{}
			for _, a := range s.LegalActions(nil) {
				legal[a] = true
			}
			mover, opp := s.Boards()
			for a := range n {
				bit := uint64(1) << uint(g.sqOf[a])
				want := [3]bool{mover&bit != 0, opp&bit != 0, legal[a] && !s.IsTerminal()}
				for k, w := range want {
					if got := dst[k*n+a]; got != map[bool]float32{false: 0, true: 1}[w] {
						t.Fatalf("%s: plane %d, action %d: %v, want %v\\n%v", spec, k, a, got, w, s)
					}
				}
			}
		}
	}
}
