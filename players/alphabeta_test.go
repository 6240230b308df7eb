package players

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"tabula/games"
	"tabula/games/chess"
	"tabula/games/connect4"
	"tabula/search"
	"tabula/search/retro"
)

// TestAlphaBetaClock plays chess moves with a game clock of one second:
// the player keeps its own clock, so the moves together stay within it.
func TestAlphaBetaClock(t *testing.T) {
	g := chess.Game{}
	p := mustNewPlayer(t, g, "alphabeta:clock=1s,inc=10ms", 2)
	s := g.NewInitialState()
	start := time.Now()
	for i := 0; i < 12 && !s.IsTerminal(); i++ {
		a, err := p.ChooseAction(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsLegal(a) {
			t.Fatalf("move %d: illegal action %d", i, a)
		}
		s.ApplyAction(a)
	}
	if el := time.Since(start); el > 1200*time.Millisecond {
		t.Errorf("12 moves on a 1s+10ms clock took %v", el)
	}
	left := p.(*alphaBetaPlayer).clock
	if left <= 0 || left > time.Second+120*time.Millisecond {
		t.Errorf("clock left %v, want in (0, 1.12s]", left)
	}
}

// TestAlphaBetaEGTB checks the egtb switch: with a folder holding KRK the
// player mates as fast as the table says; a folder without tables and a
// game other than chess are refused.
func TestAlphaBetaEGTB(t *testing.T) {
	dir := t.TempDir()
	krk, err := retro.BuildChess(context.Background(), "KRK", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := krk.Save(filepath.Join(dir, "KRK"+retro.Ext)); err != nil {
		t.Fatal(err)
	}
	ts, err := retro.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := chess.Game{}
	p := mustNewPlayer(t, g, `alphabeta:depth=1,egtb="`+dir+`"`, 2)
	st, err := g.NewState("8/8/8/3k4/8/8/8/R3K3 w - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	pos := st.Position()
	v, _ := ts.ProbePosition(&pos)
	a, err := p.ChooseAction(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	st.ApplyAction(a)
	pos = st.Position()
	if next, _ := ts.ProbePosition(&pos); next.Plies() != v.Plies()-1 || next.Outcome() != -1 {
		t.Errorf("%s took %v to %v", chess.MoveOf(a), v, next)
	}
	for _, c := range []struct {
		game games.Game
		spec string
	}{
		{g, "alphabeta:egtb=" + t.TempDir()},
		{connect4.Game{}, `alphabeta:egtb="` + dir + `"`},
	} {
		sp, err := ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Build(c.game, sp); err == nil {
			t.Errorf("%s for %s: no error", c.spec, c.game.Name())
		}
	}
}

// TestAlphaBetaCPU plays chess moves with cpu=5ms: each search spends its
// thread's CPU time, and the searches after the first (which also pays for
// touching the fresh transposition table) reach depth 3. A
// CPU budget with another limit is refused. With threads=2 the budget is
// the two threads' sum (search's TestCPUBudgetThreads checks the sum).
func TestAlphaBetaCPU(t *testing.T) {
	g := chess.Game{}
	for _, bad := range []string{"alphabeta:cpu=5ms,time=1s", "alphabeta:cpu=0s"} {
		sp, err := ParseSpec(bad)
		if err == nil {
			_, err = Build(g, sp)
		}
		if err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	p := mustNewPlayer(t, g, "alphabeta:cpu=5ms", 2)
	s := g.NewInitialState()
	for i := 0; i < 6 && !s.IsTerminal(); i++ {
		a, err := p.ChooseAction(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsLegal(a) {
			t.Fatalf("move %d: illegal action %d", i, a)
		}
		if d := p.(*alphaBetaPlayer).last.Depth; i > 0 && d < 3 {
			t.Errorf("move %d: depth %d in 5ms of CPU time, want at least 3", i, d)
		}
		s.ApplyAction(a)
	}
	p = mustNewPlayer(t, g, "alphabeta:cpu=20ms,threads=2", 2)
	s = g.NewInitialState()
	for i := 0; i < 2; i++ {
		a, err := p.ChooseAction(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsLegal(a) {
			t.Fatalf("threads=2, move %d: illegal action %d", i, a)
		}
		if r := p.(*alphaBetaPlayer).last; r.HelperNodes == 0 || r.CPU == 0 || r.CPU > 60*time.Millisecond {
			t.Errorf("threads=2, move %d: %d helper nodes, %v of CPU for a 20ms budget", i, r.HelperNodes, r.CPU)
		}
		s.ApplyAction(a)
	}
}

// TestAlphaBetaSingex checks the singex key: off by default, on with
// singex=1, where a depth-9 search of WAC.006 makes singular extensions.
func TestAlphaBetaSingex(t *testing.T) {
	g := chess.Game{}
	s, err := g.NewState("7k/p7/1R5K/6r1/6p1/6P1/8/8 w - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec string
		on   bool
	}{{"alphabeta:depth=9", false}, {"alphabeta:depth=9,singex=0", false}, {"alphabeta:depth=9,singex=1", true}} {
		p := mustNewPlayer(t, g, tc.spec, 1)
		if _, err := p.ChooseAction(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		if n := p.(*alphaBetaPlayer).last.SingularExtensions; (n > 0) != tc.on {
			t.Errorf("%s: %d singular extensions", tc.spec, n)
		}
	}
	sp, err := ParseSpec("alphabeta:singex=2")
	if err == nil {
		_, err = Build(g, sp)
	}
	if err == nil {
		t.Error("alphabeta:singex=2 accepted")
	}
}

// TestAlphaBetaOffSwitches checks the lmp, seeprune and iir keys: off by
// default, on with 1, where a depth-9 search of a middlegame acts on some
// nodes; 2 is refused.
func TestAlphaBetaOffSwitches(t *testing.T) {
	g := chess.Game{}
	s, err := g.NewState("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8")
	if err != nil {
		t.Fatal(err)
	}
	for _, sw := range []struct {
		key   string
		count func(search.Result) int64
	}{
		{"lmp", func(r search.Result) int64 { return r.LateMovePruned }},
		{"seeprune", func(r search.Result) int64 { return r.SEEPruned }},
		{"iir", func(r search.Result) int64 { return r.IIRs }},
	} {
		for _, tc := range []struct {
			spec string
			on   bool
		}{{"alphabeta:depth=9", false}, {"alphabeta:depth=9," + sw.key + "=0", false}, {"alphabeta:depth=9," + sw.key + "=1", true}} {
			p := mustNewPlayer(t, g, tc.spec, 1)
			if _, err := p.ChooseAction(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			if n := sw.count(p.(*alphaBetaPlayer).last); (n > 0) != tc.on {
				t.Errorf("%s: %s acted %d times", tc.spec, sw.key, n)
			}
		}
		sp, err := ParseSpec("alphabeta:" + sw.key + "=2")
		if err == nil {
			_, err = Build(g, sp)
		}
		if err == nil {
			t.Errorf("alphabeta:%s=2 accepted", sw.key)
		}
	}
}

// TestAlphaBetaThreads plays three chess moves from a middlegame with Lazy
// SMP on a wall-clock budget (threads=2,time=50ms): every move is legal,
// comes back well within a sanity bound (not a timing measurement: the
// bound only catches helpers that do not stop), and came from a search in
// which the helper searched too.
func TestAlphaBetaThreads(t *testing.T) {
	g := chess.Game{}
	// Kiwipete (Peter McKenzie's perft position), a middlegame full of
	// captures, checks and castling rights.
	s, err := g.NewState("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	p := mustNewPlayer(t, g, "alphabeta:threads=2,time=50ms", 3)
	for i := 0; i < 3 && !s.IsTerminal(); i++ {
		start := time.Now()
		a, err := p.ChooseAction(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("move %d: %v on a 50ms budget with 2 threads, want under 2s", i, took)
		}
		if !s.IsLegal(a) {
			t.Fatalf("move %d: illegal action %d", i, a)
		}
		if r := p.(*alphaBetaPlayer).last; r.Depth < 1 || r.HelperNodes == 0 || r.HelperNodes >= r.Nodes {
			t.Errorf("move %d: depth %d, %d nodes of which %d the helper's, want depth >= 1 and nodes from both threads", i, r.Depth, r.Nodes, r.HelperNodes)
		}
		s.ApplyAction(a)
	}
}
