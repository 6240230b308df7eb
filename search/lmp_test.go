package search

import (
	"os"
	"testing"

	"tabula/games/chess"
)

// TestLateMovePruning checks the switch: in a quiet middlegame (the
// Queen's Gambit Declined of switchPositions) the engine with it searches
// fewer nodes at every depth from 6 to 9, and it skips moves only when on;
// a game without the Tactical capability ignores it. (In Kiwipete, full of
// captures and checks, the node count at a fixed depth goes either way:
// 1.63x at depth 7, 0.79x at depth 9.)
func TestLateMovePruning(t *testing.T) {
	g := chess.Game{}
	for d := 6; d <= 9; d++ {
		cfg := AllFeatures()
		cfg.Depth, cfg.TableBits = d, 16
		off := searchOnce(t, g, cfg, chessState(t, switchPositions[1]))
		cfg.LateMovePruning = true
		on := searchOnce(t, g, cfg, chessState(t, switchPositions[1]))
		t.Logf("depth %d: %d nodes without late-move pruning, %d with", d, off.Nodes, on.Nodes)
		if on.Nodes >= off.Nodes {
			t.Errorf("depth %d: %d nodes with late-move pruning, %d without: want fewer", d, on.Nodes, off.Nodes)
		}
	}
	// The counter: moves are skipped only with the switch on.
	for _, on := range []bool{false, true} {
		cfg := AllFeatures()
		cfg.Depth, cfg.TableBits, cfg.LateMovePruning = 6, 16, on
		res := searchOnce(t, g, cfg, chessState(t, switchPositions[1]))
		if on != (res.LateMovePruned > 0) {
			t.Errorf("late-move pruning %v: %d moves skipped", on, res.LateMovePruned)
		}
	}
	c4 := newGame(t, "connect4")
	cfg := AllFeatures()
	cfg.Depth, cfg.TableBits = 8, 16
	off := searchOnce(t, c4, cfg, replay(t, c4, "4453"))
	cfg.LateMovePruning = true
	if on := searchOnce(t, c4, cfg, replay(t, c4, "4453")); on.Nodes != off.Nodes {
		t.Errorf("connect4: %d nodes with late-move pruning, %d without: want equal (no Tactical capability)", on.Nodes, off.Nodes)
	}
}

// TestLateMovePruningWAC checks late-move pruning does not cost the engine
// tactics: of the first 60 Win At Chess positions, the engine at depth 6
// with it solves at least as many as without it, less two.
func TestLateMovePruningWAC(t *testing.T) {
	f, err := os.Open("../data/chess/wac.epd")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := chess.ReadEPD(f)
	if err != nil {
		t.Fatal(err)
	}
	g := chess.Game{}
	solved := [2]int{}
	for _, e := range recs[:60] {
		for k, on := range []bool{false, true} {
			cfg := AllFeatures()
			cfg.Depth, cfg.TableBits, cfg.LateMovePruning = 6, 16, on
			res := searchOnce(t, g, cfg, g.NewStateFrom(e.Pos))
			for _, m := range e.Best {
				if chess.ActionOf(m) == res.Move {
					solved[k]++
					break
				}
			}
		}
	}
	t.Logf("WAC 1-60 at depth 6: %d solved without late-move pruning, %d with", solved[0], solved[1])
	if solved[1] < solved[0]-2 {
		t.Errorf("late-move pruning solves %d of 60 WAC positions at depth 6, without it %d", solved[1], solved[0])
	}
}
