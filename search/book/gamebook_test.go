package book

import (
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/othello"
	"tabula/games/tictactoe"
)

// after returns the state of g after actions.
func after(g games.Game, actions ...int) games.State {
	s := g.NewInitialState()
	for _, a := range actions {
		s.ApplyAction(a)
	}
	return s
}

// entryOf returns the entry of book b for action a of the position after
// actions (in that position's own coordinates).
func entryOf(t *testing.T, b *GameBook, g games.Game, a int, actions ...int) BookMove {
	t.Helper()
	for _, m := range b.Moves(g, after(g, actions...)) {
		if m.Action == a {
			return m
		}
	}
	t.Fatalf("after %v: no book entry for action %d; the book has %v", actions, a, b.Moves(g, after(g, actions...)))
	return BookMove{}
}

// TestLearnBacksUpNegamax: a hand-made tree of three tic-tac-toe games cut
// at ply 2. The leaves' values are the games' results for the player to
// move (X): after 5 1 (cells, 1-based) +1, after 5 2 -1, after 1 5 0. So
// after 5, O plays 2 (value +1 for O), making 5 worth -1 for X, while 1 is
// worth 0: the root's value is 0 and its best move 1. A search that finds
// the root deviation 2 worth 0.8 for X (every other position it values 0.5
// for the player to move) makes the deviation the best move and the root's
// value 0.8.
func TestLearnBacksUpNegamax(t *testing.T) {
	g := tictactoe.Game{}
	lines := []GameLine{
		{Actions: []int{4, 0}, Returns: [2]float64{1, -1}},
		{Actions: []int{4, 1}, Returns: [2]float64{-1, 1}},
		{Actions: []int{0, 4}, Returns: [2]float64{0, 0}},
	}
	cfg := LearnConfig{MaxPly: 2, MinGame: 1}
	flat := func(s games.State) (float64, error) { return 0.5, nil }
	b, st, err := Learn(g, lines, cfg, flat)
	if err != nil {
		t.Fatal(err)
	}
	if m := entryOf(t, b, g, 4); m.Value != -1 || m.Count != 2 || m.Deviation {
		t.Errorf("root move 5: %+v, want value -1 count 2", m)
	}
	if m := entryOf(t, b, g, 0); m.Value != 0 || m.Count != 1 {
		t.Errorf("root move 1: %+v, want value 0 count 1", m)
	}
	if m := entryOf(t, b, g, 1, 4); m.Value != 1 {
		t.Errorf("after 5, move 2: %+v, want value +1 for O", m)
	}
	if a, v, ok := b.Choose(g, g.NewInitialState(), 0, nil); !ok || a != 0 || v != 0 {
		t.Errorf("flat search: root book move %d value %v ok %v, want 0 (cell 1) value 0", a, v, ok)
	}
	// The root's deviation is an edge move (cell 2 or a symmetric twin),
	// worth -0.5 for X under the flat search.
	var dev []BookMove
	for _, m := range b.Moves(g, g.NewInitialState()) {
		if m.Deviation {
			dev = append(dev, m)
		}
	}
	if len(dev) != 1 || dev[0].Value != -0.5 || dev[0].Action%2 != 1 {
		t.Errorf("root deviations %+v, want one edge cell worth -0.5", dev)
	}
	// After the centre, O's corner 1 and edge 2 cover every move up to
	// symmetry: no deviation there.
	if st.Interior != 3 || st.Deviations != 2 {
		t.Errorf("stats %+v, want 3 interior positions, 2 of them with a deviation", st)
	}

	// Cell 2 after which the search values X's opponent at -0.8.
	sharp := func(s games.State) (float64, error) {
		if k, _ := CanonicalKey(g, s); k == mustKey(g, after(g, 1)) {
			return -0.8, nil
		}
		return 0.5, nil
	}
	b, _, err = Learn(g, lines, cfg, sharp)
	if err != nil {
		t.Fatal(err)
	}
	a, v, ok := b.Choose(g, g.NewInitialState(), 0, nil)
	if !ok || a%2 != 1 || math.Abs(v-0.8) > 1e-6 {
		t.Errorf("with the deviation: root book move %d value %v ok %v, want an edge cell worth 0.8", a, v, ok)
	}
	// Within a margin of 0.9 both 1 (value 0) and the deviation may be
	// drawn; 5 (value -1) never.
	rng := rand.New(rand.NewPCG(1, 2))
	drawn := map[int]int{}
	for range 100 {
		a, _, _ := b.Choose(g, g.NewInitialState(), 0.9, rng)
		drawn[a]++
	}
	if len(drawn) != 2 || drawn[0] == 0 || drawn[4] != 0 {
		t.Errorf("margin 0.9 drew %v, want cell 1 and the deviation, never 5", drawn)
	}

	// Without a search: no deviations, leaves only from results.
	b, st, err = Learn(g, lines, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Deviations != 0 || st.Evals != 0 || b.Len() != 5 {
		t.Errorf("no search: stats %+v, %d entries, want 5 entries and no deviation", st, b.Len())
	}
}

func mustKey(g games.Game, s games.State) uint64 {
	k, _ := CanonicalKey(g, s)
	return k
}

// TestLearnLeafSearch: with LeafSearch the leaves take the search's value
// instead of the games' results.
func TestLearnLeafSearch(t *testing.T) {
	g := tictactoe.Game{}
	lines := []GameLine{{Actions: []int{4, 0}, Returns: [2]float64{1, -1}}}
	eval := func(s games.State) (float64, error) { return 0.25, nil }
	b, _, err := Learn(g, lines, LearnConfig{MaxPly: 2, MinGame: 1, LeafSearch: true}, eval)
	if err != nil {
		t.Fatal(err)
	}
	// After 5 1 X to move is worth 0.25 (the search), not +1 (the result).
	if m := entryOf(t, b, g, 0, 4); m.Value != -0.25 {
		t.Errorf("after 5, move 1: %+v, want -0.25 for O", m)
	}
}

// TestLearnMergesTranspositions: two orders of the same moves, and
// symmetric images, are one position with one entry.
func TestLearnMergesTranspositions(t *testing.T) {
	g := tictactoe.Game{}
	lines := []GameLine{
		{Actions: []int{0, 4, 8, 2}, Returns: [2]float64{0, 0}},
		{Actions: []int{8, 4, 0, 2}, Returns: [2]float64{0, 0}},
		// The mirror image (columns reversed) of the first game.
		{Actions: []int{2, 4, 6, 0}, Returns: [2]float64{0, 0}},
	}
	b, _, err := Learn(g, lines, LearnConfig{MaxPly: 4, MinGame: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// After 1 5 9 (and 9 5 1, and mirrored 3 5 7) O's move 3 was played
	// three times; MinGame 3 keeps it.
	if m := entryOf(t, b, g, 2, 0, 4, 8); m.Count != 3 {
		t.Errorf("after 1 5 9, move 3: count %d, want 3 (two transpositions and a mirror image)", m.Count)
	}
	if m := entryOf(t, b, g, 0, 2, 4, 6); m.Count != 3 {
		t.Errorf("after 3 5 7, move 1 (the mirror of 3): count %d, want 3", m.Count)
	}
	// Othello: the four first moves are one under the symmetries.
	og, err := games.New("othello")
	if err != nil {
		t.Fatal(err)
	}
	var ol []GameLine
	for _, m := range []string{"f5", "d3", "c4", "e6"} {
		a, err := og.(games.Notation).ParseAction(m)
		if err != nil {
			t.Fatal(err)
		}
		ol = append(ol, GameLine{Actions: []int{a}, Returns: [2]float64{1, -1}})
	}
	b, _, err = Learn(og, ol, LearnConfig{MaxPly: 1, MinGame: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ms := b.Moves(og, og.NewInitialState())
	if len(ms) != 1 || ms[0].Count != 4 {
		t.Errorf("othello root: %+v, want one move played 4 times", ms)
	}
}

// TestGameBookFile: a book round-trips through its file, and a corrupt,
// cut-short or foreign file is refused with an error naming why.
func TestGameBookFile(t *testing.T) {
	g := tictactoe.Game{}
	lines := []GameLine{
		{Actions: []int{4, 0, 8}, Returns: [2]float64{1, -1}},
		{Actions: []int{4, 1, 8}, Returns: [2]float64{-1, 1}},
	}
	b, _, err := Learn(g, lines, LearnConfig{MaxPly: 3, MinGame: 1}, func(games.State) (float64, error) { return 0.1, nil })
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ttt.book")
	if err := b.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	r, err := LoadGameBook(path, g)
	if err != nil {
		t.Fatal(err)
	}
	if r.Game() != "tictactoe" || r.Len() != b.Len() || r.Len() == 0 {
		t.Fatalf("read back %s with %d entries, want tictactoe with %d", r.Game(), r.Len(), b.Len())
	}
	for i, e := range r.Entries() {
		if e != b.Entries()[i] {
			t.Errorf("entry %d: read %+v, wrote %+v", i, e, b.Entries()[i])
		}
	}
	data := b.Marshal()
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 1
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"flipped bit", bad, "checksum"},
		{"cut short", data[:len(data)-7], "checksum"},
		{"header only", data[:10], "too short"},
		{"polyglot", make([]byte, 32), "not a tabula game book"},
	} {
		if _, err := ParseGameBook(tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := ParseGameBook(make([]byte, 32)); !errors.Is(err, ErrNotGameBook) {
		t.Errorf("polyglot bytes: %v, want ErrNotGameBook", err)
	}
	og, _ := games.New("othello")
	if _, err := LoadGameBook(path, og); err == nil || !strings.Contains(err.Error(), "a book of tictactoe, not of othello") {
		t.Errorf("loading a tic-tac-toe book for othello: %v, want an error naming both games", err)
	}
}

// TestLearnMirroredLines plays the images of a random Othello opening under
// the symmetries that keep the start position, each game going on with
// moves of its own: positions are then reached in several orientations,
// and each played move must be stored in the canonical image's coordinates
// of the state it was played in, so that the book holds one entry per
// (position, move), reads back, and gives every played move (or a
// symmetric twin) back in each game's own coordinates.
func TestLearnMirroredLines(t *testing.T) {
	g, err := games.New("othello")
	if err != nil {
		t.Fatal(err)
	}
	sym := g.(games.Symmetric)
	rng := rand.New(rand.NewPCG(3, 4))
	s := g.NewInitialState()
	var line []int
	for ply := 0; ply < 24 && !s.IsTerminal(); ply++ {
		legal := s.LegalActions(nil)
		a := legal[rng.IntN(len(legal))]
		line = append(line, a)
		s.ApplyAction(a)
	}
	var lines []GameLine
	for j := 0; j < sym.NumSymmetries(); j++ {
		if init := g.NewInitialState(); sym.TransformState(j, init).Hash() != init.Hash() {
			continue // this image of the game starts from another position
		}
		// The image of the game's first 10 moves, then moves of its own:
		// those leave the shared positions from a mirror image of the
		// orientation the first game saw them in.
		l := GameLine{Returns: [2]float64{1, -1}}
		s := g.NewInitialState()
		for ply := 0; ply < len(line) && !s.IsTerminal(); ply++ {
			a := sym.TransformAction(j, line[ply])
			if ply >= 10 {
				legal := s.LegalActions(nil)
				a = legal[rng.IntN(len(legal))]
			}
			l.Actions = append(l.Actions, a)
			s.ApplyAction(a)
		}
		lines = append(lines, l)
	}
	if len(lines) < 4 {
		t.Fatalf("%d images of the game, want the start position's 4 symmetries", len(lines))
	}
	b, _, err := Learn(g, lines, LearnConfig{MaxPly: 30, MinGame: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseGameBook(b.Marshal()); err != nil {
		t.Fatalf("the learnt book does not read back: %v", err)
	}
	for li, l := range lines {
		s := g.NewInitialState()
		for ply, a := range l.Actions {
			// The book may list a symmetric twin of the played move
			// instead (where s is symmetric, as the start position is):
			// one that leads to the same position up to symmetry.
			want := childKey(g, s, a)
			found := false
			for _, m := range b.Moves(g, s) {
				if childKey(g, s, m.Action) == want {
					found = true
				}
			}
			if !found {
				t.Fatalf("game %d, ply %d: the played move %d is not among the book's moves (nor a twin) %+v", li, ply+1, a, b.Moves(g, s))
			}
			s.ApplyAction(a)
		}
	}
}

// childKey is the book key of the position after action a in s.
func childKey(g games.Game, s games.State, a int) uint64 {
	c := s.Clone()
	c.ApplyAction(a)
	k, _ := CanonicalKey(g, c)
	return k
}
