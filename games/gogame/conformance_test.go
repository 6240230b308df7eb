package gogame_test

import (
	"fmt"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
	"tabula/games/gogame"
)

func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		games int
	}{
		{"go:size=5,komi=0.5", 2000},
		{"go:size=7,komi=7", 1000},
		{"go:size=9", 600},
		{"go:size=2,komi=0", 2000},
		{"go:size=3,komi=0,max_moves=40", 1000},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			g, err := games.New(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			n := tc.games
			if testing.Short() {
				n /= 10
			}
			gamestest.Check(t, g, gamestest.Config{Games: n, Seed: 1})
		})
	}
}

func ExampleGame_Name() {
	g, _ := games.New("go:size=9,komi=7.5")
	fmt.Println(g.Name())
	// Output: go:size=9,komi=7.5,max_moves=243
}

func ExampleFromText() {
	g, err := gogame.New(5, 0.5, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := gogame.FromText(g, `
		. X O . .
		X O . O .
		. X O . .
		. . . . .
		. . . . .`, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	c4, _ := g.ParseAction("C4")
	b4, _ := g.ParseAction("B4")
	fmt.Println(games.Play(s, c4)) // black takes the ko
	fmt.Println(games.Play(s, b4)) // white may not retake at once
	fmt.Print(s)
	// Output:
	// <nil>
	// illegal move: B4 is not legal here; legal moves: D5 E5 E4 A3 D3 E3 A2 B2 C2 D2 E2 A1 B1 C1 D1 E1 pass
	//     A B C D E
	//   5 . X O . . 5
	//   4 X . X O . 4
	//   3 . X O . . 3
	//   2 . . . . . 2
	//   1 . . . . . 1
	//     A B C D E
	// white to move, move 1, komi 0.5
}
