package search

import (
	"context"
	"os"
	"slices"
	"testing"

	"tabula/games/chess"
)

// singularPosition is WAC.006 (7k/p7/1R5K/6r1/6p1/6P1/8/8 w, Rb7), where a
// depth-9 search makes singular extensions in a few milliseconds.
const singularPosition = "7k/p7/1R5K/6r1/6p1/6P1/8/8 w - - 0 1"

// TestSingularExtensionsCount checks the switch and its counter: a search
// deep enough for the check (the root's children at singularMinDepth)
// extends some moves with the switch on and none with it off, and the
// extensions change the search.
func TestSingularExtensionsCount(t *testing.T) {
	g := chess.Game{}
	for _, fen := range []string{singularPosition, switchPositions[1]} {
		cfg := AllFeatures()
		cfg.Depth, cfg.TableBits = singularMinDepth+1, 16
		off := searchOnce(t, g, cfg, chessState(t, fen))
		cfg.SingularExtensions = true
		on := searchOnce(t, g, cfg, chessState(t, fen))
		t.Logf("%s: %d nodes without, %d with %d singular extensions", fen, off.Nodes, on.Nodes, on.SingularExtensions)
		if off.SingularExtensions != 0 {
			t.Errorf("%s: switch off, %d singular extensions, want 0", fen, off.SingularExtensions)
		}
		if on.SingularExtensions == 0 {
			t.Errorf("%s: switch on at depth %d, no singular extension", fen, cfg.Depth)
		}
		if on.Nodes == off.Nodes {
			t.Errorf("%s: %d nodes with and without singular extensions", fen, on.Nodes)
		}
	}
}

// TestSingularExtensionsNeedTable checks the switch is ignored without a
// transposition table (the table move is what it extends).
func TestSingularExtensionsNeedTable(t *testing.T) {
	g := chess.Game{}
	cfg := AllFeatures()
	cfg.Depth, cfg.SingularExtensions = singularMinDepth+1, true
	if res := searchOnce(t, g, cfg, chessState(t, singularPosition)); res.SingularExtensions != 0 {
		t.Errorf("no table: %d singular extensions, want 0", res.SingularExtensions)
	}
}

// TestSingularExtensionsWAC checks that with singular extensions the engine
// still finds the known best move of Win At Chess positions at the depth
// it finds it without, where they trigger.
func TestSingularExtensionsWAC(t *testing.T) {
	recs := readWAC(t)
	g := chess.Game{}
	ids := []string{"WAC.003", "WAC.006", "WAC.008", "WAC.015", "WAC.018", "WAC.028"}
	for _, e := range recs {
		if !slices.Contains(ids, e.ID) {
			continue
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return id == e.ID })
		var best []int
		for _, m := range e.Best {
			best = append(best, chess.ActionOf(m))
		}
		for _, on := range []bool{false, true} {
			cfg := AllFeatures()
			cfg.Depth, cfg.TableBits, cfg.SingularExtensions = singularMinDepth+1, 16, on
			res := searchOnce(t, g, cfg, g.NewStateFrom(e.Pos))
			if !slices.Contains(best, res.Move) {
				t.Errorf("%s, singular extensions %v: played %s (pv %s), want %v", e.ID, on, g.FormatAction(res.Move), g.FormatActions(res.PV), e.Ops["bm"])
			}
			if on && res.SingularExtensions == 0 {
				t.Errorf("%s: no singular extension at depth %d: the position no longer tests them", e.ID, cfg.Depth)
			}
		}
	}
	if len(ids) > 0 {
		t.Errorf("positions %v not in wac.epd", ids)
	}
}

// readWAC reads the Win At Chess suite of data/chess/wac.epd.
func readWAC(t *testing.T) []chess.EPD {
	t.Helper()
	f, err := os.Open("../data/chess/wac.epd")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := chess.ReadEPD(f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestIsSingular checks the verification search on its own: it leaves the
// table move out (so the only move that wins the queen is singular, and a
// poor move is not, since the winning one is searched), and it keeps its
// result off the position's own table entry.
func TestIsSingular(t *testing.T) {
	g := chess.Game{}
	// Only Rxd5 wins the black queen, which attacks the rook.
	st := chessState(t, "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
	win, err := st.ParseMove("d1d5")
	if err != nil {
		t.Fatal(err)
	}
	poor, err := st.ParseMove("e1f2")
	if err != nil {
		t.Fatal(err)
	}
	cfg := AllFeatures()
	cfg.Depth, cfg.TableBits, cfg.SingularExtensions = singularMinDepth, 16, true
	sr, err := New(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sr.Search(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if res.Move != win {
		t.Fatalf("played %s, want d1d5", g.FormatAction(res.Move))
	}
	key := st.Hash()
	before, ok := sr.tt.probe(key)
	if !ok {
		t.Fatal("no table entry for the root")
	}
	sr.refresh(0, st)
	if !sr.isSingular(0, singularMinDepth, win, res.Value) {
		t.Errorf("Rxd5 (value %.4f) not singular", res.Value)
	}
	if sr.isSingular(0, singularMinDepth, poor, res.Value) {
		t.Errorf("Kf2 singular against the value %.4f of Rxd5", res.Value)
	}
	if after, _ := sr.tt.probe(key); after != before {
		t.Errorf("the root's table entry changed from %+v to %+v: the excluded search's result went under the position's key", before, after)
	}
	if sr.excluded[0] != -1 {
		t.Errorf("excluded move %d left at ply 0", sr.excluded[0])
	}
	// A position's only move is singular: no other move is left.
	only := chessState(t, "7k/8/8/8/8/8/6q1/7K w - - 0 1")
	moves := only.LegalActions(nil)
	if len(moves) != 1 {
		t.Fatalf("%d legal moves, want 1", len(moves))
	}
	sr.refresh(0, only)
	if !sr.isSingular(0, singularMinDepth, moves[0], 0) {
		t.Error("the only legal move is not singular")
	}
}

// TestSingularExtensionsLazySMP checks the helpers make singular extensions
// too and the result counts theirs (run under -race, that the verification
// searches share the table safely).
func TestSingularExtensionsLazySMP(t *testing.T) {
	cfg := AllFeatures()
	cfg.Depth, cfg.TableBits, cfg.Threads, cfg.SingularExtensions = singularMinDepth+1, 16, 2, true
	sr, err := New(chess.Game{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sr.Search(context.Background(), chessState(t, singularPosition))
	if err != nil {
		t.Fatal(err)
	}
	sum := sr.acts.singExt
	for i, h := range sr.helpers {
		if !h.singular {
			t.Errorf("helper %d: singular extensions off", i+1)
		}
		sum += h.acts.singExt
	}
	if res.SingularExtensions == 0 || res.SingularExtensions != sum {
		t.Errorf("%d singular extensions in the result, %d counted by the searchers", res.SingularExtensions, sum)
	}
}
