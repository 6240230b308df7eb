package gtp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	_ "tabula/games/othello"
	"tabula/internal/version"
)

// firstLegal plays the first legal action; it counts its calls and can be
// made to fail or to choose an illegal move.
type firstLegal struct {
	calls   int
	fail    bool
	illegal bool
	synced  []int
}

func (f *firstLegal) ChooseAction(_ context.Context, s games.State) (int, error) {
	f.calls++
	if f.fail {
		return 0, errors.New("out of ideas")
	}
	legal := s.LegalActions(nil)
	if f.illegal {
		return -1, nil
	}
	return legal[0], nil
}

func (f *firstLegal) Sync(actions []int) { f.synced = append(f.synced[:0], actions...) }

func newTestEngine(t *testing.T, spec string, ch *firstLegal) *Engine {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(DefaultEngineConfig(), g, func(games.Game) (Chooser, error) { return ch, nil })
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// session runs script through Engine.Run and returns the responses.
func session(t *testing.T, e *Engine, script string) []string {
	t.Helper()
	var out strings.Builder
	if err := e.Run(context.Background(), strings.NewReader(script), &out); err != nil {
		t.Fatalf("Run: %v", err)
	}
	resps := strings.Split(strings.TrimSuffix(out.String(), "\n\n"), "\n\n")
	if out.Len() == 0 {
		resps = nil
	}
	return resps
}

func TestEngineScripts(t *testing.T) {
	cases := []struct {
		name   string
		game   string
		script string
		want   []string // responses in order; a trailing "*" matches any rest
	}{
		{"ids echoed and basics", "go:size=9", "1 protocol_version\n2 name\n3 version\n4 known_command play\n5 known_command frobnicate\n",
			[]string{"=1 2", "=2 tabula", "=3 " + version.Revision(), "=4 true", "=5 false"}},
		{"comments, blank lines, tabs, CR", "go:size=9", "# a comment\n\n  name\t# trailing\r\n\x01version\n",
			[]string{"= tabula", "= " + version.Revision()}},
		{"unknown command", "go:size=9", "frobnicate\n12 frobnicate a b\n",
			[]string{"? unknown command", "?12 unknown command"}},
		{"id without command", "go:size=9", "42\n", []string{"?42 syntax error: an id without a command"}},
		{"malformed moves", "go:size=9", "play b Z9\nplay b D0\nplay b D10\nplay x D4\nplay b\nplay b D4 E5\nplay b I5\n", []string{
			`? syntax error: invalid coordinate: go move "Z9": column "Z" is not one of ABCDEFGHJ`,
			`? syntax error: invalid coordinate: go move "D0": row "0" is not a number 1..9`,
			`? syntax error: invalid coordinate: go move "D10": row 10 out of range 1..9`,
			`? syntax error: invalid color "x": want b, black, w or white`,
			"? syntax error: play takes 2 argument(s), got 1",
			"? syntax error: play takes 2 argument(s), got 3",
			`? syntax error: invalid coordinate: go move "I5": column "I" is not one of ABCDEFGHJ`,
		}},
		{"illegal moves", "go:size=5", "play b C3\nplay w C3\nplay b B3\nplay w A1\nplay b A2\nplay w B1\nplay b B1\n", []string{
			"= ", "? illegal move: C3 is not legal here; legal moves: A5 B5 C5 D5 E5 A4 B4 C4 D4 E4 A3 B3 D3 E3 A2 B2 C2 D2 E2 A1 and 5 more",
			"= ", "= ", "= ", "= ",
			"? illegal move: B1 is not legal here; legal moves: A5 B5 C5 D5 E5 A4 B4 C4 D4 E4 A3 D3 E3 B2 C2 D2 E2 C1 D1 E1 and 1 more",
		}},
		{"suicide is illegal", "go:size=5", "play b A2\nplay w C3\nplay b B1\nplay w A1\n", []string{"= ", "= ", "= ",
			"? illegal move: A1 is not legal here; legal moves: A5 B5 C5 D5 E5 A4 B4 C4 D4 E4 A3 B3 D3 E3 B2 C2 D2 E2 C1 D1 and 2 more"}},
		{"lower case and colour words", "go:size=9", "play BLACK d4\nplay White e5\nplay b PASS\n", []string{"= ", "= ", "= "}},
		{"out-of-turn moves get a pass", "go:size=9", "play b D4\nplay b E5\nshowboard\n", []string{"= ", "= ", "*"}},
		{"genmove plays", "go:size=9", "genmove b\nplay b A9\nplay w A9\n", []string{"= A9",
			"? illegal move: A9 is not legal here; legal moves: B9 C9 D9 E9 F9 G9 H9 J9 A8 B8 C8 D8 E8 F8 G8 H8 J8 A7 B7 C7 and 61 more",
			"? illegal move: A9 is not legal here; legal moves: B9 C9 D9 E9 F9 G9 H9 J9 A8 B8 C8 D8 E8 F8 G8 H8 J8 A7 B7 C7 and 61 more"}},
		{"undo", "go:size=9", "undo\nplay b A9\nundo\nplay w A9\nundo\nundo\n", []string{"? cannot undo: no move to undo", "= ", "= ", "= ", "= ", "? cannot undo: no move to undo"}},
		{"boardsize and komi", "go:size=9", "boardsize 1\nboardsize 25\nboardsize x\nkomi x\nkomi 1e9\nboardsize 7\nkomi 0.5\nplay b G7\nplay w H1\nfinal_score\n", []string{
			"? unacceptable size: game go: parameter size=1 out of range 2..19",
			"? unacceptable size: game go: parameter size=25 out of range 2..19",
			`? syntax error: board size "x" is not an integer`,
			`? syntax error: komi "x" is not a number`,
			"? syntax error: game go: parameter komi=1e+09 out of range -400..400",
			"= ", "= ", "= ",
			`? syntax error: invalid coordinate: go move "H1": column "H" is not one of ABCDEFG`,
			"= B+48.5",
		}},
		{"final score", "go:size=5,komi=2.5", "final_score\nplay b C3\nfinal_score\nplay w B2\nfinal_score\n", []string{"= W+2.5", "= ", "= B+22.5", "= ", "= W+2.5"}},
		{"play after two passes continues", "go:size=5,komi=0", "play b pass\nplay w pass\nplay b C3\nplay w pass\nplay b pass\nfinal_score\nplay w B2\nundo\nundo\nfinal_score\n", []string{
			"= ", "= ", "= ", "= ", "= ", "= B+25", "= ", "= ", "= ", "= B+25",
		}},
		{"oversized command", "go:size=9", "5 play b " + strings.Repeat("A", 70000) + "\n" + strings.Repeat("#", 100000) + "\nname\n",
			[]string{"?5 syntax error: command longer than 65536 bytes", "= tabula"}},
		{"quit answers then stops", "go:size=9", "name\n3 quit\nname\n", []string{"= tabula", "=3 "}},
		{"othello", "othello:size=8", "boardsize 8\nclear_board\nkomi 0\nkomi 2\nplay b a1\nplay b f5\nplay w F6\nplay b pass\nplay w e6\nfinal_score\nboardsize 6\nboardsize 10\n", []string{
			"= ", "= ", "= ", "= ", "? illegal move: a1 is not legal here; legal moves: d3 c4 f5 e6", "= ", "= ",
			"? illegal move: pass is not legal here; legal moves: d3 c4 e6 f7", "? illegal move: it is black's turn", "= 0", "= ",
			"? unacceptable size: game othello: parameter size=10 must be 6 or 8",
		}},
		{"othello malformed", "othello:size=8", "play b i1\nplay b a9\nplay b f55\nplay b 5f\n", []string{
			`? syntax error: invalid coordinate: othello move at "i1": column 'i' is not in a..h`,
			`? syntax error: invalid coordinate: othello move at "a9": row '9' is not in 1..8`,
			`? syntax error: invalid coordinate: othello move "f55": want a column letter and a row number (e.g. f5) or pass`,
			`? syntax error: invalid coordinate: othello move at "5f": column '5' is not in a..h`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEngine(t, c.game, &firstLegal{})
			got := session(t, e, c.script)
			for i, w := range c.want {
				if w == "*" {
					return
				}
				if i >= len(got) {
					t.Fatalf("response %d missing; got %q", i+1, got)
				}
				if got[i] != w {
					t.Errorf("response %d = %q, want %q", i+1, got[i], w)
				}
			}
			if len(got) != len(c.want) {
				t.Errorf("got %d responses %q, want %d", len(got), got, len(c.want))
			}
		})
	}
}

func TestEngineOutOfTurnAndSync(t *testing.T) {
	ch := &firstLegal{}
	e := newTestEngine(t, "go:size=9", ch)
	got := session(t, e, "play b D4\nplay b E5\ngenmove b\n")
	g := e.Position().Dialect()
	want := []int{mustParse(t, g, "D4"), g.Pass(), mustParse(t, g, "E5"), g.Pass()}
	if got[2] != "= A9" {
		t.Fatalf("genmove = %q", got[2])
	}
	if fmt.Sprint(ch.synced) != fmt.Sprint(want) {
		t.Errorf("synced %v, want %v (passes inserted for the colour not given)", ch.synced, want)
	}
}

func mustParse(t *testing.T, d *Dialect, v string) int {
	t.Helper()
	a, err := d.ParseMove(v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestEngineChooserErrors(t *testing.T) {
	e := newTestEngine(t, "go:size=9", &firstLegal{fail: true})
	if got := session(t, e, "genmove w\nshowboard\n"); got[0] != "? cannot generate a move: out of ideas" {
		t.Errorf("failing chooser: %q", got[0])
	}
	e = newTestEngine(t, "go:size=9", &firstLegal{illegal: true})
	got := session(t, e, "genmove b\nfinal_score\n")
	if !strings.HasPrefix(got[0], "? cannot generate a move: the player chose ?-1: illegal move") {
		t.Errorf("illegal choice: %q", got[0])
	}
	if got[1] != "= W+7.5" {
		t.Errorf("the illegal choice changed the game: %q", got[1])
	}
	// A game over: Othello with no moves left.
	e = newTestEngine(t, "othello:size=6", &firstLegal{})
	session(t, e, strings.Repeat("genmove b\ngenmove w\n", 40))
	if got := session(t, e, "genmove b\n"); !strings.Contains(got[0], "the game is over") {
		t.Errorf("genmove at the end: %q", got[0])
	}
}

func TestEngineWrongGame(t *testing.T) {
	_, err := NewEngine(DefaultEngineConfig(), mustGame(t, "connect4"), func(games.Game) (Chooser, error) { return &firstLegal{}, nil })
	if err == nil || !strings.Contains(err.Error(), "game connect4 has no GTP dialect: GTP plays go and othello") {
		t.Errorf("connect4: %v", err)
	}
	g, _ := games.New("go:size=9")
	_, err = NewEngine(EngineConfig{Name: "a\nb"}, g, func(games.Game) (Chooser, error) { return &firstLegal{}, nil })
	if err == nil {
		t.Error("a name with a newline was accepted")
	}
	_, err = NewEngine(DefaultEngineConfig(), g, func(games.Game) (Chooser, error) { return nil, errors.New("no such net") })
	if err == nil || !strings.Contains(err.Error(), "no such net") {
		t.Errorf("builder error: %v", err)
	}
}

func TestEngineBoardsizeKeepsMoves(t *testing.T) {
	e := newTestEngine(t, "go:size=9", &firstLegal{})
	session(t, e, "play b A1\nplay w B2\nplay b H8\nboardsize 9\n")
	if n := len(e.Position().Moves()); n != 3 {
		t.Errorf("boardsize 9 kept %d moves, want 3", n)
	}
	session(t, e, "boardsize 7\n") // H8 is off a 7x7 board
	if n := len(e.Position().Moves()); n != 2 {
		t.Errorf("boardsize 7 kept %d moves, want 2 (A1 B2)", n)
	}
	session(t, e, "komi 3\n")
	if n, k := len(e.Position().Moves()), e.Position().Dialect().Komi(); n != 2 || k != 3 {
		t.Errorf("komi 3: %d moves, komi %v", n, k)
	}
}

func TestParseCommandAndResponses(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
		want string
	}{
		{"", false, ""}, {"   # only a comment", false, ""}, {"7 genmove b", true, "7 genmove b"},
		{"genmove\tb  ", true, "genmove b"}, {"-3 name", true, "-3 name"},
	} {
		cmd, ok, err := ParseCommand(c.line)
		if err != nil || ok != c.ok || (ok && cmd.String() != c.want) {
			t.Errorf("ParseCommand(%q) = %q, %v, %v", c.line, cmd.String(), ok, err)
		}
	}
	rr := NewResponseReader(strings.NewReader("=1 D4\n\n\n? illegal move\n\n= \nline one\nline two\n\n=2"))
	for _, want := range []Response{{true, 1, true, "D4"}, {false, 0, false, "illegal move"}, {true, 0, false, "line one\nline two"}} {
		r, err := rr.Read()
		if err != nil || r != want {
			t.Errorf("Read = %+v, %v; want %+v", r, err, want)
		}
	}
	if _, err := rr.Read(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated response: %v", err)
	}
	if _, err := NewResponseReader(strings.NewReader("hello\n\n")).Read(); err == nil {
		t.Error("a response without = or ? was accepted")
	}
	for text, want := range map[string]float64{"B+3.5": 3.5, "W+2": -2, "0": 0, "w+0.5": -0.5, "Draw": 0} {
		if got, err := ParseScore(text); err != nil || got != want {
			t.Errorf("ParseScore(%q) = %v, %v", text, got, err)
		}
	}
	for _, bad := range []string{"", "B+", "X+3", "B3", "B+x"} {
		if _, err := ParseScore(bad); err == nil {
			t.Errorf("ParseScore(%q) accepted", bad)
		}
	}
}

func mustGame(t *testing.T, spec string) games.Game {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// closingChooser counts its Close calls.
type closingChooser struct {
	firstLegal
	closed *int
}

func (c *closingChooser) Close() error { *c.closed++; return nil }

func TestEngineRebuildsPlayerOnlyForANewGame(t *testing.T) {
	built, closed := 0, 0
	e, err := NewEngine(DefaultEngineConfig(), mustGame(t, "go:size=9"), func(games.Game) (Chooser, error) {
		built++
		return &closingChooser{closed: &closed}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	session(t, e, "boardsize 9\nclear_board\nkomi 7.5\nboardsize 9\n")
	if built != 1 || closed != 0 {
		t.Errorf("the same game again: built %d, closed %d; want 1, 0", built, closed)
	}
	session(t, e, "boardsize 7\nkomi 9\n")
	if built != 3 || closed != 2 {
		t.Errorf("two new games: built %d, closed %d; want 3, 2", built, closed)
	}
	e.Close()
	if closed != 3 {
		t.Errorf("after Close: closed %d, want 3", closed)
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 5000)
	lr := NewLineReader(strings.NewReader("a\r\n\n"+long+"\nb\nlast"), 100)
	type got struct {
		line    string
		tooLong bool
	}
	want := []got{{"a", false}, {"", false}, {long[:100], true}, {"b", false}, {"last", false}}
	for i, w := range want {
		line, tooLong, err := lr.Next()
		if err != nil || line != w.line || tooLong != w.tooLong {
			t.Errorf("line %d: %q (%d bytes), %v, %v; want %d bytes, %v", i, clip(line), len(line), tooLong, err, len(w.line), w.tooLong)
		}
	}
	if _, _, err := lr.Next(); err != io.EOF {
		t.Errorf("after the last line: %v, want EOF", err)
	}
}
