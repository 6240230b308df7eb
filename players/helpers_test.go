package players_test

import (
	"testing"

	"tabula/games"
	"tabula/players"
)

func mustGame(t testing.TB, spec string) games.Game {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustFactories(t testing.TB, g games.Game, list string) []*players.Factory {
	t.Helper()
	specs, err := players.ParseSpecs(list)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := players.BuildAll(g, specs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, f := range fs {
			if err := f.Close(); err != nil {
				t.Error(err)
			}
		}
	})
	return fs
}
