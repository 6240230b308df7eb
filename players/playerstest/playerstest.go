// Package playerstest holds the helpers that tests of players, matches and
// benchmarks share: a game from its spec and players built from a list of
// specs, failing the test on an error.
package playerstest

import (
	"testing"

	"tabula/games"
	"tabula/players"
)

// MustGame returns the game of spec, or fails the test.
func MustGame(t testing.TB, spec string) games.Game {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// MustFactories builds the players of a list of specs for g, closed when
// the test ends, or fails the test.
func MustFactories(t testing.TB, g games.Game, list string) []*players.Factory {
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
