package gogame

import (
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

// TestCopyFrom: Go states are Copiers (mcts and search refresh scratch states
// with CopyFrom instead of Clone), on two board sizes.
func TestCopyFrom(t *testing.T) {
	for _, spec := range []string{"go:size=5", "go:size=7"} {
		g, err := games.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		dst := g.NewInitialState().(*State)
		gamestest.CheckCopier(t, g, dst, gamestest.Config{Games: 30, Seed: 5})
	}
}
