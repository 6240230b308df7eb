package othello

import (
	"math/rand/v2"
	"testing"

	"tabula/games"
)

// The interface mcts.Copier declares (mcts is not imported here: games
// packages import nothing of ours but games).
var _ interface{ CopyFrom(games.State) } = (*State)(nil)

// TestCopyFrom copies positions of random games, on both board sizes, into a
// state of the other size and checks that the copy equals the source and
// stays independent of it.
func TestCopyFrom(t *testing.T) {
	for _, tc := range []struct{ spec, other string }{
		{"othello", "othello:size=6"},
		{"othello:size=6", "othello"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			g, other := mustGame(t, tc.spec), mustGame(t, tc.other)
			rng := rand.New(rand.NewPCG(5, 6))
			dst := other.NewInitialState().(*State)
			var buf []int
			for game := 0; game < 20; game++ {
				src := g.NewInitialState().(*State)
				for !src.IsTerminal() {
					dst.CopyFrom(src)
					if *dst != *src || dst.String() != src.String() || dst.Hash() != src.Hash() {
						t.Fatalf("game %d move %d: copy\n%v\nof\n%v", game, src.MoveNumber(), dst, src)
					}
					buf = src.LegalActions(buf)
					a := buf[rng.IntN(len(buf))]
					before := *src
					dst.ApplyAction(a)
					if *src != before {
						t.Fatalf("game %d: playing on the copy changed the source", game)
					}
					src.ApplyAction(a)
					if *dst != *src {
						t.Fatalf("game %d: copy and source differ after the same move %d", game, a)
					}
				}
			}
		})
	}
}

func TestCopyFromAllocatesNothing(t *testing.T) {
	g := mustGame(t, "othello")
	var src games.State = g.NewInitialState()
	dst := g.NewInitialState().(*State)
	if n := testing.AllocsPerRun(100, func() { dst.CopyFrom(src) }); n != 0 {
		t.Fatalf("CopyFrom allocates %v times, want 0", n)
	}
}
