package search

import (
	"context"
	"testing"

	"tabula/games/chess"
)

// TestSetHeuristic checks that the evaluation set with SetHeuristic, not the
// game's, scores the horizon, in the main search and in the helpers: with a
// queen worth less than nothing to its owner, the free queen is not taken.
func TestSetHeuristic(t *testing.T) {
	const fen = "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1"
	g := chess.Game{}
	antiQueen := chess.DefaultWeights
	antiQueen.MGValue[chess.Queen], antiQueen.EGValue[chess.Queen] = -3000, -3000
	for _, threads := range []int{1, 2} {
		cfg := DefaultConfig()
		cfg.Depth, cfg.Threads = 3, threads
		for _, anti := range []bool{false, true} {
			sr, err := New(g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if anti {
				sr.SetHeuristic(chess.Evaluator{W: &antiQueen})
			}
			res, err := sr.Search(context.Background(), chessState(t, fen))
			if err != nil {
				t.Fatal(err)
			}
			took := chess.MoveOf(res.Move).String() == "d1d5"
			if took == anti {
				t.Errorf("threads=%d, queen worth -3000: %v: played %s", threads, anti, chess.MoveOf(res.Move))
			}
		}
	}
}
