package nn

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/gogame"
)

// TestMismatchNamesTheFields checks that a checkpoint of the wrong shape
// for its game, and configs that differ, are described by the differing
// fields alone, in config words rather than Go struct syntax.
func TestMismatchNamesTheFields(t *testing.T) {
	g, err := games.New("go:size=5")
	if err != nil {
		t.Fatal(err)
	}
	p, h, wd := g.ObservationShape()
	wrong := Shape{Planes: p + 1, Height: h, Width: wd, Actions: g.NumActions() + 1}
	w, err := NewWeights(Config{Filters: 4, Blocks: 1, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 4}, wrong, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	err = (&Checkpoint{Game: g.Name(), Weights: w}).CheckGame(g)
	want := fmt.Sprintf("checkpoint network does not match game %q: it has planes %d, actions %d, the game needs planes %d, actions %d",
		g.Name(), p+1, g.NumActions()+1, p, g.NumActions())
	if err == nil || err.Error() != want {
		t.Errorf("CheckGame: error %v, want %q", err, want)
	}
	if _, err := NewEvaluator(DefaultEvaluatorConfig(), w, g); err == nil || strings.ContainsAny(err.Error(), "{}") || !strings.Contains(err.Error(), "planes") {
		t.Errorf("NewEvaluator: error %v, want one naming the fields", err)
	}

	a := Config{Filters: 64, Blocks: 6, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 64}
	b := a
	b.Filters, b.WDL = 32, true
	if mine, theirs := a.Diff(b); mine != "filters 64, wdl false" || theirs != "filters 32, wdl true" {
		t.Errorf("Config.Diff: %q and %q", mine, theirs)
	}
	if mine, theirs := a.Diff(a); mine != "" || theirs != "" {
		t.Errorf("Config.Diff of equal configs: %q and %q", mine, theirs)
	}
}
