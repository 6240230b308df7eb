package gamestest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"tabula/games"
)

// tictactoe is a small complete game used to test the checker itself; the
// broken field makes it violate one rule on purpose.
type tictactoe struct{ broken string }

func (g *tictactoe) Name() string {
	if g.broken != "" {
		return "ttt-" + g.broken
	}
	return "ttt"
}
func (g *tictactoe) NumActions() int                      { return 9 }
func (g *tictactoe) ObservationShape() (int, int, int)    { return 2, 3, 3 }
func (g *tictactoe) MaxGameLength() int                   { return 9 }
func (g *tictactoe) NewInitialState() games.State         { return &tttState{g: g} }
func (g *tictactoe) FormatAction(a int) string            { return strconv.Itoa(a + 1) }
func (g *tictactoe) FormatActions(as []int) string        { return fmtActions(g, as) }
func (g *tictactoe) ParseActions(t string) ([]int, error) { return parseActions(g, t) }
func (g *tictactoe) ParseAction(t string) (int, error) {
	n, err := strconv.Atoi(t)
	if err != nil || n < 1 || n > 9 {
		return 0, fmt.Errorf("bad move %q", t)
	}
	return n - 1, nil
}

func fmtActions(g *tictactoe, as []int) string {
	var b strings.Builder
	for _, a := range as {
		b.WriteString(g.FormatAction(a))
	}
	return b.String()
}

func parseActions(g *tictactoe, t string) ([]int, error) {
	var as []int
	for _, r := range t {
		a, err := g.ParseAction(string(r))
		if err != nil {
			return nil, err
		}
		as = append(as, a)
	}
	return as, nil
}

// Symmetries: identity and the left-right mirror.
func (g *tictactoe) NumSymmetries() int { return 2 }
func (g *tictactoe) Inverse(k int) int  { return k }
func (g *tictactoe) TransformAction(k, a int) int {
	if k == 0 {
		return a
	}
	return a/3*3 + 2 - a%3
}
func (g *tictactoe) TransformObservation(k int, dst, src []float32) {
	for p := 0; p < 2; p++ {
		for a := 0; a < 9; a++ {
			dst[p*9+g.TransformAction(k, a)] = src[p*9+a]
		}
	}
}
func (g *tictactoe) TransformState(k int, s games.State) games.State {
	t := s.(*tttState)
	u := &tttState{g: g, moves: t.moves}
	for a := 0; a < 9; a++ {
		u.cells[g.TransformAction(k, a)] = t.cells[a]
	}
	return u
}

type tttState struct {
	g     *tictactoe
	cells [9]int8 // 0 empty, 1 first player, 2 second
	moves int
}

var lines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

func (s *tttState) Game() games.Game   { return s.g }
func (s *tttState) CurrentPlayer() int { return s.moves % 2 }
func (s *tttState) winner() int8 {
	for _, l := range lines {
		if c := s.cells[l[0]]; c != 0 && c == s.cells[l[1]] && c == s.cells[l[2]] {
			return c
		}
	}
	return 0
}
func (s *tttState) IsTerminal() bool { return s.winner() != 0 || s.moves == 9 }
func (s *tttState) LegalActions(buf []int) []int {
	buf = buf[:0]
	if s.IsTerminal() {
		return buf
	}
	for a, c := range s.cells {
		if c == 0 {
			buf = append(buf, a)
		}
	}
	if s.g.broken == "extra-legal" && s.moves > 0 {
		buf = append(buf[:0], 0, 1, 2, 3, 4, 5, 6, 7, 8)
	}
	return buf
}
func (s *tttState) IsLegal(a int) bool {
	return a >= 0 && a < 9 && s.cells[a] == 0 && !s.IsTerminal()
}
func (s *tttState) ApplyAction(a int) {
	s.cells[a] = int8(s.moves%2 + 1)
	s.moves++
}
func (s *tttState) Returns() [2]float64 {
	switch s.winner() {
	case 1:
		return [2]float64{1, -1}
	case 2:
		if s.g.broken == "returns" {
			return [2]float64{-1, -1}
		}
		return [2]float64{-1, 1}
	}
	return [2]float64{}
}
func (s *tttState) Observation(dst []float32) {
	me := int8(s.moves%2 + 1)
	for a, c := range s.cells {
		dst[a], dst[9+a] = 0, 0
		if c == me {
			dst[a] = 1
		} else if c != 0 {
			dst[9+a] = 1
		}
	}
	if s.g.broken == "observation" && s.moves == 2 {
		dst[0] += 1
	}
}
func (s *tttState) Clone() games.State {
	c := *s
	if s.g.broken == "clone" {
		return s
	}
	return &c
}
func (s *tttState) Hash() uint64 {
	h := uint64(s.moves % 2)
	for _, c := range s.cells {
		h = h*3 + uint64(c)
	}
	return h
}
func (s *tttState) MoveNumber() int { return s.moves }
func (s *tttState) String() string  { return fmt.Sprint(s.cells) }

func init() {
	for _, b := range []string{"", "extra-legal", "returns", "observation", "clone"} {
		g := &tictactoe{broken: b}
		games.Register(g.Name(), "test game", nil, func(games.Params) (games.Game, error) { return g, nil })
	}
}

func TestCheckPassesOnCorrectGame(t *testing.T) {
	Check(t, &tictactoe{}, Config{Games: 300, Seed: 1, Transpositions: true, SymmetryRate: 1})
}

func TestCheckCatchesBrokenGames(t *testing.T) {
	for _, b := range []string{"extra-legal", "returns", "observation", "clone"} {
		t.Run(b, func(t *testing.T) {
			err := verify(&tictactoe{broken: b}, Config{Games: 300, Seed: 1, SymmetryRate: 1})
			if err == nil {
				t.Fatalf("a game broken by %q passed the checker", b)
			}
			t.Logf("caught: %v", err)
		})
	}
}

// CopyFrom makes s a copy of src; the "copy" variant forgets the move count.
func (s *tttState) CopyFrom(src games.State) {
	*s = *src.(*tttState)
	if s.g.broken == "copy" {
		s.moves = 0
	}
}

func TestCheckCopier(t *testing.T) {
	CheckCopier(t, &tictactoe{}, &tttState{g: &tictactoe{}}, Config{Games: 100, Seed: 1})
	broken := &tictactoe{broken: "copy"}
	err := verifyCopier(broken, &tttState{g: broken}, Config{Games: 100, Seed: 1})
	if err == nil {
		t.Fatal("a CopyFrom that forgets the move count passed CheckCopier")
	}
	t.Logf("caught: %v", err)
}

// lossyNotation writes every move sequence as the empty one.
type lossyNotation struct{ *tictactoe }

func (lossyNotation) FormatActions([]int) string { return "" }

func TestCheckParse(t *testing.T) {
	for _, text := range []string{"", "5", "123", "1239", "0", "x", "55"} {
		CheckParse(t, &tictactoe{}, text)
	}
	if err := verifyParse(lossyNotation{&tictactoe{}}, "12"); err == nil {
		t.Error("a notation that loses moves passed CheckParse")
	}
	if err := verifyParse(lossyNotation{&tictactoe{}}, "x"); err != nil {
		t.Errorf("text the notation rejects: %v", err)
	}
}
