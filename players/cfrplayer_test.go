package players

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/connect4"
	"tabula/games/poker"
)

func TestCFRPlayer(t *testing.T) {
	spec, err := ParseSpec("cfr:iters=2000")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Build(poker.Kuhn(), spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.New(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	// Holding the king and facing a bet, the equilibrium always calls.
	s := poker.Kuhn().NewInitialState()
	for _, a := range []int{poker.Queen, poker.King, poker.Raise} {
		s.ApplyAction(a)
	}
	for i := 0; i < 20; i++ {
		a, err := p.ChooseAction(context.Background(), s)
		if err != nil || a != poker.Call {
			t.Fatalf("king facing a bet: %d, %v; want call", a, err)
		}
	}
	// External-sampling MCCFR learns the same call.
	es, err := ParseSpec("cfr:mccfr=1,iters=200000,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	if f, err = Build(poker.Kuhn(), es); err != nil {
		t.Fatal(err)
	}
	if p, err = f.New(rand.New(rand.NewPCG(1, 2))); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		a, err := p.ChooseAction(context.Background(), s)
		if err != nil || a != poker.Call {
			t.Fatalf("mccfr: king facing a bet: %d, %v; want call", a, err)
		}
	}
	both, _ := ParseSpec("cfr:mccfr=1,plus=1")
	if _, err := Build(poker.Kuhn(), both); err == nil || !strings.Contains(err.Error(), "exclude") {
		t.Fatalf("mccfr=1,plus=1 not refused with a clear error: %v", err)
	}
	if _, err := Build(connect4.Game{}, spec); err == nil || !strings.Contains(err.Error(), "imperfect information") {
		t.Fatalf("connect4 not refused with a clear error: %v", err)
	}
	mc, _ := ParseSpec("mcts")
	if _, err := Build(games.Game(poker.Leduc()), mc); err == nil {
		t.Fatal("mcts, which reads the whole state, accepted leduc")
	}
}
