package connect4

import (
	"math/rand/v2"
	"testing"

	"tabula/games"
)

// The interface mcts.Copier declares (mcts is not imported here: games
// packages import nothing of ours but games).
var _ interface{ CopyFrom(games.State) } = (*State)(nil)

// TestCopyFrom copies positions of random games into a state holding another
// position and checks that the copy equals the source and stays independent
// of it.
func TestCopyFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dst := replay(t, "4444")
	var buf []int
	for game := 0; game < 50; game++ {
		src := NewState()
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
}

func TestCopyFromAllocatesNothing(t *testing.T) {
	src, dst := replay(t, "4455"), NewState()
	var s games.State = src
	if n := testing.AllocsPerRun(100, func() { dst.CopyFrom(s) }); n != 0 {
		t.Fatalf("CopyFrom allocates %v times, want 0", n)
	}
}
