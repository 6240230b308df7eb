package players_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"tabula/players/playerstest"
	"testing"

	"tabula/games"
	"tabula/match"
	"tabula/nn"
	"tabula/players"
)

// TestNetPlayerGumbel plays net players with search=gumbel (an untrained
// network) against random, in Connect Four and in backgammon (chance nodes
// below the root), and checks that a bad search name is refused by name.
func TestNetPlayerGumbel(t *testing.T) {
	for _, game := range []string{"connect4", "backgammon"} {
		g := playerstest.MustGame(t, game)
		path := untrainedNet(t, g)
		fs := playerstest.MustFactories(t, g, "net:path="+path+",sims=12,batch=4,search=gumbel,gumbel_m=4 random")
		res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 1, Seed: 7}, g, fs)
		if err != nil {
			t.Fatalf("%s: %v", game, err)
		}
		if n := res.Total(0).Games(); n != 2 {
			t.Fatalf("%s: %d games counted, want 2", game, n)
		}
		sp, err := players.ParseSpec("net:path=" + path + ",search=alphazero")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := players.Build(g, sp); err == nil || !strings.Contains(err.Error(), "search") {
			t.Errorf("%s: search=alphazero: error %v, want one naming search", game, err)
		}
		// endgame=N is Othello's and Connect Four's: elsewhere the spec is
		// refused when built.
		sp, err = players.ParseSpec("net:path=" + path + ",endgame=8")
		if err != nil {
			t.Fatal(err)
		}
		_, err = players.Build(g, sp)
		if game == "connect4" && err != nil {
			t.Errorf("%s: endgame=8: %v", game, err)
		}
		if game != "connect4" && (err == nil || !strings.Contains(err.Error(), "no exact endgame prover")) {
			t.Errorf("%s: endgame=8: error %v, want one saying the game has no exact endgame prover", game, err)
		}
	}
}

// TestNetPlayerEndgame plays an untrained Othello 6x6 network with
// endgame=10 (exact solves in the tree) against the exact solver from
// positions 10 empty squares from the end. Every leaf below its roots is
// proven, so it never gives away the game-theoretic result: each game ends
// as the same opening played by the solver against itself does (both sides
// perfect). Without endgame the untrained network loses games it need not.
func TestNetPlayerEndgame(t *testing.T) {
	g := playerstest.MustGame(t, "othello:size=6")
	path := untrainedNet(t, g)
	const games = 12
	results := func(players string) [][2]float64 {
		var out [][2]float64
		cfg := match.MatchConfig{Games: games, Parallel: 1, Seed: 5, RandomPlies: 22, Record: func(r match.GameRecord) error {
			out = append(out, r.Result)
			return nil
		}}
		if _, err := match.Match(context.Background(), cfg, g, playerstest.MustFactories(t, g, players)); err != nil {
			t.Fatal(err)
		}
		return out
	}
	perfect := results("solver solver:tt=16")
	with := results("net:path=" + path + ",sims=100,batch=8,endgame=10 solver")
	without := results("net:path=" + path + ",sims=100,batch=8 solver")
	differ := 0
	for i := range perfect {
		if with[i] != perfect[i] {
			t.Errorf("game %d: with endgame=10 the result is %v; perfect play gives %v", i, with[i], perfect[i])
		}
		if without[i] != perfect[i] {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("without endgame, the untrained network matched perfect play in all %d games: the test shows nothing", games)
	}
}

// untrainedNet writes a small network of random weights for game g to a
// temporary checkpoint and returns its path.
func untrainedNet(t *testing.T, g games.Game) string {
	t.Helper()
	p, h, w := g.ObservationShape()
	wts, err := nn.NewWeights(nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8},
		nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "untrained.tbn")
	if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: g.Name(), Weights: wts}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNetPlayerSymmetries plays an untrained Othello 6x6 network averaged
// over its 8 symmetries (sym=8) and checks that a count past the game's
// symmetries, or symmetries in a game without any, is refused by name.
func TestNetPlayerSymmetries(t *testing.T) {
	g := playerstest.MustGame(t, "othello:size=6")
	path := untrainedNet(t, g)
	fs := playerstest.MustFactories(t, g, "net:path="+path+",sims=16,batch=4,sym=8 random")
	// Two games at once share the averaged evaluator (go test -race).
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 2, Seed: 3}, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Total(0).Games(); n != 2 {
		t.Fatalf("%d games counted, want 2", n)
	}
	for _, tc := range []struct{ game, want string }{
		{"connect4", "want 1..2"},
		{"backgammon", "no symmetries"},
	} {
		g := playerstest.MustGame(t, tc.game)
		sp, err := players.ParseSpec("net:path=" + untrainedNet(t, g) + ",sym=3")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := players.Build(g, sp); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: sym=3: error %v, want one saying %q", tc.game, err, tc.want)
		}
	}
	if _, err := players.ParseSpec("net:path=" + path + ",sym=9"); err == nil || !strings.Contains(err.Error(), "sym") {
		t.Errorf("sym=9: error %v, want one naming sym", err)
	}
}
