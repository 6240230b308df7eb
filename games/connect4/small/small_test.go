package small

import (
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

func TestConformance(t *testing.T) {
	for _, spec := range []string{"connect4small", "connect4small:width=4,height=4", "connect4small:width=4,height=5", "connect4small:width=8,height=7"} {
		g, err := games.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		gamestest.Check(t, g, gamestest.Config{Games: 300, Seed: 1, Transpositions: true})
	}
}

func TestResults(t *testing.T) {
	g, _ := New(5, 4)
	for _, c := range []struct {
		moves []int
		want  [2]float64
		over  bool
	}{
		{[]int{0, 0, 1, 1, 2, 2, 3}, [2]float64{1, -1}, true},             // across
		{[]int{0, 1, 0, 1, 0, 1, 4, 1}, [2]float64{-1, 1}, true},          // up, by the second player
		{[]int{0, 1, 1, 2, 3, 2, 2, 3, 4, 3, 3}, [2]float64{1, -1}, true}, // diagonal
		{[]int{0, 1, 2}, [2]float64{}, false},
	} {
		s := g.NewInitialState()
		for _, a := range c.moves {
			if !s.IsLegal(a) {
				t.Fatalf("%v: %d illegal", c.moves, a)
			}
			s.ApplyAction(a)
		}
		if s.IsTerminal() != c.over || s.Returns() != c.want {
			t.Errorf("%v: terminal %v returns %v, want %v %v\n%s", c.moves, s.IsTerminal(), s.Returns(), c.over, c.want, s)
		}
	}
	for _, spec := range []string{"connect4small:width=3", "connect4small:height=8", "connect4small:width=x"} {
		if _, err := games.New(spec); err == nil {
			t.Errorf("%s: no error", spec)
		}
	}
}
