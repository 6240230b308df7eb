package search

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"tabula/games"
	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	"tabula/games/othello"
)

func newGame(t testing.TB, spec string) games.Game {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// randomPositions returns n non-terminal positions reached by uniformly random
// moves, plies chosen in [lo, hi).
func randomPositions(t testing.TB, g games.Game, n, lo, hi int, seed uint64) []games.State {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	var out []games.State
	var buf []int
	for len(out) < n {
		s := g.NewInitialState()
		plies := lo + rng.IntN(hi-lo)
		for i := 0; i < plies && !s.IsTerminal(); i++ {
			buf = s.LegalActions(buf)
			s.ApplyAction(buf[rng.IntN(len(buf))])
		}
		if !s.IsTerminal() {
			out = append(out, s)
		}
	}
	return out
}

// searchOnce runs a new Searcher of g with cfg on s, failing t on an error.
func searchOnce(t testing.TB, g games.Game, cfg Config, s games.State) Result {
	t.Helper()
	sr, err := New(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sr.Search(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func replay(t testing.TB, g games.Game, moves string) games.State {
	t.Helper()
	s, _, err := games.ParseAndReplay(g, moves)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var testGames = []struct {
	spec    string
	depth   int
	lo, hi  int
	samples int
}{
	{"connect4", 4, 0, 30, 40},
	{"othello:size=6", 3, 0, 25, 25},
	{"othello", 3, 0, 40, 15},
	{"go:size=5", 2, 0, 20, 10},
}

// TestMinimaxEqualsAlphaBeta checks plain alpha-beta against minimax on random
// positions of every game.
func TestMinimaxEqualsAlphaBeta(t *testing.T) {
	for _, tg := range testGames {
		t.Run(tg.spec, func(t *testing.T) {
			g := newGame(t, tg.spec)
			var mmNodes, abNodes int64
			for i, s := range randomPositions(t, g, tg.samples, tg.lo, tg.hi, 1) {
				for d := 1; d <= tg.depth; d++ {
					mv, mn, err := Minimax(s, d)
					if err != nil {
						t.Fatal(err)
					}
					av, an, err := AlphaBeta(s, d)
					if err != nil {
						t.Fatal(err)
					}
					if mv != av {
						t.Fatalf("position %d depth %d: minimax %v, alpha-beta %v\n%v", i, d, mv, av, s)
					}
					if an > mn {
						t.Errorf("position %d depth %d: alpha-beta visited %d nodes, minimax %d", i, d, an, mn)
					}
					mmNodes += mn
					abNodes += an
				}
			}
			t.Logf("nodes: minimax %d, alpha-beta %d", mmNodes, abNodes)
			if abNodes >= mmNodes {
				t.Errorf("alpha-beta saved nothing: %d >= %d nodes", abNodes, mmNodes)
			}
		})
	}
}

// TestSearcherEqualsAlphaBeta checks that iterative deepening with every
// combination of table, ordering and PVS finds the plain alpha-beta value at
// equal depth.
func TestSearcherEqualsAlphaBeta(t *testing.T) {
	for _, tg := range testGames {
		t.Run(tg.spec, func(t *testing.T) {
			g := newGame(t, tg.spec)
			positions := randomPositions(t, g, tg.samples, tg.lo, tg.hi, 2)
			for mask := 0; mask < 8; mask++ {
				cfg := Config{Depth: tg.depth + 1, Ordering: mask&1 != 0, Killers: mask&1 != 0, History: mask&1 != 0, PVS: mask&2 != 0}
				if mask&4 != 0 {
					cfg.TableBits = 12
				}
				sr, err := New(g, cfg)
				if err != nil {
					t.Fatal(err)
				}
				for i, s := range positions {
					before := s.Hash()
					res, err := sr.Search(context.Background(), s)
					if err != nil {
						t.Fatal(err)
					}
					if s.Hash() != before {
						t.Fatalf("Search modified the root")
					}
					if !s.IsLegal(res.Move) {
						t.Fatalf("%+v: position %d: illegal move %d", cfg, i, res.Move)
					}
					want, _, _ := AlphaBeta(s, res.Depth)
					if res.Value != want {
						t.Errorf("%+v: position %d depth %d: value %v, alpha-beta %v", cfg, i, res.Depth, res.Value, want)
					}
					if !res.Proven && res.Depth != cfg.Depth {
						t.Errorf("%+v: position %d: stopped at depth %d of %d without a proven value", cfg, i, res.Depth, cfg.Depth)
					}
					// The best move's own value is the root value.
					c := s.Clone()
					c.ApplyAction(res.Move)
					if !res.Proven {
						continue
					}
					var mv float64
					switch {
					case c.IsTerminal():
						mv = terminalValue(c, s.CurrentPlayer())
					default:
						v, _, _ := AlphaBeta(c, res.Depth-1)
						mv = v
						if c.CurrentPlayer() != s.CurrentPlayer() {
							mv = -v
						}
					}
					if mv != res.Value {
						t.Errorf("%+v: position %d: move %d is worth %v, reported %v", cfg, i, res.Move, mv, res.Value)
					}
				}
			}
		})
	}
}

// TestOrderingSavesNodes asserts strictly fewer nodes with ordering (and with
// the table) than without, on fixed positions.
func TestOrderingSavesNodes(t *testing.T) {
	for _, tc := range []struct {
		spec, moves string
		depth       int
	}{
		{"connect4", "4453", 8},
		{"connect4", "44444", 8},
		{"connect4", "1234567", 9},
		{"othello", "f5d6c3", 5},
		{"othello:size=6", "", 6},
	} {
		g := newGame(t, tc.spec)
		s := replay(t, g, tc.moves)
		nodes := func(cfg Config) int64 {
			cfg.Depth = tc.depth
			return searchOnce(t, g, cfg, s).Nodes
		}
		plain := nodes(Config{})
		ordered := nodes(Config{Ordering: true, Killers: true, History: true})
		full := nodes(Config{Ordering: true, TableBits: 16, PVS: true})
		t.Logf("%s %q depth %d: nodes plain %d, ordering %d, ordering+table+PVS %d", tc.spec, tc.moves, tc.depth, plain, ordered, full)
		if !(ordered < plain) || !(full < plain) {
			t.Errorf("%s %q: ordering did not cut nodes: plain %d, ordered %d, full %d", tc.spec, tc.moves, plain, ordered, full)
		}
	}
}

func TestTactics(t *testing.T) {
	for _, tc := range []struct {
		name, spec, moves string
		depth             int
		want              []string // acceptable moves
		proven            float64  // sign of a proven value, 0 if not required
	}{
		// X has three in column 1 and wins at once.
		{"connect4 win in 1", "connect4", "121212", 1, []string{"1"}, 1},
		// X threatens column 1; O must block.
		{"connect4 must block", "connect4", "12121", 4, []string{"1"}, 0},
		// X holds 1, 2 and 4 on the bottom row; O has three in column 7:
		// X must win at once in the gap.
		{"connect4 fill the gap", "connect4", "172747", 3, []string{"3"}, 1},
		// X holds 3 and 4 on the bottom row: 2 or 5 makes an open three,
		// a double threat O cannot stop.
		{"connect4 double threat", "connect4", "3747", 5, []string{"2", "5"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGame(t, tc.spec)
			s := replay(t, g, tc.moves)
			res := searchOnce(t, g, Config{Depth: tc.depth, TableBits: 12, Ordering: true, Killers: true, History: true, PVS: true}, s)
			got := g.(games.Notation).FormatAction(res.Move)
			ok := false
			for _, w := range tc.want {
				ok = ok || got == w
			}
			if !ok {
				t.Errorf("played %s (value %.4f, pv %v), want one of %v\n%v", got, res.Value, res.PV, tc.want, s)
			}
			if tc.proven != 0 && !(IsProven(res.Value) && math.Signbit(res.Value) == (tc.proven < 0)) {
				t.Errorf("value %v, want a proven %+v", res.Value, tc.proven)
			}
		})
	}
}

// TestOthelloCornerGrab gives black the a1 corner (capturing b1 along the
// edge) beside ordinary central moves: every depth takes the corner.
func TestOthelloCornerGrab(t *testing.T) {
	g := newGame(t, "othello")
	board := "" +
		"-OX-----" + // a1 is row 1, left
		"--------" +
		"--------" +
		"---OX---" +
		"---XO---" +
		"--------" +
		"--------" +
		"--------"
	pos, err := othello.ParseOBF(board + " X")
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.(*othello.Game).NewState(pos.Black, pos.White, pos.Player, 6)
	if err != nil {
		t.Fatal(err)
	}
	n := g.(games.Notation)
	for d := 1; d <= 6; d++ {
		res := searchOnce(t, g, Config{Depth: d, TableBits: 14, Ordering: true, Killers: true, History: true, PVS: true}, s)
		if got := n.FormatAction(res.Move); got != "a1" {
			t.Errorf("depth %d: played %s (value %.3f), want the corner a1\n%v", d, got, res.Value, s)
		}
	}
}

func TestBudgets(t *testing.T) {
	g := newGame(t, "connect4")
	s := replay(t, g, "44")
	t.Run("nodes", func(t *testing.T) {
		sr, _ := New(g, Config{Nodes: 20000, TableBits: 14, Ordering: true, Killers: true, History: true, PVS: true})
		res, err := sr.Search(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Depth < 3 || res.Proven || !s.IsLegal(res.Move) {
			t.Errorf("node budget: depth %d proven %v move %d", res.Depth, res.Proven, res.Move)
		}
		if res.Nodes > 20000+1 {
			t.Errorf("visited %d nodes over a budget of 20000", res.Nodes)
		}
	})
	t.Run("time", func(t *testing.T) {
		sr, _ := New(g, Config{Time: 50 * time.Millisecond, TableBits: 14, Ordering: true, Killers: true, History: true, PVS: true})
		start := time.Now()
		res, err := sr.Search(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el > time.Second {
			t.Errorf("50 ms budget took %v", el)
		}
		if res.Depth < 2 || !s.IsLegal(res.Move) {
			t.Errorf("time budget: depth %d move %d", res.Depth, res.Move)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		sr, _ := New(g, Config{TableBits: 14, Ordering: true, Killers: true, History: true})
		res, err := sr.Search(ctx, s)
		if err != nil || res.Depth != 1 || !s.IsLegal(res.Move) {
			t.Errorf("cancelled: depth %d move %d err %v, want the depth-1 move", res.Depth, res.Move, err)
		}
	})
	t.Run("endgame solved", func(t *testing.T) {
		// An L3 position: the unlimited search proves it.
		s := replay(t, g, "2252576253462244111563365343671351441")
		sr, _ := New(g, Config{TableBits: 16, Ordering: true, Killers: true, History: true, PVS: true})
		res, err := sr.Search(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Proven {
			t.Errorf("endgame not proven: depth %d value %v", res.Depth, res.Value)
		}
	})
}

func TestBadInput(t *testing.T) {
	g := newGame(t, "connect4")
	for _, cfg := range []Config{{Depth: -1}, {Nodes: -1}, {Time: -1}, {TableBits: MaxTableBits + 1}} {
		if _, err := New(g, cfg); err == nil {
			t.Errorf("New(%+v) gave no error", cfg)
		}
	}
	sr, _ := New(g, DefaultConfig())
	won := replay(t, g, "1212121")
	if _, err := sr.Search(context.Background(), won); err == nil {
		t.Error("search of a finished game gave no error")
	}
	if _, err := sr.Search(context.Background(), newGame(t, "othello").NewInitialState()); err == nil {
		t.Error("search of another game's state gave no error")
	}
	if _, _, err := Minimax(won, 2); err == nil {
		t.Error("minimax of a finished game gave no error")
	}
}

func TestCopyKind(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want copyKind
	}{{"connect4", copyAssign}, {"othello", copyAssign}, {"go:size=5", copyClone}} {
		g := newGame(t, tc.spec)
		// A Copier (connect4 and othello have CopyFrom) copies in place too.
		if got := copyKindOf(g.NewInitialState()); got != tc.want && got != copyCopier {
			t.Errorf("%s: copy kind %d, want %d", tc.spec, got, tc.want)
		}
	}
}

// TestSearchAllocations checks the node loop allocates nothing for a game
// whose states can be copied in place: a whole search allocates only its
// result's principal variation.
func TestSearchAllocations(t *testing.T) {
	g := newGame(t, "connect4")
	s := replay(t, g, "4453")
	sr, _ := New(g, Config{Depth: 7, TableBits: 14, Ordering: true, Killers: true, History: true, PVS: true})
	if _, err := sr.Search(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	var nodes int64
	allocs := testing.AllocsPerRun(5, func() {
		res, _ := sr.Search(context.Background(), s)
		nodes = res.Nodes
	})
	if allocs > 2 {
		t.Errorf("%.0f allocations per search of %d nodes, want <= 2", allocs, nodes)
	}
}

func BenchmarkSearch(b *testing.B) {
	for _, bc := range []struct {
		spec, moves string
		depth       int
	}{
		{"connect4", "4453", 10},
		{"othello", "f5d6c3", 6},
		{"go:size=7", "", 3},
	} {
		b.Run(bc.spec, func(b *testing.B) {
			g := newGame(b, bc.spec)
			s := replay(b, g, bc.moves)
			sr, err := New(g, Config{Depth: bc.depth, TableBits: 16, Ordering: true, Killers: true, History: true, PVS: true})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var nodes int64
			for b.Loop() {
				sr.Reset()
				res, err := sr.Search(context.Background(), s)
				if err != nil {
					b.Fatal(err)
				}
				nodes += res.Nodes
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}
