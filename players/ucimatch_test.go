package players_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	_ "tabula/games/chess"
	refdata "tabula/internal/refdata/refdatatest"
	"tabula/match"
	"tabula/players"
	"tabula/players/playerstest"
)

// TestUCIForfeits plays a fake engine that fails at its first go in each
// way: every game is lost by forfeit, with the reason and the engine's last
// stderr lines, and the match goes on.
func TestUCIForfeits(t *testing.T) {
	g := playerstest.MustGame(t, "chess")
	for _, c := range []struct {
		mode, reason string
	}{
		{"die", "engine died"},
		{"hang", "engine timed out: no bestmove after \"go movetime 50\" within 1.5s"},
		{"illegal", "played the illegal move a1a1"},
		{"garbage", `answered bestmove "zz99", not a move`},
		{"none", `answered bestmove "(none)" in a position with legal moves`},
	} {
		t.Run(c.mode, func(t *testing.T) {
			// The timeout is long enough for the fake engine to start
			// on a loaded machine, except where it is what is tested.
			timeout := "10s"
			if c.mode == "hang" {
				timeout = "1500ms"
			}
			spec, err := players.ParseSpec(fmt.Sprintf("uci:cmd=%q,args=\"fakeuci %s\",movetime=50ms,timeout=%s", os.Args[0], c.mode, timeout))
			if err != nil {
				t.Fatal(err)
			}
			checkForfeits(t, g, spec, c.mode, c.reason)
		})
	}
}

// TestUCIClock: with clock and inc, go carries the clock as wtime and btime
// and the increment as winc and binc (the fake engine in mode clock plays
// the illegal a1a1 only then), and inc without clock is refused.
func TestUCIClock(t *testing.T) {
	g := playerstest.MustGame(t, "chess")
	spec, err := players.ParseSpec(fmt.Sprintf("uci:cmd=%q,args=\"fakeuci clock\",clock=2s,inc=100ms,timeout=10s", os.Args[0]))
	if err != nil {
		t.Fatal(err)
	}
	checkForfeits(t, g, spec, "clock", "played the illegal move a1a1")
	for _, bad := range []string{"stockfish:inc=100ms", "uci:cmd=x,inc=1s"} {
		sp, err := players.ParseSpec(bad)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := players.Build(g, sp); err == nil || !strings.Contains(err.Error(), "inc needs clock") {
			t.Errorf("%s: %v, want inc needs clock", bad, err)
		}
	}
	if _, err := players.ParseSpec("stockfish:clock=1s,movetime=1s"); err == nil {
		t.Error("stockfish:clock=1s,movetime=1s accepted")
	}
}

// TestAlphaBetaAgainstStockfish plays two short games, colours swapped,
// between the alpha-beta engine and Stockfish at its lowest Elo, both on a
// 500ms+5ms clock: whole games against a real engine end without a forfeit.
func TestAlphaBetaAgainstStockfish(t *testing.T) {
	refdata.Program(t, "stockfish", "apt-get install stockfish")
	g := playerstest.MustGame(t, "chess:maxplies=40")
	fs := playerstest.MustFactories(t, g, "alphabeta:clock=500ms,inc=5ms stockfish:elo=1350,clock=500ms,inc=5ms")
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 1, Seed: 6}, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Forfeits {
		t.Errorf("game %d forfeited by %s: %s\n%s", r.Index, r.Forfeit.Player, r.Forfeit.Reason, r.Forfeit.Stderr)
	}
	if n := res.Total(0).Games(); n != 2 {
		t.Errorf("%d games, want 2", n)
	}
	t.Logf("%s against %s: %+v", res.Players[0], res.Players[1], res.Total(0))
}

// TestUCIOptions: options the engine does not declare, or values outside
// its range, are errors before any game, not forfeits.
func TestUCIOptions(t *testing.T) {
	g := playerstest.MustGame(t, "chess")
	for _, c := range []struct{ options, want string }{
		{"Skill Level=3", ""},
		{"Skill Level=30", "option Skill Level=30: the engine accepts 0..20"},
		{"Colour=blue", `the engine has no option "Colour"`},
	} {
		fs := playerstest.MustFactories(t, g, fmt.Sprintf("uci:cmd=%q,args=\"fakeuci illegal\",options=%q,movetime=10ms,timeout=5s random", os.Args[0], c.options))
		_, err := match.Match(context.Background(), match.MatchConfig{Games: 1, Parallel: 1, Seed: 1}, g, fs)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("options %q: %v, want %q", c.options, err, c.want)
		}
	}
}

// TestUCIPlayerGames plays whole games between a correct fake engine (ours,
// random moves, checking every move it is sent) and random players, from
// random opening plies: a move sent wrongly would make its move illegal.
func TestUCIPlayerGames(t *testing.T) {
	g := playerstest.MustGame(t, "chess:maxplies=120")
	fs := playerstest.MustFactories(t, g, fmt.Sprintf("uci:cmd=%q,args=\"fakeuci engine\",depth=1,timeout=10s random", os.Args[0]))
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 2, Seed: 4, RandomPlies: 3}, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Forfeits {
		t.Errorf("game %d forfeited by %s: %s\n%s", r.Index, r.Forfeit.Player, r.Forfeit.Reason, r.Forfeit.Stderr)
	}
	if n := res.Total(0).Games(); n != 2 {
		t.Errorf("%d games, want 2", n)
	}
}

func TestUCIBuildErrors(t *testing.T) {
	for _, c := range []struct{ game, spec, want string }{
		{"chess", "uci:cmd=surely-no-such-engine-here", `engine program "surely-no-such-engine-here" not found`},
		{"chess", "uci:args=x", "uci needs cmd=PROGRAM"},
		{"chess", "uci:cmd=x,options=\"novalue\"", `options: "novalue" is not of the form Name=Value`},
		{"connect4", "stockfish", "UCI engines play chess, not connect4"},
		{"chess", "stockfish:elo=1500,skill=3", "give elo or skill, not both"},
	} {
		spec, err := players.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = players.Build(playerstest.MustGame(t, c.game), spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s in %s: %v, want %q", c.spec, c.game, err, c.want)
		}
	}
	for _, bad := range []string{"stockfish:elo=100", "stockfish:skill=21", "stockfish:nodes=10,movetime=1s", "uci:cmd=x,depth=0"} {
		if _, err := players.ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) accepted", bad)
		}
	}
}

// TestStockfishGames plays Stockfish at its weakest settings against random
// moves: no forfeits, and Stockfish wins. Elo outside Stockfish's own range
// is an error before the first game.
func TestStockfishGames(t *testing.T) {
	refdata.Program(t, "stockfish", "apt-get install stockfish")
	g := playerstest.MustGame(t, "chess:maxplies=300")
	fs := playerstest.MustFactories(t, g, "stockfish:skill=0,movetime=10ms stockfish:elo=1350,nodes=2000 random")
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 2, Seed: 5, RandomPlies: 2}, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Forfeits {
		t.Errorf("game %d forfeited by %s: %s\n%s", r.Index, r.Forfeit.Player, r.Forfeit.Reason, r.Forfeit.Stderr)
	}
	for i := 0; i < 2; i++ {
		if w := res.WDL[i][2]; w.Wins < 1 || w.Losses > 0 {
			t.Errorf("%s against random: %+v, want wins and no loss", res.Players[i], w)
		}
	}
	bad := playerstest.MustFactories(t, g, "stockfish:elo=3000,nodes=100 random")
	if _, err := match.Match(context.Background(), match.MatchConfig{Games: 1, Parallel: 1}, g, bad); err == nil || !strings.Contains(err.Error(), "the engine accepts") {
		t.Errorf("elo=3000: %v, want the engine's range", err)
	}
}
