package endgame

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"tabula/games/chess"
	"tabula/mcts"
	"tabula/search/retro"
)

var krkOnce = sync.OnceValues(func() (*retro.Table, error) {
	return retro.BuildChess(context.Background(), "KRK", nil, 0)
})

// krk builds the KRK table (about a second, once) into a set.
func krk(t *testing.T) *retro.Tables {
	t.Helper()
	tab, err := krkOnce()
	if err != nil {
		t.Fatal(err)
	}
	ts := retro.NewTables()
	ts.Add(tab)
	return ts
}

// searchChess runs a PUCT search of 100 simulations on fen with a network
// that says 0 everywhere and puts a prior of 0.99 on favour, with the
// tables' prover when ts is not nil.
func searchChess(t *testing.T, ts *retro.Tables, fen, favour string) (mcts.Result, string) {
	t.Helper()
	g := chess.Game{}
	st, err := g.NewState(fen)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 100
	cfg.DirichletEpsilon = 0
	if ts != nil {
		if err := ConfigureTables(&cfg, g, ts); err != nil {
			t.Fatal(err)
		}
	}
	fav := -1
	if favour != "" {
		if fav, err = g.ParseAction(favour); err != nil {
			t.Fatal(err)
		}
	}
	s, err := mcts.NewSearch(cfg, uniform{favour: fav}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	return res, g.FormatAction(res.Action)
}

// drawn returns the first drawn KRK position of the table (Black to move:
// with White to move KRK has no draws).
func drawn(t *testing.T, ts *retro.Tables) string {
	t.Helper()
	tab, _ := ts.Get("KRK")
	for i := range tab.Size() {
		if fen, ok := tab.FEN(i); ok && tab.At(i) == retro.Draw {
			return fen
		}
	}
	t.Fatal("KRK: no drawn position")
	return ""
}

// TestTablesProveInMCTS: with the KRK table the search knows a KRK
// position won (value 1, where the network's 0 leaves it without). With
// White's undefended rook attacked by Black's king, it moves the rook away
// (a win, value 1) where without the table it plays the king move the
// network favours, which loses the rook (a draw).
func TestTablesProveInMCTS(t *testing.T) {
	ts := krk(t)
	const won = "8/8/8/3k4/8/8/8/R3K3 w - - 0 1"
	with, _ := searchChess(t, ts, won, "")
	without, _ := searchChess(t, nil, won, "")
	if with.Value != 1 || without.Value == 1 {
		t.Errorf("%s: root value %v with the table, %v without: want 1 with it only", won, with.Value, without.Value)
	}
	const hanging = "7K/8/8/8/4k3/3R4/8/8 w - - 0 1"
	with, move := searchChess(t, ts, hanging, "h8g8")
	if with.Value != 1 || move[:2] != "d3" {
		t.Errorf("%s with the table: %s, value %v; want a rook move, value 1", hanging, move, with.Value)
	}
	without, move = searchChess(t, nil, hanging, "h8g8")
	if move != "h8g8" || without.Value == 1 {
		t.Errorf("%s without the table: %s, value %v; want the network's h8g8, unproven", hanging, move, without.Value)
	}
}

func TestConfigureTablesErrors(t *testing.T) {
	ts := krk(t)
	cfg := mcts.DefaultConfig()
	if err := ConfigureTables(&cfg, newGame(t, "connect4"), ts); err == nil {
		t.Error("connect4: no error")
	}
	cfg.Solver = false
	if err := ConfigureTables(&cfg, chess.Game{}, ts); err == nil {
		t.Error("solver off: no error")
	}
	cfg.Solver = true
	if err := ConfigureTables(&cfg, chess.Game{}, retro.NewTables()); err == nil {
		t.Error("no tables: no error")
	}
	if err := ConfigureTables(&cfg, chess.Game{}, ts); err != nil || cfg.Endgame != 3 {
		t.Errorf("KRK: %v, endgame %d, want 3 men", err, cfg.Endgame)
	}
}

// TestTablesProver checks the prover's verdicts, for player 0, and its
// reach.
func TestTablesProver(t *testing.T) {
	ts := krk(t)
	cfg := mcts.DefaultConfig()
	if err := ConfigureTables(&cfg, chess.Game{}, ts); err != nil {
		t.Fatal(err)
	}
	p := cfg.Prover.NewProver().(*Tables)
	for _, c := range []struct {
		fen     string
		v       float32
		ok      bool
		reaches bool
	}{
		{"8/8/8/3k4/8/8/8/R3K3 w - - 0 1", 1, true, true},
		{"8/8/8/3k4/8/8/8/R3K3 b - - 0 1", 1, true, true},   // Black to move loses: +1 for White
		{"8/8/8/3k4/8/8/8/r3K3 w - - 0 1", -1, true, true},  // Black holds the rook
		{"8/8/8/3k4/8/8/8/Q3K3 w - - 0 1", 0, false, true},  // KQK: no table
		{"8/8/8/3k4/8/8/8/RR2K3 w - - 0 1", 0, false, true}, // 4 men: a capture may reach KRK
		{"8/8/8/3k4/8/8/8/RRR1K3 w - - 0 1", 0, false, false},
		{drawn(t, ts), 0, true, true},
	} {
		st, err := chess.Game{}.NewState(c.fen)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := p.Prove(st)
		if ok != c.ok || ok && v != c.v {
			t.Errorf("%s: Prove %v %v, want %v %v", c.fen, v, ok, c.v, c.ok)
		}
		if r := p.Reaches(st); r != c.reaches {
			t.Errorf("%s: Reaches %v, want %v", c.fen, r, c.reaches)
		}
	}
}
