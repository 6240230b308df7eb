package gamestest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"tabula/games"
)

// Copier is the optional interface mcts.Copier and search.Copier declare:
// CopyFrom makes the receiver an independent copy of src.
type Copier interface {
	games.State
	CopyFrom(src games.State)
}

// CheckCopier plays cfg.Games random games of g (seeded by cfg.Seed) and at
// every position copies the game's state into dst, which may start as a
// position of another game or size. It fails t unless each copy equals its
// source (reflect.DeepEqual, the same Game, String and Hash), a move played on the copy
// leaves the source unchanged, and the same move played on both keeps them
// equal. It relies on g's Clone, which Check verifies.
func CheckCopier(t *testing.T, g games.Game, dst Copier, cfg Config) {
	t.Helper()
	if err := verifyCopier(g, dst, cfg); err != nil {
		t.Fatal(err)
	}
}

// verifyCopier is CheckCopier without the testing.T.
func verifyCopier(g games.Game, dst Copier, cfg Config) error {
	if cfg.Games <= 0 {
		cfg.Games = 200
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xc0b1e5))
	var buf []int
	for game := 0; game < cfg.Games; game++ {
		src := g.NewInitialState()
		for !src.IsTerminal() {
			dst.CopyFrom(src)
			if !reflect.DeepEqual(dst, src) || !sameGame(dst, src) || dst.String() != src.String() || dst.Hash() != src.Hash() {
				return fmt.Errorf("%s: game %d move %d: copy\n%v\nof\n%v", g.Name(), game, src.MoveNumber(), dst, src)
			}
			buf = src.LegalActions(buf)
			a := buf[rng.IntN(len(buf))]
			before := src.Clone()
			dst.ApplyAction(a)
			if !reflect.DeepEqual(src, before) {
				return fmt.Errorf("%s: game %d: playing on the copy changed the source", g.Name(), game)
			}
			src.ApplyAction(a)
			if !reflect.DeepEqual(dst, src) {
				return fmt.Errorf("%s: game %d: copy and source differ after the same move %d", g.Name(), game, a)
			}
		}
	}
	return nil
}

// sameGame reports whether a and b are of one Game value, where Game values
// can be compared (pointers and plain structs); otherwise it reports true.
func sameGame(a, b games.State) bool {
	ga, gb := a.Game(), b.Game()
	if !reflect.TypeOf(ga).Comparable() || !reflect.TypeOf(gb).Comparable() {
		return true
	}
	return ga == gb
}
