package players

import (
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/othello"
)

func TestBuildErrors(t *testing.T) {
	oth := mustGame(t, "othello:size=6")
	for _, tc := range []struct {
		game games.Game
		spec string
		want string
	}{
		{oth, "solver:tt=29", "tt_bits=29"},
		{oth, "net:path=/nonexistent/x.tbn", "/nonexistent/x.tbn"},
		{mustGame(t, "connect4"), "net:sims=5", "path=FILE"},
		{oth, "alphabeta:inc=1s", "inc needs clock"},
	} {
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Build(tc.game, sp); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build(%s, %s): error %v, want one containing %q", tc.game.Name(), tc.spec, err, tc.want)
		}
	}
}

// mustBuild parses spec and builds its factory for g.
func mustBuild(t testing.TB, g games.Game, spec string) *Factory {
	t.Helper()
	sp, err := ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Build(g, sp)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return f
}

// mustNewPlayer builds the player spec names for g, its random source
// seeded with (1, seed).
func mustNewPlayer(t testing.TB, g games.Game, spec string, seed uint64) Player {
	t.Helper()
	p, err := mustBuild(t, g, spec).New(rand.New(rand.NewPCG(1, seed)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rollDice rolls s when it is a chance node (an outcome drawn by rng) and
// reports whether it did.
func rollDice(tb testing.TB, s games.State, rng *rand.Rand) bool {
	tb.Helper()
	if !games.IsChanceNode(s) {
		return false
	}
	a, err := games.SampleChance(s, rng)
	if err != nil {
		tb.Fatal(err)
	}
	s.ApplyAction(a)
	return true
}

func mustGame(t testing.TB, spec string) games.Game {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
