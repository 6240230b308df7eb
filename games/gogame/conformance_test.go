package gogame_test

import (
	"fmt"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
	_ "tabula/games/gogame"
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
