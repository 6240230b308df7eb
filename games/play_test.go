package games_test

import (
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
)

// TestIllegalMoveNamesMoveAndLegalOnes checks that an illegal move's error
// names the move in the game's notation, not by its action number, and
// lists the legal moves, cut short on a big board.
func TestIllegalMoveNamesMoveAndLegalOnes(t *testing.T) {
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := games.ParseAndReplay(g, "444444")
	if err != nil {
		t.Fatal(err)
	}
	err = games.Play(s, 3)
	if want := "illegal move: 4 is not legal here; legal moves: 1 2 3 5 6 7"; err == nil || err.Error() != want {
		t.Errorf("connect4: error %v, want %q", err, want)
	}

	g, err = games.New("go:size=19")
	if err != nil {
		t.Fatal(err)
	}
	s, _, err = games.ParseAndReplay(g, "D4")
	if err != nil {
		t.Fatal(err)
	}
	d4 := g.(games.Notation)
	a, _ := d4.ParseAction("D4")
	err = games.Play(s, a)
	if err == nil || !strings.HasPrefix(err.Error(), "illegal move: D4 is not legal here; legal moves: A19 B19 C19 ") ||
		!strings.HasSuffix(err.Error(), " and 341 more") || strings.Contains(err.Error(), "action") {
		t.Errorf("go 19x19: error %v", err)
	}
}
