package players

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/backgammon"
)

// TestPubevalEvaluationSymmetric checks that eval=pubeval is a value both
// sides can share, as a search of two turns needs: the starting position,
// the same for both players, scores 0 whoever is to roll, and a position
// and its colour-swapped image score the same for their players to move.
func TestPubevalEvaluationSymmetric(t *testing.T) {
	g := mustGame(t, "backgammon")
	s := g.NewInitialState()
	if v := pubevalEvaluation(s); math.Abs(v) > 1e-12 {
		t.Errorf("the starting position scores %v for the player to roll, want 0", v)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var buf []int
	checked := 0
	for ply := 0; ply < 200 && !s.IsTerminal(); ply++ {
		if rollDice(t, s, rng) {
			continue
		}
		buf = s.LegalActions(buf)
		s.ApplyAction(buf[rng.IntN(len(buf))])
		if !games.IsChanceNode(s) {
			continue
		}
		bs := s.(*backgammon.State)
		q := bs.Position()
		race := backgammon.IsRace(&q)
		next := bs.NextPlayer()
		want := 0.999 * math.Tanh((backgammon.Pubeval(&q, next, race)-backgammon.Pubeval(&q, 1-next, race))/10)
		if v := pubevalEvaluation(s); v != want || v >= 0.999 || v <= -0.999 {
			t.Fatalf("ply %d: %v, want %v inside (-0.999, 0.999)", ply, v, want)
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d positions checked", checked)
	}
}

// TestExpectimaxBudget checks that expectimax with a time budget deepens
// past depth 1 (pubeval's depth 2 takes about 20 ms a move) and plays legal
// moves, and that a fixed depth stays at that depth.
func TestExpectimaxBudget(t *testing.T) {
	g := mustGame(t, "backgammon")
	budgeted := newFrom(t, buildFactory(t, g, "expectimax:time=300ms,eval=pubeval")).(*expectiPlayer)
	fixed := newFrom(t, buildFactory(t, g, "expectimax:eval=pubeval")).(*expectiPlayer)
	rng := rand.New(rand.NewPCG(3, 4))
	s := g.NewInitialState()
	deepest, moves := 0, 0
	for moves < 4 && !s.IsTerminal() {
		if rollDice(t, s, rng) {
			continue
		}
		if _, err := fixed.ChooseAction(context.Background(), s); err != nil || fixed.depth != 1 {
			t.Fatalf("expectimax:eval=pubeval: depth %d, error %v; want depth 1", fixed.depth, err)
		}
		a, err := budgeted.ChooseAction(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsLegal(a) {
			t.Fatalf("illegal move %d\n%s", a, s)
		}
		deepest = max(deepest, budgeted.depth)
		s.ApplyAction(a)
		moves++
	}
	if deepest < 2 {
		t.Errorf("expectimax:time=300ms,eval=pubeval searched to depth %d at most in %d moves, want 2 or more", deepest, moves)
	}
}
