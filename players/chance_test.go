package players_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"tabula/players/playerstest"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
	"tabula/match"
	"tabula/players"
)

// TestBuildRefusesChance checks that the kinds that cannot handle chance
// refuse a game of chance when they are built (net plays it: see
// TestNetPlaysChance).
func TestBuildRefusesChance(t *testing.T) {
	g := gamestest.DiceRace()
	for _, text := range []string{"alphabeta:depth=2", "solver"} {
		sp, err := players.ParseSpec(text)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := players.Build(g, sp); err == nil {
			t.Errorf("%s built for a game of chance", text)
		} else if text != "solver" && !strings.Contains(err.Error(), "chance") {
			t.Errorf("%s: error %q does not name chance", text, err)
		}
	}
}

// TestBackgammonPlayers plays the players for games of chance against
// random at backgammon: each must win most games.
func TestBackgammonPlayers(t *testing.T) {
	g, err := games.New("backgammon")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"pubeval", "greedy", "expectimax:depth=1,eval=hand", "expectimax:depth=1,eval=pubeval,prune=none", "expectimax:depth=1,eval=td", "expectimax:depth=1,bearoff=mem", "expectimax:cpu=5ms,eval=pubeval"} {
		sp, err := players.ParseSpec(text)
		if err != nil {
			t.Fatal(err)
		}
		rnd, _ := players.ParseSpec("random")
		fs, err := players.BuildAll(g, []players.Spec{sp, rnd})
		if err != nil {
			t.Fatal(err)
		}
		res, err := match.Match(context.Background(), match.MatchConfig{Games: 20, Parallel: 2, Seed: 1}, g, fs)
		if err != nil {
			t.Fatal(err)
		}
		w := res.WDL[0][1]
		t.Logf("%s against random: %d-%d", text, w.Wins, w.Losses)
		if w.Wins < 15 {
			t.Errorf("%s won %d of 20 against random", text, w.Wins)
		}
	}
	for _, bad := range []string{"expectimax:eval=magic", "expectimax:prune=star9", "expectimax:bearoff=/nonexistent/dir/bearoff.tbo", "expectimax:depth=5,cpu=5ms", "expectimax:time=-1s"} {
		sp, err := players.ParseSpec(bad)
		if err != nil {
			continue
		}
		if _, err := players.Build(g, sp); err == nil {
			t.Errorf("%s built", bad)
		}
	}
	for _, text := range []string{"pubeval", "expectimax:eval=td"} {
		sp, _ := players.ParseSpec(text)
		if _, err := players.Build(gamestest.DiceRace(), sp); err == nil {
			t.Errorf("%s built for dicerace", text)
		}
	}
}

// TestUCTPlaysChance plays UCT (sampled chance nodes, rollouts that roll the
// dice) at dicerace against random, and two quick games of backgammon.
func TestUCTPlaysChance(t *testing.T) {
	for _, c := range []struct {
		game  games.Game
		spec  string
		games int
	}{{gamestest.DiceRace(), "mcts:rollouts=300", 40}, {playerstest.MustGame(t, "backgammon"), "mcts:rollouts=10", 2}} {
		sp, _ := players.ParseSpec(c.spec)
		rnd, _ := players.ParseSpec("random")
		fs, err := players.BuildAll(c.game, []players.Spec{sp, rnd})
		if err != nil {
			t.Fatal(err)
		}
		res, err := match.Match(context.Background(), match.MatchConfig{Games: c.games, Parallel: 2, Seed: 5}, c.game, fs)
		if err != nil {
			t.Fatal(err)
		}
		w := res.WDL[0][1]
		t.Logf("%s: %s against random: %d-%d", c.game.Name(), c.spec, w.Wins, w.Losses)
		if c.games >= 40 && w.Wins < c.games*6/10 {
			t.Errorf("%s won %d of %d against random", c.spec, w.Wins, c.games)
		}
	}
}

// TestNetPlaysChance plays the net player (PUCT with sampled chance nodes)
// with an untrained network at backgammon against random: the games end,
// and the player shows its policy and value at its decisions.
func TestNetPlaysChance(t *testing.T) {
	g := playerstest.MustGame(t, "backgammon")
	path := untrainedNet(t, g)
	sp, err := players.ParseSpec("net:path=" + path + ",sims=8,batch=4")
	if err != nil {
		t.Fatal(err)
	}
	rnd, _ := players.ParseSpec("random")
	fs, err := players.BuildAll(g, []players.Spec{sp, rnd})
	if err != nil {
		t.Fatal(err)
	}
	defer fs[0].Close()
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 1, Seed: 7}, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Total(0).Games(); n != 2 {
		t.Fatalf("%d games counted, want 2", n)
	}
	pl, err := fs[0].New(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	s := g.NewInitialState()
	roll, err := games.SampleChance(s, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := games.Play(s, roll); err != nil {
		t.Fatal(err)
	}
	if _, err := pl.ChooseAction(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if pol := pl.(players.Analyzer).LastPolicy(); len(pol) != g.NumActions() {
		t.Errorf("policy of length %d after a move", len(pol))
	}
}

// TestExpectimaxMoneyScale checks that the evaluations of expectimax at the
// money game are on its scale, a single game worth 1/3: from the same
// positions (no game ends within a turn) the money player chooses the win/loss
// player's move and reports a third of its value.
func TestExpectimaxMoneyScale(t *testing.T) {
	wl, money := playerstest.MustGame(t, "backgammon"), playerstest.MustGame(t, "backgammon:scoring=money")
	for _, ev := range []string{"hand", "pubeval", "td"} {
		spec := "expectimax:depth=1,eval=" + ev
		pw, err := playerstest.MustFactories(t, wl, spec)[0].New(rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		pm, err := playerstest.MustFactories(t, money, spec)[0].New(rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(2, 2))
		sw, sm := wl.NewInitialState(), money.NewInitialState()
		for ply := 0; ply < 12; ply++ {
			if games.IsChanceNode(sw) {
				a, err := games.SampleChance(sw, rng)
				if err != nil {
					t.Fatal(err)
				}
				sw.ApplyAction(a)
				sm.ApplyAction(a)
				continue
			}
			aw, err := pw.ChooseAction(context.Background(), sw.Clone())
			if err != nil {
				t.Fatal(err)
			}
			am, err := pm.ChooseAction(context.Background(), sm.Clone())
			if err != nil {
				t.Fatal(err)
			}
			vw, vm := pw.(players.Valuer).Value(), pm.(players.Valuer).Value()
			if aw != am || math.Abs(vm-vw/3) > 1e-9 {
				t.Fatalf("%s, ply %d: money plays %d at %v, win/loss %d at %v: want the same move at a third of the value", spec, ply, am, vm, aw, vw)
			}
			sw.ApplyAction(aw)
			sm.ApplyAction(am)
		}
	}
}
