package players

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"tabula/games/chess"
)

// TestAlphaBetaClock plays chess moves with a game clock of one second:
// the player keeps its own clock, so the moves together stay within it.
func TestAlphaBetaClock(t *testing.T) {
	g := chess.Game{}
	sp, err := ParseSpec("alphabeta:clock=1s,inc=10ms")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Build(g, sp)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.New(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	s := g.NewInitialState()
	start := time.Now()
	for i := 0; i < 12 && !s.IsTerminal(); i++ {
		a, err := p.ChooseAction(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsLegal(a) {
			t.Fatalf("move %d: illegal action %d", i, a)
		}
		s.ApplyAction(a)
	}
	if el := time.Since(start); el > 1200*time.Millisecond {
		t.Errorf("12 moves on a 1s+10ms clock took %v", el)
	}
	left := p.(*alphaBetaPlayer).clock
	if left <= 0 || left > time.Second+120*time.Millisecond {
		t.Errorf("clock left %v, want in (0, 1.12s]", left)
	}
}
