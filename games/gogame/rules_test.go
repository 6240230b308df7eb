package gogame_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gogame"
)

func mustGame(t testing.TB, size int, komi float64, maxMoves int) *gogame.Game {
	t.Helper()
	g, err := gogame.New(size, komi, maxMoves)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustText(t testing.TB, g *gogame.Game, text string, toMove int) *gogame.State {
	t.Helper()
	s, err := gogame.FromText(g, text, toMove)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// boardText renders just the points of s, one row a line, like FromText reads.
func boardText(s *gogame.State) string {
	g := s.Game().(*gogame.Game)
	var b strings.Builder
	for r := 0; r < g.Size(); r++ {
		for c := 0; c < g.Size(); c++ {
			b.WriteByte(".XO"[s.At(r*g.Size()+c)])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// normal reduces a board written in a test to boardText's form.
func normal(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if line = strings.Join(strings.Fields(line), ""); line != "" {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestMoves sets up a position, plays some moves through the checked path,
// then checks whether one more move is legal and, if so, the board after it.
func TestMoves(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		board  string
		toMove int
		before string // moves played first, GTP notation
		move   string
		legal  bool
		after  string // board after move when legal
	}{
		{
			name: "single capture in the centre", size: 5, toMove: 0, move: "C2", legal: true,
			board: `
				. . . . .
				. . X . .
				. X O X .
				. . . . .
				. . . . .`,
			after: `
				. . . . .
				. . X . .
				. X . X .
				. . X . .
				. . . . .`,
		},
		{
			name: "two-stone capture", size: 5, toMove: 0, move: "C3", legal: true,
			board: `
				. X X . .
				X O O X .
				. X . . .
				. . . . .
				. . . . .`,
			after: `
				. X X . .
				X . . X .
				. X X . .
				. . . . .
				. . . . .`,
		},
		{
			name: "four single stones captured at once", size: 5, toMove: 1, move: "C3", legal: true,
			board: `
				. . O . .
				. O X O .
				O X . X O
				. O X O .
				. . O . .`,
			after: `
				. . O . .
				. O . O .
				O . O . O
				. O . O .
				. . O . .`,
		},
		{
			name: "capture on the edge", size: 5, toMove: 0, move: "C4", legal: true,
			board: `
				. X O X .
				. . . . .
				. . . . .
				. . . . .
				. . . . .`,
			after: `
				. X . X .
				. . X . .
				. . . . .
				. . . . .
				. . . . .`,
		},
		{
			name: "capture in the corner", size: 5, toMove: 0, move: "B1", legal: true,
			board: `
				. . . . .
				. . . . .
				. . . . .
				X . . . .
				O . . . .`,
			after: `
				. . . . .
				. . . . .
				. . . . .
				X . . . .
				. X . . .`,
		},
		{
			name: "single-stone suicide", size: 5, toMove: 1, move: "A1", legal: false,
			board: `
				. . . . .
				. . . . .
				. . . . .
				X . . . .
				. X . . .`,
		},
		{
			name: "group suicide", size: 5, toMove: 1, move: "D4", legal: false,
			board: `
				X X X X .
				X O O . X
				X X X X .
				. . . . .
				. . . . .`,
		},
		{
			name: "filling the last liberty of a group with liberties elsewhere is fine", size: 5, toMove: 1, move: "D4", legal: true,
			board: `
				X X X X .
				. O O . X
				X X X X .
				. . . . .
				. . . . .`,
			after: `
				X X X X .
				. O O O X
				X X X X .
				. . . . .
				. . . . .`,
		},
		{
			name: "capture that looks like suicide", size: 5, toMove: 1, move: "A5", legal: true,
			board: `
				. X O . .
				X O . . .
				. . . . .
				. . . . .
				. . . . .`,
			after: `
				O . O . .
				X O . . .
				. . . . .
				. . . . .
				. . . . .`,
		},
		{
			name: "playing on a stone", size: 5, toMove: 0, move: "B4", legal: false,
			board: `
				. . . . .
				. O . . .
				. . . . .
				. . . . .
				. . . . .`,
		},
		{
			name: "simple ko: no immediate recapture", size: 5, toMove: 0, before: "C4", move: "B4", legal: false,
			board: `
				. X O . .
				X O . O .
				. X O . .
				. . . . .
				. . . . .`,
		},
		{
			name: "simple ko: recapture after a ko threat exchange", size: 5, toMove: 0, before: "C4 E1 A1", move: "B4", legal: true,
			board: `
				. X O . .
				X O . O .
				. X O . .
				. . . . .
				. . . . .`,
			after: `
				. X O . .
				X O . O .
				. X O . .
				. . . . .
				X . . . O`,
		},
		{
			// B1 B3 A2 B2 from the empty board makes this position; after
			// A3 A1 (white captures two), black A2 would take one stone back
			// and recreate it: send two, return one.
			name: "positional superko: send two, return one", size: 3, toMove: 0, before: "A3 A1", move: "A2", legal: false,
			board: `
				. O .
				X O .
				. X .`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGame(t, tc.size, 0.5, 0)
			s := mustText(t, g, tc.board, tc.toMove)
			if tc.before != "" {
				moves, err := g.ParseActions(tc.before)
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range moves {
					if err := games.Play(s, a); err != nil {
						t.Fatalf("setting up: %v", err)
					}
				}
			}
			a, err := g.ParseAction(tc.move)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.IsLegal(a); got != tc.legal {
				t.Fatalf("IsLegal(%s) = %v, want %v\n%s", tc.move, got, tc.legal, s)
			}
			inList := false
			for _, b := range s.LegalActions(nil) {
				inList = inList || b == a
			}
			if inList != tc.legal {
				t.Fatalf("LegalActions has %s: %v, want %v", tc.move, inList, tc.legal)
			}
			h := s.Hash()
			err = games.Play(s, a)
			if !tc.legal {
				if !errors.Is(err, games.ErrIllegalMove) {
					t.Fatalf("Play(%s) = %v, want ErrIllegalMove", tc.move, err)
				}
				if s.Hash() != h {
					t.Fatal("a refused move changed the state")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := boardText(s), normal(tc.after); got != want {
				t.Fatalf("after %s:\n%s\nwant\n%s", tc.move, got, want)
			}
			// The incremental hash must match a fresh set-up of the same board.
			fresh := mustText(t, g, boardText(s), s.CurrentPlayer())
			if fresh.BoardHash() != s.BoardHash() {
				t.Fatal("board hash after the move differs from that of the same board set up afresh")
			}
		})
	}
}

// TestSuperkoNeedsHistory checks that the superko case above is refused
// only because of the game's history, also through games.Replay and under
// every symmetry.
func TestSuperkoNeedsHistory(t *testing.T) {
	g := mustGame(t, 3, 0.5, 0)
	moves, err := g.ParseActions("B1 B3 A2 B2 A3 A1")
	if err != nil {
		t.Fatal(err)
	}
	s, err := games.Replay(g, moves)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := g.ParseAction("A2")
	if s.IsLegal(a) {
		t.Fatal("A2 should be refused by positional superko")
	}
	if _, err := games.Replay(g, append(moves, a)); !errors.Is(err, games.ErrIllegalMove) {
		t.Fatalf("Replay with the repeating move: %v, want ErrIllegalMove", err)
	}
	fresh := mustText(t, g, boardText(s.(*gogame.State)), 0)
	if !fresh.IsLegal(a) {
		t.Fatal("A2 should be legal on the same board without history")
	}
	for k := 0; k < g.NumSymmetries(); k++ {
		ts := g.TransformState(k, s)
		if ts.IsLegal(g.TransformAction(k, a)) {
			t.Errorf("symmetry %d: the mapped A2 is legal; TransformState lost the history", k)
		}
	}
}

// TestScore checks area scoring on finished boards, counted by hand.
func TestScore(t *testing.T) {
	split := `
		. X . O .
		. X . O .
		X X . O O
		. X . O .
		. X . O .`
	tests := []struct {
		name  string
		board string
		komi  float64
		want  float64 // black minus white minus komi
		ret   [2]float64
	}{
		// 6 stones + 4 territory each; column C touches both: neutral.
		{"even split, komi 0.5", split, 0.5, -0.5, [2]float64{-1, 1}},
		{"even split, komi 0 is a draw", split, 0, 0, [2]float64{0, 0}},
		{"even split, negative komi", split, -2, 2, [2]float64{1, -1}},
		{"empty board", ". . . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .", 7.5, -7.5, [2]float64{-1, 1}},
		{"one stone owns the board", ". . . . .\n. . . . .\n. . X . .\n. . . . .\n. . . . .", 7.5, 17.5, [2]float64{1, -1}},
		{
			// Black: 7 stones + A5 B5 A4 (3) = 10; white: 6 stones + E2 D1 E1
			// (3) = 9; D5 E5 D4 E4, B2 and A1 touch both colours: neutral.
			"territories and a neutral region",
			`
				. . X . .
				. X X . .
				X X X O O
				X . O O .
				. O O . .`, 0, 10 - 9, [2]float64{1, -1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGame(t, 5, tc.komi, 0)
			s := mustText(t, g, tc.board, 0)
			if got := s.Score(); got != tc.want {
				t.Fatalf("Score = %v, want %v", got, tc.want)
			}
			if r := s.Returns(); r != [2]float64{} {
				t.Fatalf("Returns before the end = %v", r)
			}
			for _, a := range []int{g.Pass(), g.Pass()} {
				if err := games.Play(s, a); err != nil {
					t.Fatal(err)
				}
			}
			if !s.IsTerminal() {
				t.Fatal("two passes did not end the game")
			}
			if got := s.Returns(); got != tc.ret {
				t.Fatalf("Returns = %v, want %v", got, tc.ret)
			}
		})
	}
}

// TestEndings checks the two ways a game ends and that the checked path
// refuses moves afterwards.
func TestEndings(t *testing.T) {
	g := mustGame(t, 5, 0.5, 3)
	if g.MaxGameLength() != 3 {
		t.Fatalf("MaxGameLength = %d", g.MaxGameLength())
	}
	t.Run("a pass in between does not end it", func(t *testing.T) {
		s, _, err := games.ParseAndReplay(g, "pass C3")
		if err != nil {
			t.Fatal(err)
		}
		if s.IsTerminal() {
			t.Fatal("terminal after pass C3")
		}
	})
	t.Run("two passes", func(t *testing.T) {
		s, _, err := games.ParseAndReplay(g, "C3 pass pass")
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsTerminal() || len(s.LegalActions(nil)) != 0 {
			t.Fatal("not over after two passes")
		}
		if r := s.Returns(); r != [2]float64{1, -1} {
			t.Fatalf("Returns = %v, want black to win with the only stone", r)
		}
	})
	t.Run("length cap", func(t *testing.T) {
		s, _, err := games.ParseAndReplay(g, "C3 D3 pass")
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsTerminal() {
			t.Fatal("not over at the cap")
		}
		// 1 stone each, empty region touches both: 0 - 0.5.
		if r := s.Returns(); r != [2]float64{-1, 1} {
			t.Fatalf("Returns = %v, want white to win by komi", r)
		}
		a, _ := g.ParseAction("A1")
		if err := games.Play(s, a); !errors.Is(err, games.ErrIllegalMove) {
			t.Fatalf("Play after the end: %v", err)
		}
	})
	t.Run("illegal moves through Replay", func(t *testing.T) {
		for _, text := range []string{"C3 C3", "C3 pass pass C2"} {
			if _, _, err := games.ParseAndReplay(g, text); !errors.Is(err, games.ErrIllegalMove) {
				t.Errorf("%q: %v, want ErrIllegalMove", text, err)
			}
		}
	})
}

func TestFromTextErrors(t *testing.T) {
	g := mustGame(t, 3, 0.5, 0)
	for _, tc := range []struct {
		name, text string
		toMove     int
	}{
		{"too few rows", "...\n...", 0},
		{"too many rows", "...\n...\n...\n...", 0},
		{"short row", "...\n..\n...", 0},
		{"bad character", "...\n.Z.\n...", 0},
		{"group without liberty", "XO.\nO..\n...", 0},
		{"bad player", "...\n...\n...", 2},
	} {
		if _, err := gogame.FromText(g, tc.text, tc.toMove); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, err := gogame.FromText(nil, "", 0); err == nil {
		t.Error("nil game: no error")
	}
}

func TestSpecs(t *testing.T) {
	for _, tc := range []struct {
		spec, name string
	}{
		{"go", "go:size=9,komi=7.5,max_moves=243"},
		{"go:size=5", "go:size=5,komi=7.5,max_moves=75"},
		{"go:size=19,komi=6.5", "go:size=19,komi=6.5,max_moves=1083"},
		{"go:komi=-3,size=2,max_moves=7", "go:size=2,komi=-3,max_moves=7"},
	} {
		g, err := games.New(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if g.Name() != tc.name {
			t.Errorf("%s: Name = %q, want %q", tc.spec, g.Name(), tc.name)
		}
	}
	for _, spec := range []string{"go:size=1", "go:size=20", "go:komi=NaN", "go:komi=inf", "go:komi=400.5", "go:max_moves=-1", "go:size=2,max_moves=81", "go:size=x", "go:depth=3"} {
		if _, err := games.New(spec); err == nil {
			t.Errorf("%s: no error", spec)
		}
	}
}

func TestNotation(t *testing.T) {
	g9 := mustGame(t, 9, 7.5, 0)
	g19 := mustGame(t, 19, 7.5, 0)
	for _, tc := range []struct {
		g      *gogame.Game
		text   string
		row    int // from the top; -1 for pass
		col    int
		errors bool
	}{
		{g9, "A1", 8, 0, false},
		{g9, "a9", 0, 0, false},
		{g9, "J9", 0, 8, false},
		{g9, "E5", 4, 4, false},
		{g9, "pass", -1, 0, false},
		{g9, "PASS", -1, 0, false},
		{g19, "T19", 0, 18, false},
		{g19, "K10", 9, 9, false},
		{g9, "I5", 0, 0, true},
		{g9, "K5", 0, 0, true},
		{g9, "A0", 0, 0, true},
		{g9, "A10", 0, 0, true},
		{g9, "A01", 0, 0, true},
		{g9, "A", 0, 0, true},
		{g9, "5A", 0, 0, true},
		{g9, "", 0, 0, true},
		{g9, "A1x", 0, 0, true},
	} {
		a, err := tc.g.ParseAction(tc.text)
		if tc.errors {
			if err == nil {
				t.Errorf("ParseAction(%q) = %d, want an error", tc.text, a)
			}
			continue
		}
		want := tc.g.Pass()
		if tc.row >= 0 {
			want = tc.row*tc.g.Size() + tc.col
		}
		if err != nil || a != want {
			t.Errorf("ParseAction(%q) = %d, %v; want %d", tc.text, a, err, want)
		}
	}
	got, err := g9.ParseActions(" D4,C3  pass\tJ9\n")
	if err != nil {
		t.Fatal(err)
	}
	if text := g9.FormatActions(got); text != "D4 C3 pass J9" {
		t.Fatalf("round trip gave %q", text)
	}
	if _, err := g9.ParseActions("D4 Z9"); err == nil {
		t.Fatal("ParseActions accepted Z9")
	}
}

// TestSymmetryMapsPoints checks the symmetries on named points: they map the
// corners onto corners and the centre onto itself.
func TestSymmetryMapsPoints(t *testing.T) {
	g := mustGame(t, 9, 7.5, 0)
	corners := map[string]bool{"A1": true, "A9": true, "J1": true, "J9": true}
	images := map[string]bool{}
	a1, _ := g.ParseAction("A1")
	e5, _ := g.ParseAction("E5")
	c3, _ := g.ParseAction("C3")
	c3images := map[int]bool{}
	for k := 0; k < g.NumSymmetries(); k++ {
		images[g.FormatAction(g.TransformAction(k, a1))] = true
		if g.TransformAction(k, e5) != e5 {
			t.Errorf("symmetry %d moves the centre", k)
		}
		if g.TransformAction(k, g.Pass()) != g.Pass() {
			t.Errorf("symmetry %d moves pass", k)
		}
		c3images[g.TransformAction(k, c3)] = true
	}
	for c := range corners {
		if !images[c] {
			t.Errorf("no symmetry maps A1 to %s (images %v)", c, images)
		}
	}
	if len(c3images) != 4 {
		t.Errorf("C3 has %d images, want 4 (C3 C7 G3 G7 lie on diagonals)", len(c3images))
	}
}

func TestEvaluate(t *testing.T) {
	g := mustGame(t, 5, 0.5, 0)
	s := mustText(t, g, ". . . . .\n. . . . .\n. . X . .\n. . . . .\n. . . . .", 0)
	if v := g.Evaluate(s); !(v > 0.5 && v < 1) {
		t.Errorf("black owning the board, black to move: %v", v)
	}
	s = mustText(t, g, ". . . . .\n. . . . .\n. . X . .\n. . . . .\n. . . . .", 1)
	if v := g.Evaluate(s); !(v < -0.5 && v > -1) {
		t.Errorf("black owning the board, white to move: %v", v)
	}
	big := mustGame(t, 19, -400, 0)
	full := strings.Repeat(strings.Repeat("X", 18)+".\n", 19)
	s = mustText(t, big, full, 0)
	if v := big.Evaluate(s); !(v > 0.95 && v < 1) || math.IsNaN(v) {
		t.Errorf("extreme lead: %v, want strictly inside (0.95, 1)", v)
	}
}

func TestString(t *testing.T) {
	g := mustGame(t, 3, 0.5, 0)
	s := mustText(t, g, "X..\n.O.\n...", 1)
	want := "    A B C\n  3 X . . 3\n  2 . O . 2\n  1 . . . 1\n    A B C\nwhite to move, move 0, komi 0.5\n"
	if got := s.String(); got != want {
		t.Fatalf("String:\n%q\nwant\n%q", got, want)
	}
}

// TestHashContents checks what Hash covers: the board, the player to move
// and the last three boards, but not older history. (A pending pass always
// shows in the history too: the previous board equals the current one.)
func TestHashContents(t *testing.T) {
	g := mustGame(t, 9, 7.5, 0)
	hash := func(moves string) uint64 {
		t.Helper()
		s, _, err := games.ParseAndReplay(g, moves)
		if err != nil {
			t.Fatal(err)
		}
		return s.Hash()
	}
	for _, tc := range []struct {
		a, b  string
		equal bool
	}{
		// Same board and same three earlier boards: a transposition.
		{"A1 B1 A2 B2 C3 D3 C4", "A2 B2 A1 B1 C3 D3 C4", true},
		// Same board, but the board three moves ago differs.
		{"A1 B1 A2 B2 C3", "A2 B2 A1 B1 C3", false},
		// Same board, other player to move.
		{"A1 B1 pass", "A1 B1", false},
	} {
		if got := hash(tc.a) == hash(tc.b); got != tc.equal {
			t.Errorf("hash(%q) == hash(%q) is %v, want %v", tc.a, tc.b, got, tc.equal)
		}
	}
}

// TestNoAllocations checks that the hot path allocates nothing once a state
// exists: LegalActions into a buffer, IsLegal, ApplyAction, Observation,
// Score and resetting with CopyFrom.
func TestNoAllocations(t *testing.T) {
	g := mustGame(t, 9, 7.5, 0)
	root := g.NewInitialState().(*gogame.State)
	s := root.Clone().(*gogame.State)
	buf := make([]int, 0, g.NumActions())
	obs := make([]float32, gogame.NumPlanes*81)
	i := 0
	allocs := testing.AllocsPerRun(50, func() {
		s.CopyFrom(root)
		for !s.IsTerminal() {
			buf = s.LegalActions(buf)
			a := buf[(i*7919)%len(buf)]
			i++
			if a == g.Pass() && len(buf) > 1 {
				a = buf[0]
			}
			if !s.IsLegal(a) {
				t.Fatal("legal action refused")
			}
			s.ApplyAction(a)
			s.Observation(obs)
		}
		_ = s.Score()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per game", allocs)
	}
}

// TestEndingAction: a pass answering a pass ends the game, so after one pass
// the pass is the ending action; otherwise there is none, and at the move
// limit's last move (every move ends the game there) none is named.
func TestEndingAction(t *testing.T) {
	g := mustGame(t, 5, 7, 6)
	s := g.NewInitialState().(*gogame.State)
	check := func(want int) {
		t.Helper()
		if got := s.EndingAction(); got != want {
			t.Fatalf("after %d moves: EndingAction = %d, want %d", s.MoveNumber(), got, want)
		}
	}
	check(-1)
	for _, m := range []struct{ a, want int }{
		{g.Pass(), g.Pass()}, // one pass: passing again ends the game
		{12, -1},             // a stone: no
		{g.Pass(), g.Pass()}, // pass again
		{13, -1},
		{g.Pass(), -1}, // five moves of six: every move ends the game now
	} {
		if err := games.Play(s, m.a); err != nil {
			t.Fatal(err)
		}
		check(m.want)
	}
	// A pass answering the pass ends the game, as EndingAction said.
	s2 := g.NewInitialState()
	for _, a := range []int{g.Pass(), g.Pass()} {
		if err := games.Play(s2, a); err != nil {
			t.Fatal(err)
		}
	}
	if !s2.IsTerminal() {
		t.Fatal("the ending action did not end the game")
	}
}
