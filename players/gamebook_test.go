package players_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"tabula/games"
	"tabula/players"
	"tabula/players/playerstest"
	"tabula/search/book"
)

// gameBookFor learns a game book of g from one game, lines' moves given
// in the game's notation, and writes it to a temporary file.
func gameBookFor(t *testing.T, g games.Game, moves ...string) string {
	t.Helper()
	var acts []int
	for _, m := range moves {
		a, err := g.(games.Notation).ParseAction(m)
		if err != nil {
			t.Fatal(err)
		}
		acts = append(acts, a)
	}
	b, _, err := book.Learn(g, []book.GameLine{{Actions: acts, Returns: [2]float64{1, -1}}},
		book.LearnConfig{MaxPly: len(acts), MinGame: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "game.book")
	if err := b.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// afterMoves plays moves (notation) from g's start.
func afterMoves(t *testing.T, g games.Game, moves ...string) games.State {
	t.Helper()
	s := g.NewInitialState()
	for _, m := range moves {
		a, err := g.(games.Notation).ParseAction(m)
		if err != nil {
			t.Fatal(err)
		}
		s.ApplyAction(a)
	}
	return s
}

// TestAlphaBetaGameBook: an Othello book holding f5 and then a reply the
// search does not choose. In the book the player plays the book's reply
// without searching, also in the symmetric position after d3 (mapped back
// to that position's own coordinates); after it, outside the book, it
// searches and plays the plain player's move.
func TestAlphaBetaGameBook(t *testing.T) {
	g, err := games.New("othello")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	plain := mustPlayer(t, g, "alphabeta:depth=3")
	s := afterMoves(t, g, "f5")
	searched, err := plain.ChooseAction(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var reply string
	for _, a := range s.LegalActions(nil) {
		if a != searched {
			reply = g.(games.Notation).FormatAction(a)
			break
		}
	}
	path := gameBookFor(t, g, "f5", reply)
	booked := mustPlayer(t, g, `alphabeta:depth=3,book="`+path+`"`)
	sr := booked.(players.SearchReporter)
	for _, first := range []string{"f5", "d3"} {
		s := afterMoves(t, g, first)
		a, err := booked.ChooseAction(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		s.ApplyAction(a)
		want, _ := book.CanonicalKey(g, afterMoves(t, g, "f5", reply))
		if got, _ := book.CanonicalKey(g, s); got != want || sr.LastSearch().Nodes != 0 {
			t.Errorf("after %s the player played %s after %d nodes, want the book's %s (or its symmetric twin) without a search",
				first, g.(games.Notation).FormatAction(a), sr.LastSearch().Nodes, reply)
		}
	}
	out := afterMoves(t, g, "f5", reply)
	a, err := booked.ChooseAction(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := plain.ChooseAction(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	if a != want || sr.LastSearch().Nodes == 0 {
		t.Errorf("outside the book: played %d after %d nodes, want the search's %d", a, sr.LastSearch().Nodes, want)
	}
	// A book of another game, a chess book for Othello, book_margin
	// without a book: refused.
	ttt := gameBookFor(t, playerstest.MustGame(t, "tictactoe"), "5")
	for _, spec := range []string{
		`alphabeta:book="` + ttt + `"`,
		"alphabeta:book_margin=0.1",
		`net:path=x.tbn,book="` + ttt + `"`,
	} {
		sp, err := players.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := players.Build(g, sp); err == nil {
			t.Errorf("%s for othello: no error", spec)
		}
	}
}

// TestNetGameBook: the net player plays the book's move in a book
// position without a search (no policy, the book's value) and searches
// outside it.
func TestNetGameBook(t *testing.T) {
	g := playerstest.MustGame(t, "othello:size=6")
	net := untrainedNet(t, g)
	start := g.NewInitialState()
	legal := start.LegalActions(nil)
	first := g.(games.Notation).FormatAction(legal[0])
	path := gameBookFor(t, g, first)
	p := mustPlayer(t, g, `net:sims=4,path="`+net+`",book="`+path+`"`)
	ctx := context.Background()
	a, err := p.ChooseAction(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	s := start.Clone()
	s.ApplyAction(a)
	want, _ := book.CanonicalKey(g, afterMoves(t, g, first))
	if got, _ := book.CanonicalKey(g, s); got != want || p.(players.Analyzer).LastPolicy() != nil || p.(players.Valuer).Value() != 1 {
		t.Errorf("at the start the net played %d (policy %v, value %v), want the book's %s without a search, value 1",
			a, p.(players.Analyzer).LastPolicy(), p.(players.Valuer).Value(), first)
	}
	if _, err := p.ChooseAction(ctx, s); err != nil {
		t.Fatal(err)
	}
	if len(p.(players.Analyzer).LastPolicy()) != g.NumActions() {
		t.Errorf("outside the book the net did not search (policy %v)", p.(players.Analyzer).LastPolicy())
	}
}

func mustPlayer(t *testing.T, g games.Game, spec string) players.Player {
	t.Helper()
	sp, err := players.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	f, err := players.Build(g, sp)
	if err != nil {
		t.Fatal(err)
	}
	if f.Cleanup != nil {
		t.Cleanup(func() { _ = f.Cleanup() })
	}
	p, err := f.New(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
