package search

import (
	"testing"

	"tabula/games/chess"
)

// offSwitches are the selective switches AllFeatures leaves off that a
// measurement has yet to turn on: each with a function that turns it on
// and the counter of what it did.
var offSwitches = []struct {
	name  string
	on    func(*Config)
	count func(Result) int64
}{
	{"late-move pruning", func(c *Config) { c.LateMovePruning = true }, func(r Result) int64 { return r.LateMovePruned }},
	{"SEE pruning", func(c *Config) { c.SEEPruning = true }, func(r Result) int64 { return r.SEEPruned }},
	{"IIR", func(c *Config) { c.IIR = true }, func(r Result) int64 { return r.IIRs }},
}

// TestOffSwitches checks each switch of offSwitches in chess: at depth 9
// on both middlegames of switchPositions the engine with it searches fewer
// nodes and its counter is positive, and with it off the counter is 0.
// (Late-move pruning's node count at one depth can go either way in
// Kiwipete, full of captures and checks: 1.63x at depth 7, 0.79x at 9;
// its fewer nodes at every depth in a quiet middlegame are checked in
// TestLateMovePruning.)
func TestOffSwitches(t *testing.T) {
	g := chess.Game{}
	for _, sw := range offSwitches {
		for _, fen := range switchPositions {
			cfg := AllFeatures()
			cfg.Depth, cfg.TableBits = 9, 16
			off := searchOnce(t, g, cfg, chessState(t, fen))
			sw.on(&cfg)
			on := searchOnce(t, g, cfg, chessState(t, fen))
			t.Logf("%s, %s: %d nodes without, %d with (%d acts)", sw.name, fen, off.Nodes, on.Nodes, sw.count(on))
			if on.Nodes >= off.Nodes {
				t.Errorf("%s, %s: %d nodes with it, %d without: want fewer", sw.name, fen, on.Nodes, off.Nodes)
			}
			if sw.count(on) == 0 || sw.count(off) != 0 {
				t.Errorf("%s, %s: it acted %d times on, %d times off", sw.name, fen, sw.count(on), sw.count(off))
			}
		}
	}
}

// TestLateMovePruning checks late-move pruning in a quiet middlegame (the
// Queen's Gambit Declined of switchPositions): fewer nodes at every depth
// from 6 to 9.
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
}

// TestOffSwitchesIgnored checks where the switches do not apply: Connect
// Four (no Tactical capability) searches the same nodes with all three on,
// and IIR does nothing without a transposition table.
func TestOffSwitchesIgnored(t *testing.T) {
	c4 := newGame(t, "connect4")
	cfg := AllFeatures()
	cfg.Depth, cfg.TableBits = 8, 16
	off := searchOnce(t, c4, cfg, replay(t, c4, "4453"))
	cfg.LateMovePruning, cfg.SEEPruning = true, true
	if on := searchOnce(t, c4, cfg, replay(t, c4, "4453")); on.Nodes != off.Nodes {
		t.Errorf("connect4: %d nodes with late-move and SEE pruning, %d without: want equal (no Tactical capability)", on.Nodes, off.Nodes)
	}
	g := chess.Game{}
	cfg = AllFeatures()
	cfg.Depth, cfg.IIR = 7, true
	if res := searchOnce(t, g, cfg, chessState(t, switchPositions[1])); res.IIRs != 0 {
		t.Errorf("IIR without a table: %d reductions, want 0", res.IIRs)
	}
}

// TestOffSwitchesWAC checks the switches do not cost the engine tactics:
// of the first 60 Win At Chess positions, the engine at depth 6 with each
// one on solves at least as many as without, less two.
func TestOffSwitchesWAC(t *testing.T) {
	recs := readWAC(t)
	g := chess.Game{}
	solve := func(on func(*Config)) int {
		n := 0
		for _, e := range recs[:60] {
			cfg := AllFeatures()
			cfg.Depth, cfg.TableBits = 6, 16
			if on != nil {
				on(&cfg)
			}
			res := searchOnce(t, g, cfg, g.NewStateFrom(e.Pos))
			for _, m := range e.Best {
				if chess.ActionOf(m) == res.Move {
					n++
					break
				}
			}
		}
		return n
	}
	base := solve(nil)
	for _, sw := range offSwitches {
		n := solve(sw.on)
		t.Logf("WAC 1-60 at depth 6: %d solved without %s, %d with", base, sw.name, n)
		if n < base-2 {
			t.Errorf("%s solves %d of 60 WAC positions at depth 6, the engine without it %d", sw.name, n, base)
		}
	}
}
