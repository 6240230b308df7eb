package players_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"tabula/bench"
	"tabula/games/backgammon"
	refdata "tabula/internal/refdata/refdatatest"
	"tabula/match"
	"tabula/players"
	"tabula/players/playerstest"
)

// TestGnubgForfeits plays a fake gnubg that fails at its start or its first
// request in each way: every game is lost by forfeit, with the reason and the
// engine's last stderr lines, and the match goes on.
func TestGnubgForfeits(t *testing.T) {
	g := playerstest.MustGame(t, "backgammon")
	for _, c := range []struct {
		mode, reason string
	}{
		{"die", "engine died"},
		{"hang", "engine timed out: no answer to"},
		{"illegal", "played 24/18(2) 13/7(2) (position 4HPwATDg28HBAA) in"},
		{"garbage", `answered "tabula-gnubg what", not a move`},
		{"pass", "answered no move in"},
		{"noready", `engine died at "start"`},
	} {
		t.Run(c.mode, func(t *testing.T) {
			timeout := "10s"
			if c.mode == "hang" {
				timeout = "1500ms"
			}
			spec, err := players.ParseSpec(fmt.Sprintf("gnubg:cmd=%q,args=\"fakegnubg %s\",timeout=%s", os.Args[0], c.mode, timeout))
			if err != nil {
				t.Fatal(err)
			}
			checkForfeits(t, g, spec, c.mode, c.reason)
		})
	}
}

// TestGnubgFakeEngine plays a fake gnubg that answers the last of the
// legal turn ends (as positions reached, doubles included) against a random
// player: no forfeit, every game finished, every turn of the fake
// engine's player ended where the engine said, and the engine processes
// lived from game to game (at most one per game played at once).
func TestGnubgFakeEngine(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	t.Setenv("TABULA_FAKE_GNUBG_STARTS", starts)
	g := playerstest.MustGame(t, "backgammon")
	fs := playerstest.MustFactories(t, g, fmt.Sprintf("gnubg:cmd=%q,args=\"fakegnubg engine\",timeout=10s random", os.Args[0]))
	var recs []match.GameRecord
	var mu sync.Mutex
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 6, Parallel: 2, Seed: 5,
		Record: func(r match.GameRecord) error {
			mu.Lock()
			defer mu.Unlock()
			recs = append(recs, r)
			return nil
		}}, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Forfeits) != 0 {
		t.Fatalf("forfeits: %+v", res.Forfeits)
	}
	if w := res.WDL[0][1]; w.Wins+w.Losses != 6 || len(recs) != 6 {
		t.Fatalf("record %+v, %d games recorded, want 6 decided games", w, len(recs))
	}
	bg := g.(*backgammon.Game)
	checked, doubles := 0, 0
	for _, r := range recs {
		turns, err := bench.BackgammonTurns(bg, r, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, tn := range turns {
			if tn.Player != fs[0].Name {
				continue
			}
			pos, err := backgammon.ParsePositionID(tn.Before, 0)
			if err != nil {
				t.Fatal(err)
			}
			s, err := backgammon.NewState(bg, pos, 0, tn.Dice[0], tn.Dice[1])
			if err != nil {
				t.Fatal(err)
			}
			ends := s.TurnEnds(nil)
			last := ends[len(ends)-1].Pos
			if want := backgammon.PositionID(&last, 0); tn.After != want {
				t.Fatalf("game %d turn %d: %s with %v reached %s, the engine answered %s", r.Index, tn.Turn, tn.Before, tn.Dice, tn.After, want)
			}
			checked++
			if tn.Dice[0] == tn.Dice[1] {
				doubles++
			}
		}
	}
	if checked < 30 || doubles == 0 {
		t.Fatalf("%d turns checked, %d of doubles", checked, doubles)
	}
	data, err := os.ReadFile(starts)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n < 1 || n > 2 {
		t.Errorf("%d engine processes started for 6 games, 2 at a time; want 1 or 2", n)
	}
}

// TestGnubgRealGame plays GNU Backgammon at 0 plies against pubeval and has
// gnubg's referee rate every turn: each of the gnubg player's turns must be
// gnubg's own choice (no equity lost), so the moves were asked for and
// converted correctly.
func TestGnubgRealGame(t *testing.T) {
	refdata.Program(t, "gnubg", "apt-get install gnubg")
	g := playerstest.MustGame(t, "backgammon")
	fs := playerstest.MustFactories(t, g, "gnubg:ply=0,timeout=1m pubeval")
	var recs []match.GameRecord
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 1, Seed: 2,
		Record: func(r match.GameRecord) error { recs = append(recs, r); return nil }}, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Forfeits) != 0 || len(recs) != 2 {
		t.Fatalf("%d games, forfeits %+v", len(recs), res.Forfeits)
	}
	var turns []bench.BackgammonTurn
	for _, r := range recs {
		if r.Winner < 0 {
			t.Fatalf("game %d was not finished: %+v", r.Index, r)
		}
		ts, err := bench.BackgammonTurns(g.(*backgammon.Game), r, 0)
		if err != nil {
			t.Fatal(err)
		}
		turns = append(turns, ts...)
	}
	rs, err := bench.RateWithGnubg(context.Background(), bench.GnubgConfig{}, turns)
	if err != nil {
		t.Fatal(err)
	}
	var mine, theirs int
	var theirLoss float64
	for _, r := range rs {
		if r.Player != fs[0].Name {
			theirs++
			theirLoss += r.Loss
			continue
		}
		mine++
		if r.Loss > 1e-6 {
			t.Errorf("game %d turn %d: gnubg's player played %q, gnubg's choice is %q (%.4f lost)", r.Game, r.Turn, r.Move, r.Best, r.Loss)
		}
	}
	if mine < 10 || theirs < 10 || theirLoss <= 0 {
		t.Fatalf("%d turns of gnubg, %d of pubeval losing %.3f: the referee did not tell them apart", mine, theirs, theirLoss)
	}
	t.Logf("%d turns of gnubg, all its choice; %d of pubeval losing %.3f in all", mine, theirs, theirLoss)
}

// TestGnubgSpec: a depth out of range, another game or a missing program
// are errors before any game, naming what is wrong.
func TestGnubgSpec(t *testing.T) {
	for _, c := range []struct{ game, spec, want string }{
		{"backgammon", "gnubg:ply=3", "ply"},
		{"connect4", fmt.Sprintf("gnubg:cmd=%q", os.Args[0]), "gnubg plays backgammon only, not connect4"},
		{"backgammon", "gnubg:cmd=no-such-gnubg", `engine program "no-such-gnubg" not found on PATH or in /usr/games`},
	} {
		g := playerstest.MustGame(t, c.game)
		spec, err := players.ParseSpec(c.spec)
		if err == nil {
			var f *players.Factory
			if f, err = players.Build(g, spec); err == nil {
				f.Close()
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s in %s: %v, want an error saying %q", c.spec, c.game, err, c.want)
		}
	}
}
