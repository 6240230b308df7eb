package othello

import (
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
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
			other := mustGame(t, tc.other).NewInitialState().(*State)
			gamestest.CheckCopier(t, mustGame(t, tc.spec), other, gamestest.Config{Games: 20, Seed: 5})
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
