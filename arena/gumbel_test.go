package arena

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"tabula/nn"
)

// TestNetPlayerGumbel plays net players with search=gumbel (an untrained
// network) against random, in Connect Four and in backgammon (chance nodes
// below the root), and checks that a bad search name is refused by name.
func TestNetPlayerGumbel(t *testing.T) {
	for _, game := range []string{"connect4", "backgammon"} {
		g := mustGame(t, game)
		p, h, w := g.ObservationShape()
		wts, err := nn.NewWeights(nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8},
			nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "net.tbn")
		if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: g.Name(), Weights: wts}); err != nil {
			t.Fatal(err)
		}
		fs := mustFactories(t, g, "net:path="+path+",sims=12,batch=4,search=gumbel,gumbel_m=4 random")
		res, err := Match(context.Background(), MatchConfig{Games: 2, Parallel: 1, Seed: 7}, g, fs)
		if err != nil {
			t.Fatalf("%s: %v", game, err)
		}
		if n := res.Total(0).Games(); n != 2 {
			t.Fatalf("%s: %d games counted, want 2", game, n)
		}
		sp, err := ParseSpec("net:path=" + path + ",search=alphazero")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Build(g, sp); err == nil || !strings.Contains(err.Error(), "search") {
			t.Errorf("%s: search=alphazero: error %v, want one naming search", game, err)
		}
	}
}
