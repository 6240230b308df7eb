package retro_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"tabula/games/chess"
	"tabula/search"
	"tabula/search/retro"
)

// tables builds the tables of sigs in order (each one's sub-tables first).
func tables(t *testing.T, sigs ...string) *retro.Tables {
	t.Helper()
	ts := retro.NewTables()
	subs := map[string]*retro.Table{}
	for _, sig := range sigs {
		tab, err := retro.BuildChess(context.Background(), sig, subs, 0)
		if err != nil {
			t.Fatal(err)
		}
		subs[tab.Material] = tab
		ts.Add(tab)
	}
	return ts
}

// playPerfectly lets the alpha-beta engine, asking ts at every node, play
// both sides from fen, and checks that every move takes the distance to
// mate down by exactly one ply: the winner mates as fast as possible and
// the loser resists as long as possible.
func playPerfectly(t *testing.T, ts *retro.Tables, fen string) {
	t.Helper()
	st, err := chess.Game{}.NewState(fen)
	if err != nil {
		t.Fatal(err)
	}
	cfg := search.DefaultConfig()
	cfg.Depth = 2
	sr, err := search.New(chess.Game{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sr.SetOracle(ts)
	p := st.Position()
	v, ok := ts.ProbePosition(&p)
	if !ok || v.Outcome() != 1 {
		t.Fatalf("%s: table value %v %v, want a win", fen, v, ok)
	}
	start := v.Plies()
	for ply := 0; !st.IsTerminal(); ply++ {
		res, err := sr.Search(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		st.ApplyAction(res.Move)
		p := st.Position()
		next, ok := ts.ProbePosition(&p)
		if !ok || next.Plies() != v.Plies()-1 || next.Outcome() != -v.Outcome() {
			t.Fatalf("%s, ply %d: %s took %v to %v (%s)", fen, ply, chess.MoveOf(res.Move), v, next, p.FEN())
		}
		v = next
	}
	if st.Status() != chess.Checkmate || v != retro.Mated {
		t.Fatalf("%s: ended %v with value %v", fen, st.Status(), v)
	}
	t.Logf("%s: mate in %d plies, each move optimal", fen, start)
}

func TestEnginePlaysKQKAndKRK(t *testing.T) {
	ts := tables(t, "KQK", "KRK")
	for _, fen := range []string{
		"8/8/8/4k3/8/8/8/K6Q w - - 0 1",
		"8/8/8/3k4/8/8/8/R3K3 w - - 0 1",
		"4k3/8/8/8/8/8/1q6/4K3 b - - 0 1", // Black holds the queen
	} {
		playPerfectly(t, ts, fen)
	}
}

// TestEnginePlaysKBNK needs the KBNK table: it loads KBNK.rtb from
// $TABULA_EGTB when set, else builds it under TABULA_LONG=1 (minutes).
func TestEnginePlaysKBNK(t *testing.T) {
	ts := retro.NewTables()
	if dir := os.Getenv("TABULA_EGTB"); dir != "" {
		tab, err := retro.Load(filepath.Join(dir, "KBNK"+retro.Ext))
		if err != nil {
			t.Fatal(err)
		}
		ts.Add(tab)
	} else if os.Getenv("TABULA_LONG") == "1" {
		ts = tables(t, "KBNK")
	} else {
		t.Skip("set TABULA_EGTB to a folder with KBNK.rtb, or TABULA_LONG=1 to build it")
	}
	tab, _ := ts.Get("KBNK")
	// The first position of the longest mate in index order.
	var longest string
	for i := range tab.Size() {
		if v := tab.At(i); v.Outcome() == 1 && v.Plies() == tab.Stats.LongestWin {
			longest, _ = tab.FEN(i)
			break
		}
	}
	// The longest mate, the kings in the middle, the lone king in the
	// bishop's corner (h8, dark like the bishop on c1), and
	// Black holding the pieces.
	for _, fen := range []string{longest, "8/8/3k4/8/3K4/8/8/5BN1 w - - 0 1",
		"7k/8/5K2/8/8/8/8/2B1N3 w - - 0 1", "1bn5/8/8/4k3/8/8/8/K7 b - - 0 1"} {
		playPerfectly(t, ts, fen)
	}
}

// TestAgainstAlphaBeta checks short results of KQK and KRK against plain
// alpha-beta (search.AlphaBeta, no table) searched exactly as deep as the
// table's distance: a win in d plies must be worth a mate at ply d, a
// loss in d a mate against at ply d.
func TestAgainstAlphaBeta(t *testing.T) {
	ts := tables(t, "KQK", "KRK")
	for _, sig := range []string{"KQK", "KRK"} {
		tab, _ := ts.Get(sig)
		seen := map[retro.Value]int{}
		for i := 0; i < tab.Size(); i += 7 {
			v := tab.At(i)
			if v == retro.Illegal || v == retro.Draw || v.Plies() == 0 || v.Plies() > 4 || seen[v] == 3 {
				continue
			}
			seen[v]++
			fen, _ := tab.FEN(i)
			st, err := chess.Game{}.NewState(fen)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := search.AlphaBeta(st, v.Plies())
			if err != nil {
				t.Fatal(err)
			}
			want := float64(v.Outcome()) * (search.WinValue - float64(st.MoveNumber()+v.Plies())*search.MoveDecay)
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("%s %s: table %v, alpha-beta to depth %d: %v, want %v", sig, fen, v, v.Plies(), got, want)
			}
		}
		if len(seen) != 4 {
			t.Errorf("%s: results seen %v, want wins in 1, 3 and losses in 2, 4", sig, seen)
		}
	}
}
