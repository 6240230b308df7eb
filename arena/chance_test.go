package arena

import (
	"context"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

// TestBuildRefusesChance checks that the kinds that cannot handle chance
// refuse a game of chance when they are built.
func TestBuildRefusesChance(t *testing.T) {
	g := gamestest.DiceRace()
	for _, text := range []string{"alphabeta:depth=2", "net:path=none.tbn", "solver"} {
		sp, err := ParseSpec(text)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Build(g, sp); err == nil {
			t.Errorf("%s built for a game of chance", text)
		} else if text != "solver" && !strings.Contains(err.Error(), "chance") {
			t.Errorf("%s: error %q does not name chance", text, err)
		}
	}
}

// TestMatchSamplesChance plays random players at a game of chance: the
// match rolls the dice itself, and the two games of a pair (colours
// swapped) meet the same rolls.
func TestMatchSamplesChance(t *testing.T) {
	g := gamestest.DiceRace()
	sp, _ := ParseSpec("random")
	fs, err := BuildAll(g, []Spec{sp, sp})
	if err != nil {
		t.Fatal(err)
	}
	var recs []GameRecord
	cfg := MatchConfig{Games: 20, Parallel: 2, Seed: 3, Record: func(r GameRecord) error { recs = append(recs, r); return nil }}
	res, err := Match(context.Background(), cfg, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Total(0).Games(); n != 20 {
		t.Fatalf("%d games counted, want 20", n)
	}
	rolls := func(r GameRecord) []int {
		var out []int
		s := g.NewInitialState()
		for _, f := range strings.Fields(r.Moves) {
			a := int(f[0] - '0')
			if games.IsChanceNode(s) {
				out = append(out, a)
			}
			if err := games.Play(s, a); err != nil {
				t.Fatalf("game %d: %v", r.Index, err)
			}
		}
		if !s.IsTerminal() {
			t.Fatalf("game %d did not end", r.Index)
		}
		return out
	}
	for k := 0; k+1 < len(recs); k += 2 {
		a, b := rolls(recs[k]), rolls(recs[k+1])
		n := min(len(a), len(b))
		for i := 0; i < n; i++ {
			if a[i] != b[i] {
				t.Fatalf("games %d and %d: roll %d is %d and %d, want the same dice", k, k+1, i, a[i], b[i])
			}
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
	for _, text := range []string{"pubeval", "greedy", "expectimax:depth=1,eval=hand", "expectimax:depth=1,eval=pubeval,prune=none", "expectimax:depth=1,bearoff=mem"} {
		sp, err := ParseSpec(text)
		if err != nil {
			t.Fatal(err)
		}
		rnd, _ := ParseSpec("random")
		fs, err := BuildAll(g, []Spec{sp, rnd})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Match(context.Background(), MatchConfig{Games: 20, Parallel: 2, Seed: 1}, g, fs)
		if err != nil {
			t.Fatal(err)
		}
		w := res.WDL[0][1]
		t.Logf("%s against random: %d-%d", text, w.Wins, w.Losses)
		if w.Wins < 15 {
			t.Errorf("%s won %d of 20 against random", text, w.Wins)
		}
	}
	for _, bad := range []string{"expectimax:eval=magic", "expectimax:prune=star9", "expectimax:bearoff=/nonexistent/dir/bearoff.tbo"} {
		sp, err := ParseSpec(bad)
		if err != nil {
			continue
		}
		if _, err := Build(g, sp); err == nil {
			t.Errorf("%s built", bad)
		}
	}
	sp, _ := ParseSpec("pubeval")
	if _, err := Build(gamestest.DiceRace(), sp); err == nil {
		t.Error("pubeval built for dicerace")
	}
}

// TestUCTPlaysChance plays UCT (sampled chance nodes, rollouts that roll the
// dice) at dicerace against random, and two quick games of backgammon.
func TestUCTPlaysChance(t *testing.T) {
	for _, c := range []struct {
		game  games.Game
		spec  string
		games int
	}{{gamestest.DiceRace(), "mcts:rollouts=300", 40}, {mustGame(t, "backgammon"), "mcts:rollouts=10", 2}} {
		sp, _ := ParseSpec(c.spec)
		rnd, _ := ParseSpec("random")
		fs, err := BuildAll(c.game, []Spec{sp, rnd})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Match(context.Background(), MatchConfig{Games: c.games, Parallel: 2, Seed: 5}, c.game, fs)
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
