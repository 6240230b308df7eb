package games_test

import (
	"errors"
	"strings"
	"testing"

	"tabula/games"
)

// board is a minimal Game used to test the registry and the checked path.
type board struct{ size int }

func (b board) Name() string                       { return "regtest:size=" + string(rune('0'+b.size)) }
func (b board) NumActions() int                    { return b.size }
func (b board) ObservationShape() (int, int, int)  { return 1, 1, b.size }
func (b board) MaxGameLength() int                 { return b.size }
func (b board) NewInitialState() games.State       { return &line{g: b} }
func (b board) FormatAction(a int) string          { return string(rune('a' + a)) }
func (b board) FormatActions(as []int) string      { return "" }
func (b board) ParseActions(string) ([]int, error) { return nil, nil }
func (b board) ParseAction(t string) (int, error) {
	if len(t) != 1 {
		return 0, errors.New("bad")
	}
	return int(t[0] - 'a'), nil
}

// line: players take turns filling cells of a 1-row board; the game ends when it is full.
type line struct {
	g    board
	used uint32
	n    int
}

func (s *line) Game() games.Game   { return s.g }
func (s *line) CurrentPlayer() int { return s.n % 2 }
func (s *line) LegalActions(buf []int) []int {
	buf = buf[:0]
	for a := 0; a < s.g.size; a++ {
		if s.IsLegal(a) {
			buf = append(buf, a)
		}
	}
	return buf
}
func (s *line) IsLegal(a int) bool        { return a >= 0 && a < s.g.size && s.used&(1<<a) == 0 }
func (s *line) ApplyAction(a int)         { s.used |= 1 << a; s.n++ }
func (s *line) IsTerminal() bool          { return s.n == s.g.size }
func (s *line) Returns() [2]float64       { return [2]float64{} }
func (s *line) Observation(dst []float32) {}
func (s *line) Clone() games.State        { c := *s; return &c }
func (s *line) Hash() uint64              { return uint64(s.used) }
func (s *line) MoveNumber() int           { return s.n }
func (s *line) String() string            { return "" }

func init() {
	games.Register("regtest", "registry test game", []games.Param{
		{Name: "size", Default: "3", Doc: "cells, 1..9"},
		{Name: "komi", Default: "0.5", Doc: "a number"},
	}, func(p games.Params) (games.Game, error) {
		n, err := p.Int("size")
		if err != nil {
			return nil, err
		}
		if _, err := p.Float("komi"); err != nil {
			return nil, err
		}
		if n < 1 || n > 9 {
			return nil, errors.New("regtest: size must be 1..9")
		}
		return board{n}, nil
	})
}

func TestNew(t *testing.T) {
	g, err := games.New("regtest:size=5")
	if err != nil || g.NumActions() != 5 {
		t.Fatalf("New(regtest:size=5) = %v, %v", g, err)
	}
	g, err = games.New(" regtest ")
	if err != nil || g.NumActions() != 3 {
		t.Fatalf("default size: %v, %v", g, err)
	}
	bad := []struct{ spec, want string }{
		{"nosuchgame", "valid games:"},
		{"regtest:colour=red", `no parameter "colour"; valid: size`},
		{"regtest:size", "not of the form key=value"},
		{"regtest:size=", "not of the form key=value"},
		{"regtest:size=x", `size="x" is not an integer`},
		{"regtest:komi=abc", `komi="abc" is not a number`},
		{"regtest:size=3,size=4", "given twice"},
		{"regtest:size=12", "size must be 1..9"},
	}
	for _, c := range bad {
		if _, err := games.New(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q) error = %v, want one containing %q", c.spec, err, c.want)
		}
	}
	found := false
	for _, n := range games.Names() {
		found = found || n == "regtest"
	}
	if !found || !strings.Contains(games.Describe(), "size (default 3)") {
		t.Errorf("Names/Describe do not list regtest: %v", games.Names())
	}
}

func TestPlayRefusesIllegalMoves(t *testing.T) {
	g := board{3}
	s := g.NewInitialState()
	if err := games.Play(s, 1); err != nil {
		t.Fatal(err)
	}
	for _, a := range []int{1, -1, 3} {
		err := games.Play(s, a)
		if !errors.Is(err, games.ErrIllegalMove) {
			t.Errorf("Play(%d) = %v, want ErrIllegalMove", a, err)
		}
	}
	if s.MoveNumber() != 1 {
		t.Fatalf("refused moves changed the state")
	}
	if err := games.Play(s, 1); err == nil || !strings.Contains(err.Error(), "illegal move: b is not legal here; legal moves: a c") {
		t.Errorf("error %v does not name the move in notation and list the legal ones", err)
	}
	if _, err := games.Replay(g, []int{0, 0}); err == nil || !strings.Contains(err.Error(), "move 2") {
		t.Errorf("Replay error %v does not name move 2", err)
	}
	s, _ = games.Replay(g, []int{0, 1, 2})
	if err := games.Play(s, 0); err == nil || !strings.Contains(err.Error(), "game is over") {
		t.Errorf("Play after the end: %v", err)
	}
}

func FuzzNew(f *testing.F) {
	for _, s := range []string{"regtest", "regtest:size=4,komi=1", "x:y", ":", "regtest:,", "regtest:size=1=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		g, err := games.New(spec)
		if err == nil && g == nil {
			t.Fatalf("New(%q) returned nil game and nil error", spec)
		}
	})
}
