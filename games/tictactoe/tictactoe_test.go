package tictactoe

import (
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

// TestConformance runs the checker every game passes: the whole State
// contract, the symmetries, the notation and the heuristic, over random games.
func TestConformance(t *testing.T) {
	g, err := games.New("tictactoe")
	if err != nil {
		t.Fatal(err)
	}
	gamestest.Check(t, g, gamestest.Config{Games: 2000, Seed: 1, Transpositions: true})
	gamestest.CheckCopier(t, g, &State{}, gamestest.Config{Games: 200, Seed: 2})
}

func TestResults(t *testing.T) {
	cases := []struct {
		moves string
		want  [2]float64
		over  bool
	}{
		{"", [2]float64{}, false},
		{"14253", [2]float64{1, -1}, true},  // X takes 1 2 3, the top row
		{"419273", [2]float64{-1, 1}, true}, // O takes 1 2 3
		{"159", [2]float64{}, false},        // X 1 and 9, O 5: nothing yet
		{"159287364", [2]float64{}, true},   // the board full, no line: a draw
	}
	for _, c := range cases {
		s, _, err := games.ParseAndReplay(Game{}, c.moves)
		if err != nil {
			t.Fatalf("%q: %v", c.moves, err)
		}
		if s.IsTerminal() != c.over || s.Returns() != c.want {
			t.Errorf("%q: terminal %v returns %v, want %v %v\n%s", c.moves, s.IsTerminal(), s.Returns(), c.over, c.want, s)
		}
	}
}

func TestIllegalMoves(t *testing.T) {
	for _, moves := range []string{"11", "0", "a", "142536"} { // taken cell, out of range, not a cell, after the end
		if _, _, err := games.ParseAndReplay(Game{}, moves); err == nil {
			t.Errorf("%q: replayed without error", moves)
		}
	}
}
