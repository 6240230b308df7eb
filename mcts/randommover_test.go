package mcts

import (
	"context"
	"math/rand/v2"
	"testing"

	"tabula/games"
	_ "tabula/games/gogame"
)

// TestUCTUsesTheGamesRolloutPolicy: on Go, UCT whose rollouts use gogame's
// RandomMove (no eye filling) beats uniformly random play clearly; a Go
// state is a RandomMover, and rollouts through it always end.
func TestUCTUsesTheGamesRolloutPolicy(t *testing.T) {
	g, err := games.New("go:size=5,komi=0.5")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.NewInitialState().(RandomMover); !ok {
		t.Fatal("gogame.State is not a RandomMover")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	wins := 0
	const n = 10
	for k := 0; k < n; k++ {
		u, err := NewUCT(UCTConfig{Rollouts: 200, C: 1.4}, rand.New(rand.NewPCG(3, uint64(k))))
		if err != nil {
			t.Fatal(err)
		}
		s := g.NewInitialState()
		uctSide := k % 2
		var buf []int
		for !s.IsTerminal() {
			var a int
			if s.CurrentPlayer() == uctSide {
				if a, err = u.ChooseAction(context.Background(), s); err != nil {
					t.Fatal(err)
				}
			} else {
				buf = s.LegalActions(buf[:0])
				a = buf[rng.IntN(len(buf))]
			}
			if err := games.Play(s, a); err != nil {
				t.Fatal(err)
			}
		}
		if s.Returns()[uctSide] > 0 {
			wins++
		}
	}
	if wins < 8 {
		t.Fatalf("UCT with Go rollouts won %d of %d against random, want >= 8", wins, n)
	}
}
