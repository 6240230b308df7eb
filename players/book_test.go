package players

import (
	"context"
	"path/filepath"
	"testing"

	"tabula/games"
	"tabula/games/chess"
	"tabula/games/connect4"
	"tabula/search/book"
)

// TestAlphaBetaBook checks the book switch: in the start position, held by
// the book with one move of weight 1 (a poor move no search picks), the
// player plays it every time; one ply later, outside the book, it searches
// (its move equals the plain player's); a missing file and a game other
// than chess are refused.
func TestAlphaBetaBook(t *testing.T) {
	g := chess.Game{}
	start := chess.StartPosition()
	a3, err := chess.ParseUCI("a2a3")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "a3.bin")
	if err := book.WriteFile(path, []book.Entry{{Key: book.Key(&start), Move: book.EncodeMove(&start, a3), Weight: 1}}); err != nil {
		t.Fatal(err)
	}
	newPlayer := func(spec string) Player {
		t.Helper()
		p := mustNewPlayer(t, g, spec, 2)
		return p
	}
	booked := newPlayer(`alphabeta:depth=2,book="` + path + `"`)
	plain := newPlayer("alphabeta:depth=2")
	ctx := context.Background()
	for range 3 {
		a, err := booked.ChooseAction(ctx, g.NewInitialState())
		if err != nil {
			t.Fatal(err)
		}
		if chess.MoveOf(a) != a3 {
			t.Fatalf("in the book position the player played %v, want the book's a2a3", chess.MoveOf(a))
		}
	}
	s := g.NewInitialState()
	s.ApplyAction(chess.ActionOf(a3))
	a, err := booked.ChooseAction(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	want, err := plain.ChooseAction(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if a != want || booked.(SearchReporter).LastSearch().Nodes == 0 {
		t.Errorf("outside the book the player played %v after %d nodes, want the search's %v",
			chess.MoveOf(a), booked.(SearchReporter).LastSearch().Nodes, chess.MoveOf(want))
	}
	for _, c := range []struct {
		game games.Game
		spec string
	}{
		{g, "alphabeta:book=" + filepath.Join(t.TempDir(), "missing.bin")},
		{connect4.Game{}, `alphabeta:book="` + path + `"`},
	} {
		sp, err := ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Build(c.game, sp); err == nil {
			t.Errorf("%s for %s: no error", c.spec, c.game.Name())
		}
	}
}
