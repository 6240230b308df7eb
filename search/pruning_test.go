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
// on both middlegames of switchPositions, with it on its counter is
// positive and the search differs (another node count), and with it off
// the counter is 0. Whether a switch saves nodes at a fixed depth is not
// checked: with history malus and repetition draws on, late-move pruning
// searches 15% more nodes in Kiwipete at depth 9 and 40% fewer in the
// Queen's Gambit at depth 7 (the skipped moves change the move ordering
// of everything after them); what each is worth is measured in play
// (docs/benchmarks.md).
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
			if on.Nodes == off.Nodes {
				t.Errorf("%s, %s: %d nodes with it and without: want the search changed", sw.name, fen, on.Nodes)
			}
			if sw.count(on) == 0 || sw.count(off) != 0 {
				t.Errorf("%s, %s: it acted %d times on, %d times off", sw.name, fen, sw.count(on), sw.count(off))
			}
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
