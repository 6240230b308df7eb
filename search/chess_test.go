package search

import (
	"context"
	"testing"

	"tabula/games/chess"
)

// The chess state has the capabilities the engine uses.
var (
	_ Tactical  = (*chess.State)(nil)
	_ NullMover = (*chess.State)(nil)
	_ Copier    = (*chess.State)(nil)
	_ Repeater  = (*chess.State)(nil)
)

// chessState returns the chess state of fen, failing t on a bad FEN.
func chessState(t testing.TB, fen string) *chess.State {
	t.Helper()
	s, err := chess.Game{}.NewState(fen)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// matePly returns after how many plies from a fresh state a proven win
// value v mates (see the package comment).
func matePly(v float64) int {
	if v < 0 {
		v = -v
	}
	return int((WinValue-v)/MoveDecay + 0.5)
}

func TestChessMates(t *testing.T) {
	g := chess.Game{}
	for _, tc := range []struct {
		name, fen string
		plies     int // the shortest mate, in plies
	}{
		{"scholar's mate in 1", "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1},
		{"back rank in 1", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1},
		{"rook ladder in 2", "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 3},
		{"queen and king in 2", "k7/8/2K5/8/8/8/8/7Q w - - 0 1", 3},
		// Black mates in 3: Bc5+ Kxc5 Qb6+ Kd5 Qd6#.
		{"king hunt in 3", "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 5},
		{"smothered mate in 2", "r6k/6pp/7N/8/8/1Q6/8/6K1 w - - 0 1", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, feats := range []struct {
				name string
				cfg  Config
			}{{"plain", Config{Ordering: true}}, {"all", AllFeatures()}} {
				// Reductions may hide a mate at exactly its depth: the
				// selective search gets two plies more.
				cfg := feats.cfg
				cfg.Depth, cfg.TableBits = tc.plies, 14
				if cfg.selective() {
					cfg.Depth += 2
				}
				res := searchOnce(t, g, cfg, chessState(t, tc.fen))
				if !IsProven(res.Value) || res.Value < 0 || matePly(res.Value) != tc.plies {
					t.Errorf("%s: move %s value %v (mate in %d plies), want a mate in %d plies; pv %s",
						feats.name, g.FormatAction(res.Move), res.Value, matePly(res.Value), tc.plies, g.FormatActions(res.PV))
				}
			}
		})
	}
}

func TestChessWinsMaterial(t *testing.T) {
	g := chess.Game{}
	for _, tc := range []struct {
		name, fen, want string
		depth           int
	}{
		// A knight fork of king and rook.
		{"fork", "r3k3/8/8/1N6/8/8/8/4K3 w - - 0 1", "b5c7", 4},
		// A check on the back rank skewers king and queen.
		{"skewer", "4k2q/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8", 4},
		// Take the hanging queen, not the defended rook.
		{"hanging queen", "3rk3/8/8/3q4/8/8/3R4/3QK3 w - - 0 1", "d2d5", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := AllFeatures()
			cfg.Depth, cfg.TableBits = tc.depth, 14
			res := searchOnce(t, g, cfg, chessState(t, tc.fen))
			if got := g.FormatAction(res.Move); got != tc.want {
				t.Errorf("played %s (value %.4f, pv %s), want %s", got, res.Value, g.FormatActions(res.PV), tc.want)
			}
		})
	}
}

// TestHorizonEffect shows the horizon effect: without quiescence a shallow
// search grabs a defended piece, since the recapture lies past its
// horizon; with quiescence it sees the recapture and does not.
func TestHorizonEffect(t *testing.T) {
	g := chess.Game{}
	for _, tc := range []struct {
		name, fen, poisoned string
		depth               int
	}{
		// Qxd5 wins a pawn but exd5 wins the queen.
		{"queen takes defended pawn", "4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", 1},
		// Rxe5 wins a knight but dxe5 wins the rook.
		{"rook takes defended knight", "6k1/8/3p4/4n3/8/8/8/4RK2 w - - 0 1", "e1e5", 1},
		// Qxd6 wins a rook but Bxd6 wins the queen.
		{"queen takes defended rook", "4k3/2b5/3r4/8/8/8/8/3QK3 w - - 0 1", "d1d6", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := chessState(t, tc.fen)
			want, err := s.ParseMove(tc.poisoned)
			if err != nil {
				t.Fatal(err)
			}
			cfg := AllFeatures()
			cfg.Depth, cfg.TableBits = tc.depth, 12
			cfg.Quiescence = false
			blind := searchOnce(t, g, cfg, s)
			if blind.Move != want {
				t.Errorf("without quiescence played %s, not the poisoned %s: the position no longer shows the horizon effect", g.FormatAction(blind.Move), tc.poisoned)
			}
			cfg.Quiescence = true
			seeing := searchOnce(t, g, cfg, s)
			if seeing.Move == want {
				t.Errorf("with quiescence played the poisoned %s (value %.4f, pv %s)", tc.poisoned, seeing.Value, g.FormatActions(seeing.PV))
			}
		})
	}
}

// switchPositions are middlegame positions for the switch and benchmark
// tests: Kiwipete (the perft test position) and a Queen's Gambit Declined.
var switchPositions = []string{
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
}

// switches names each feature switch with a function that turns it off.
var switches = []struct {
	name string
	off  func(*Config)
}{
	{"ordering", func(c *Config) { c.Ordering = false }},
	{"killers", func(c *Config) { c.Killers = false }},
	{"history", func(c *Config) { c.History = false }},
	{"pvs", func(c *Config) { c.PVS = false }},
	{"aspiration", func(c *Config) { c.Aspiration = false }},
	{"quiescence", func(c *Config) { c.Quiescence = false }},
	{"see", func(c *Config) { c.SEE = false }},
	{"extensions", func(c *Config) { c.Extensions = false }},
	{"null move", func(c *Config) { c.NullMove = false }},
	{"lmr", func(c *Config) { c.LMR = false }},
	{"futility", func(c *Config) { c.Futility = false }},
	{"history malus", func(c *Config) { c.HistoryMalus = false }},
}

// TestSwitchesChangeSearch turns each switch off in turn on middlegame
// positions searched to a fixed depth: each one changes the node count.
// Singular extensions, off in AllFeatures, are turned on instead, at a
// depth where they act (the root's children at singularMinDepth).
func TestSwitchesChangeSearch(t *testing.T) {
	g := chess.Game{}
	run := func(cfg Config) (nodes [2]int64) {
		cfg.TableBits = 16
		for i, fen := range switchPositions {
			cfg.Depth = [2]int{4, 6}[i] // Kiwipete is slow without ordering
			nodes[i] = searchOnce(t, g, cfg, chessState(t, fen)).Nodes
		}
		return nodes
	}
	full := run(AllFeatures())
	t.Logf("all features: %d nodes", full)
	for _, sw := range switches {
		cfg := AllFeatures()
		sw.off(&cfg)
		n := run(cfg)
		t.Logf("%s off: %d nodes", sw.name, n)
		if n == full {
			t.Errorf("%s off: %d nodes, the same as with it on", sw.name, n)
		}
	}
	cfg := AllFeatures()
	cfg.Depth, cfg.TableBits = singularMinDepth+1, 16
	qgd := chessState(t, switchPositions[1])
	off := searchOnce(t, g, cfg, qgd)
	cfg.SingularExtensions = true
	on := searchOnce(t, g, cfg, qgd)
	t.Logf("depth %d: %d nodes, with singular extensions %d", cfg.Depth, off.Nodes, on.Nodes)
	if on.Nodes == off.Nodes {
		t.Errorf("singular extensions on at depth %d: %d nodes, the same as off", cfg.Depth, on.Nodes)
	}
}

// TestAllFeaturesOtherGames runs the full engine on games without the
// chess capabilities: it still finds the Connect Four tactics.
func TestAllFeaturesOtherGames(t *testing.T) {
	g := newGame(t, "connect4")
	for _, tc := range []struct {
		moves string
		depth int
		want  []string
	}{
		{"121212", 3, []string{"1"}},
		{"12121", 6, []string{"1"}},
		{"172747", 5, []string{"3"}},
		{"3747", 7, []string{"2", "5"}},
	} {
		cfg := DefaultConfig()
		cfg.Depth = tc.depth
		res := searchOnce(t, g, cfg, replay(t, g, tc.moves))
		got := g.(interface{ FormatAction(int) string }).FormatAction(res.Move)
		if got != tc.want[0] && got != tc.want[len(tc.want)-1] {
			t.Errorf("connect4 %q: played %s, want one of %v", tc.moves, got, tc.want)
		}
	}
}

// TestNullMoveZugzwangGuard checks null move is not tried with only king
// and pawns: a search with and without it visits the same nodes.
func TestNullMoveZugzwangGuard(t *testing.T) {
	g := chess.Game{}
	s := chessState(t, "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1")
	run := func(null bool) int64 {
		cfg := AllFeatures()
		cfg.Depth, cfg.TableBits, cfg.NullMove = 8, 14, null
		return searchOnce(t, g, cfg, s).Nodes
	}
	if on, off := run(true), run(false); on != off {
		t.Errorf("king and pawns only: %d nodes with null move, %d without; want equal (no null move)", on, off)
	}
}

// TestChessSearchAllocations checks the chess node loop allocates nothing:
// a whole search allocates only its result's principal variation. The
// second search has singular extensions on, at a depth where they act.
func TestChessSearchAllocations(t *testing.T) {
	g := chess.Game{}
	for _, tc := range []struct {
		fen      string
		depth    int
		singular bool
	}{
		{"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, false},
		{singularPosition, singularMinDepth + 1, true},
	} {
		s := chessState(t, tc.fen)
		cfg := AllFeatures()
		cfg.Depth, cfg.TableBits, cfg.SingularExtensions = tc.depth, 14, tc.singular
		sr, _ := New(g, cfg)
		res, err := sr.Search(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if tc.singular && res.SingularExtensions == 0 {
			t.Errorf("%s: no singular extension at depth %d", tc.fen, tc.depth)
		}
		// Each measured search starts from an empty table (Reset does not
		// allocate), so that it searches the whole tree again.
		allocs := testing.AllocsPerRun(3, func() {
			sr.Reset()
			res, _ = sr.Search(context.Background(), s)
		})
		if tc.singular && res.SingularExtensions == 0 {
			t.Errorf("%s: no singular extension in the measured searches", tc.fen)
		}
		if allocs > 2 {
			t.Errorf("%s depth %d (singular extensions %v): %.0f allocations per search, want <= 2", tc.fen, tc.depth, tc.singular, allocs)
		}
	}
}

// TestRepetitionDraws plays 1.Kh1 Qd3 2.Kg1 Qd2 from a position where
// White, a queen down, is lost, back to the start: then 3.Kh1 repeats the
// position after 1.Kh1. With RepetitionDraws the search scores that move
// a draw and plays it; without, every move is lost by a queen or more.
func TestRepetitionDraws(t *testing.T) {
	g := chess.Game{}
	s := chessState(t, "6k1/8/8/8/8/8/3q4/6K1 w - - 0 1")
	for _, m := range []string{"g1h1", "d2d3", "h1g1", "d3d2"} {
		a, err := s.ParseMove(m)
		if err != nil {
			t.Fatal(err)
		}
		s.ApplyAction(a)
	}
	if s.Repetitions() != 1 {
		t.Fatalf("the root occurred %d times before, want 1", s.Repetitions())
	}
	kh1, err := s.ParseMove("g1h1")
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range []bool{true, false} {
		cfg := AllFeatures()
		cfg.Depth, cfg.TableBits, cfg.RepetitionDraws = 4, 16, rep
		res := searchOnce(t, g, cfg, s)
		t.Logf("repetition draws %v: move %s, value %.3f", rep, chess.MoveOf(res.Move), res.Value)
		switch {
		case rep && (res.Move != kh1 || res.Value != 0 || res.Proven):
			t.Errorf("with repetition draws: move %s value %v proven %v, want g1h1, 0 (a draw by the search's rule, unproven)", chess.MoveOf(res.Move), res.Value, res.Proven)
		case !rep && res.Value > -800*chess.Game{}.NewInitialState().(Tactical).Centipawn():
			t.Errorf("without repetition draws: value %v, want a queen down or worse", res.Value)
		}
	}
}

// TestHistoryMalus searches a middlegame with and without the history
// malus: with it, quiet moves searched before a cutoff's move end with
// negative scores and gravity keeps every score within historyMax; without
// it no score is negative.
func TestHistoryMalus(t *testing.T) {
	g := chess.Game{}
	for _, malus := range []bool{true, false} {
		cfg := AllFeatures()
		cfg.Depth, cfg.TableBits, cfg.HistoryMalus = 7, 16, malus
		sr, err := New(g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sr.Search(context.Background(), chessState(t, benchPositions[4])); err != nil {
			t.Fatal(err)
		}
		neg, pos, most := 0, 0, int64(0)
		for _, h := range sr.history {
			switch {
			case h < 0:
				neg++
			case h > 0:
				pos++
			}
			most = max(most, h, -h)
		}
		t.Logf("malus %v: %d negative, %d positive scores, largest |h| %d", malus, neg, pos, most)
		switch {
		case malus && (neg == 0 || pos == 0 || most > historyMax):
			t.Errorf("with the malus: %d negative and %d positive scores, largest |h| %d: want both signs, within %d", neg, pos, most, historyMax)
		case !malus && (neg != 0 || pos == 0):
			t.Errorf("without the malus: %d negative and %d positive scores: want positive ones only", neg, pos)
		}
	}
}
