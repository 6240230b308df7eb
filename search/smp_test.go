package search

import (
	"context"
	"strings"
	"testing"
	"time"

	"tabula/games/chess"
)

// TestLazySMP searches with helpers: the main search reaches the depth it
// is asked for with a legal move, every helper searches and their nodes
// count in the result's; mates are still found at their distance; a timed
// search stops the helpers in time; and later calls on the same Searcher
// reuse them. Run under -race, it checks that the shared table is read and
// written safely.
func TestLazySMP(t *testing.T) {
	g := chess.Game{}
	cfg := AllFeatures()
	cfg.Depth, cfg.TableBits, cfg.Threads = 5, 14, 3
	sr, err := New(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, fen := range benchPositions[:3] {
		st := chessState(t, fen)
		res, err := sr.Search(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if res.Depth != 5 || !st.IsLegal(res.Move) {
			t.Errorf("%s: depth %d move %d, want depth 5 and a legal move", fen, res.Depth, res.Move)
		}
		helperNodes := int64(0)
		for i, h := range sr.helpers {
			if h.nodes == 0 {
				t.Errorf("%s: helper %d searched no node", fen, i+1)
			}
			helperNodes += h.nodes
		}
		if res.Nodes <= helperNodes || res.HelperNodes != helperNodes {
			t.Errorf("%s: %d nodes in all, %d of them the helpers' (result: %d)", fen, res.Nodes, helperNodes, res.HelperNodes)
		}
	}

	// Black mates in 3 moves (5 plies): Bc5+ Kxc5 Qb6+ Kd5 Qd6#.
	st := chessState(t, "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1")
	sr.Reset()
	res, err := sr.SearchLimits(context.Background(), st, Limits{Depth: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !IsProven(res.Value) || res.Value < 0 || matePly(res.Value) != 5 {
		t.Errorf("king hunt: value %v (mate in %d plies), want a mate in 5 plies", res.Value, matePly(res.Value))
	}

	start := time.Now()
	res, err = sr.SearchLimits(context.Background(), chessState(t, benchPositions[0]), Limits{MoveTime: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Second || res.Depth < 1 {
		t.Errorf("50ms search took %v, depth %d", took, res.Depth)
	}
}

func TestLazySMPNeedsTable(t *testing.T) {
	cfg := AllFeatures()
	cfg.Threads = 2
	if _, err := New(chess.Game{}, cfg); err == nil || !strings.Contains(err.Error(), "table") {
		t.Errorf("threads=2 without a table: %v, want an error about the table", err)
	}
	cfg.Threads, cfg.TableBits = -1, 10
	if _, err := New(chess.Game{}, cfg); err == nil {
		t.Error("threads=-1 accepted")
	}
}
