package connect4

import (
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

// The interface mcts.Copier declares (mcts is not imported here: games
// packages import nothing of ours but games).
var _ interface{ CopyFrom(games.State) } = (*State)(nil)

// TestCopyFrom copies positions of random games into a state holding another
// position and checks that the copy equals the source and stays independent
// of it.
func TestCopyFrom(t *testing.T) {
	gamestest.CheckCopier(t, Game{}, replay(t, "4444"), gamestest.Config{Games: 50, Seed: 3})
}

func TestCopyFromAllocatesNothing(t *testing.T) {
	src, dst := replay(t, "4455"), NewState()
	var s games.State = src
	if n := testing.AllocsPerRun(100, func() { dst.CopyFrom(s) }); n != 0 {
		t.Fatalf("CopyFrom allocates %v times, want 0", n)
	}
}
