package search

import (
	"slices"
	"testing"

	"tabula/games"
)

// oneplyRanking returns s's moves ranked by the one-ply value for the
// mover, best first, ties in the natural order.
func oneplyRanking(g games.Game, s games.State) []int {
	h := g.(games.Heuristic)
	me := s.CurrentPlayer()
	moves := s.LegalActions(nil)
	val := map[int]float64{}
	for _, a := range moves {
		c := s.Clone()
		c.ApplyAction(a)
		switch {
		case c.IsTerminal():
			val[a] = terminalValue(c, me)
		case c.CurrentPlayer() == me:
			val[a] = h.Evaluate(c)
		default:
			val[a] = -h.Evaluate(c)
		}
	}
	slices.SortStableFunc(moves, func(a, b int) int {
		switch {
		case val[a] > val[b]:
			return -1
		case val[a] < val[b]:
			return 1
		}
		return 0
	})
	return moves
}

// TestBeam checks beam search: a beam wider than every node's moves gives
// plain alpha-beta's value; a narrow beam plays one of the K moves ranked
// best at one ply, and a beam of one plays the one-ply best move; narrow
// beams search fewer nodes.
func TestBeam(t *testing.T) {
	for _, spec := range []string{"othello", "connect4"} {
		g := newGame(t, spec)
		plain := Config{Depth: 4, TableBits: 12, Ordering: true, Killers: true, History: true, PVS: true}
		var nodesPlain, nodesBeam int64
		for _, s := range randomPositions(t, g, 12, 4, 20, 5) {
			ref := searchOnce(t, g, plain, s)
			nodesPlain += ref.Nodes
			wide := plain
			wide.Beam = MaxBeam
			if got := searchOnce(t, g, wide, s); got.Value != ref.Value {
				t.Errorf("%s %v: beam=%d value %v, plain %v", spec, s, MaxBeam, got.Value, ref.Value)
			}
			rank := oneplyRanking(g, s)
			for _, k := range []int{1, 2} {
				c := plain
				c.Beam = k
				got := searchOnce(t, g, c, s)
				if k == 2 {
					nodesBeam += got.Nodes
				}
				top := rank[:min(k, len(rank))]
				if !slices.Contains(top, got.Move) {
					t.Errorf("%s %v: beam=%d played %d, not among the one-ply best %v", spec, s, k, got.Move, top)
				}
			}
		}
		if nodesBeam >= nodesPlain {
			t.Errorf("%s: beam=2 searched %d nodes, plain %d", spec, nodesBeam, nodesPlain)
		}
	}
}
