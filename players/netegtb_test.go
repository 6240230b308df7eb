package players_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games/chess"
	"tabula/players"
	"tabula/players/playerstest"
	"tabula/search/retro"
)

// TestNetPlayerEGTB: an untrained chess network with egtb= holding KRK
// keeps the win in KRK positions (every move it plays leads to a position
// the table says Black loses), where its own priors would often drop the
// rook; and the key is refused with endgame=, outside chess, and for a
// folder without tables.
func TestNetPlayerEGTB(t *testing.T) {
	g := chess.Game{}
	tab, err := retro.BuildChess(context.Background(), "KRK", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := tab.Save(filepath.Join(dir, "KRK"+retro.Ext)); err != nil {
		t.Fatal(err)
	}
	ts := retro.NewTables()
	ts.Add(tab)
	path := untrainedNet(t, g)
	sp, err := players.ParseSpec(`net:path=` + path + `,sims=8,batch=1,egtb="` + dir + `"`)
	if err != nil {
		t.Fatal(err)
	}
	f, err := players.Build(g, sp)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := f.New(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	// White's rook attacked and undefended, and positions far from mate.
	for _, fen := range []string{
		"7K/8/8/8/4k3/3R4/8/8 w - - 0 1",
		"8/8/8/3k4/8/8/8/R3K3 w - - 0 1",
		"K7/8/8/8/8/5k2/6R1/8 w - - 0 1",
	} {
		st, err := g.NewState(fen)
		if err != nil {
			t.Fatal(err)
		}
		a, err := p.ChooseAction(t.Context(), st)
		if err != nil {
			t.Fatal(err)
		}
		st.ApplyAction(a)
		pos := st.Position()
		if v, ok := ts.ProbePosition(&pos); !ok || v.Outcome() != -1 {
			t.Errorf("%s: %s leads to %v (%v) for Black, want a loss", fen, g.FormatAction(a), v, ok)
		}
	}

	net := "net:path=" + path + ",egtb=" + dir
	for _, c := range []struct{ game, spec, want string }{
		{"chess", net + ",endgame=4", "egtb and endgame"},
		{"connect4", net, "not connect4"},
		{"chess", "net:path=" + path + ",egtb=" + t.TempDir(), "no table files"},
		{"chess", net + ",solver=0", "solver"},
	} {
		gg := playerstest.MustGame(t, c.game)
		if c.game == "connect4" {
			sp, _ := players.ParseSpec("net:path=" + untrainedNet(t, gg) + ",egtb=" + dir)
			_, err = players.Build(gg, sp)
		} else {
			sp, _ := players.ParseSpec(c.spec)
			_, err = players.Build(gg, sp)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on %s: error %v, want one saying %q", c.spec, c.game, err, c.want)
		}
	}
}

// TestNetPlayerEGTBConnect4Small: on 4x4 Connect Four an untrained network
// with egtb= holding connect4-4x4.rtb plays, from every position after two
// stones, a move of the position's best outcome; a folder without the
// board's table is refused by name.
func TestNetPlayerEGTBConnect4Small(t *testing.T) {
	g := playerstest.MustGame(t, "connect4small:width=4,height=4")
	tab, err := retro.BuildConnect4(context.Background(), 4, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := tab.Save(filepath.Join(dir, "connect4-4x4"+retro.Ext)); err != nil {
		t.Fatal(err)
	}
	path := untrainedNet(t, g)
	sp, err := players.ParseSpec(`net:path=` + path + `,sims=8,batch=1,egtb="` + dir + `"`)
	if err != nil {
		t.Fatal(err)
	}
	f, err := players.Build(g, sp)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := f.New(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	type stoner interface{ Stones() (uint64, uint64) }
	value := func(s stoner) retro.Value { return tab.Lookup(s.Stones()) }
	for a := range 4 {
		for b := range 4 {
			st := g.NewInitialState()
			st.ApplyAction(a)
			st.ApplyAction(b)
			before := value(st.(stoner))
			m, err := p.ChooseAction(t.Context(), st)
			if err != nil {
				t.Fatal(err)
			}
			st.ApplyAction(m)
			if after := value(st.(stoner)); after.Outcome() != -before.Outcome() {
				t.Errorf("after %d %d (%v): move %d leads to %v for the opponent", a, b, before, m, after)
			}
		}
	}
	sp, _ = players.ParseSpec("net:path=" + path + ",egtb=" + t.TempDir())
	if _, err := players.Build(g, sp); err == nil || !strings.Contains(err.Error(), "connect4-4x4.rtb") {
		t.Errorf("a folder without the table: %v, want an error naming connect4-4x4.rtb", err)
	}
}
