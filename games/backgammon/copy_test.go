package backgammon

import (
	"math/rand/v2"
	"slices"
	"testing"

	"tabula/games"
)

// TestCopyFrom copies every position of random games into one reused state
// (its legal-move cache filled from an earlier position): the copy has the
// source's position, dice, hash, string and legal moves, a move played on
// it leaves the source alone, and the same move on both keeps them equal.
func TestCopyFrom(t *testing.T) {
	g := New(false)
	rng := rand.New(rand.NewPCG(4, 4))
	dst := g.NewInitialState().(*State)
	var la, lb []int
	for game := range 30 {
		src := g.NewInitialState().(*State)
		for !src.IsTerminal() {
			dst.CopyFrom(src)
			la, lb = dst.LegalActions(la), src.LegalActions(lb)
			if dst.pos != src.pos || dst.Hash() != src.Hash() || dst.String() != src.String() ||
				dst.MoveNumber() != src.MoveNumber() || !slices.Equal(la, lb) {
				t.Fatalf("game %d move %d: copy\n%v\nof\n%v", game, src.MoveNumber(), dst, src)
			}
			var a int
			if games.IsChanceNode(src) {
				a, _ = games.SampleChance(src, rng)
			} else {
				a = lb[rng.IntN(len(lb))]
			}
			before := src.String()
			dst.ApplyAction(a)
			la = dst.LegalActions(la) // fills the copy's cache
			if src.String() != before || !slices.Equal(src.LegalActions(nil), src.Clone().LegalActions(nil)) {
				t.Fatalf("game %d: playing on the copy changed the source", game)
			}
			src.ApplyAction(a)
			if dst.pos != src.pos || dst.Hash() != src.Hash() {
				t.Fatalf("game %d: copy and source differ after the same action %d", game, a)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { dst.CopyFrom(g.NewInitialState()) }); n > 1 {
		t.Errorf("CopyFrom with a fresh source: %v allocations, want at most the source's", n)
	}
}
