package pimc_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/phantom"
	"tabula/games/poker"
	"tabula/games/tictactoe"
	"tabula/games/whist"
	"tabula/search/cfr"
	"tabula/search/doubledummy"
	"tabula/search/pimc"
)

func TestRefusesPerfectInformation(t *testing.T) {
	if _, err := pimc.New(tictactoe.Game{}, pimc.Config{Samples: 1}, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Fatal("pimc accepted tic-tac-toe, a game of perfect information")
	}
}

// X holds 1 and 2 and has found both of O's marks (5 and 7), so 3 wins
// in every determinisation.
func TestPhantomTakesSureWin(t *testing.T) {
	s, err := games.Replay(phantom.Game{}, []int{0, 4, 4, 1, 6, 6})
	if err != nil {
		t.Fatal(err)
	}
	p, err := pimc.New(phantom.Game{}, pimc.Config{Samples: 20}, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	actions, values, err := p.ActionValues(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for k, a := range actions {
		if a == 2 && values[k] != 1 {
			t.Errorf("cell 3 valued %v, want 1 (a sure win)", values[k])
		}
	}
	if a, _ := p.ChooseAction(context.Background(), s); a != 2 {
		t.Errorf("played %d, want the winning cell 2", a)
	}
}

// pimcPolicy is PIMC's strategy at every information set of g: uniform
// over the actions whose averaged values tie for the best, as the player
// breaks ties.
func pimcPolicy(t *testing.T, g games.Game, samples int) cfr.Policy {
	t.Helper()
	states, err := cfr.InformationStates(g, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pimc.New(g, pimc.Config{Samples: samples}, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	pol := cfr.Policy{}
	for key, s := range states {
		actions, values, err := p.ActionValues(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		probs := make([]float64, len(actions))
		best := pimc.Best(values)
		for _, k := range best {
			probs[k] = 1 / float64(len(best))
		}
		pol[key] = cfr.ActionProbs{Actions: actions, Probs: probs}
	}
	return pol
}

// In Kuhn poker PIMC's strategy is exploitable, where CFR's converges to an
// equilibrium (exploitability 0): the decks' strategy fusion.
func TestKuhnExploitability(t *testing.T) {
	g := poker.Kuhn()
	s, err := cfr.New(g, cfr.Config{Plus: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Run(2000)
	br, err := s.BestResponseTo(pimcPolicy(t, g, 400))
	if err != nil {
		t.Fatal(err)
	}
	pimcExpl := (br[0] + br[1]) / 2 * g.MaxWin()
	cfrExpl := s.Exploitability() * g.MaxWin()
	t.Logf("Kuhn exploitability, chips a hand: PIMC %.4f (best responses %.4f, %.4f), CFR+ 2000 iterations %.6f",
		pimcExpl, br[0]*g.MaxWin(), br[1]*g.MaxWin(), cfrExpl)
	if !(pimcExpl > 0.05 && cfrExpl < 0.01) {
		t.Errorf("exploitability PIMC %.4f, CFR+ %.6f: want PIMC's far above CFR's", pimcExpl, cfrExpl)
	}
}

// TestExactHookMatchesSearch plays small whist deals where PIMC values
// every action twice, once with its own expectiminimax and once through
// the double-dummy solver (Config.Exact), from the same random source: the
// values must agree, and the hook must have been used.
func TestExactHookMatchesSearch(t *testing.T) {
	g, err := whist.New(3, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	dd := doubledummy.New(g)
	calls := 0
	exact := func(s games.State) (float64, bool) { calls++; return dd.Exact(s) }
	deals := rand.New(rand.NewPCG(5, 5))
	for deal := 0; deal < 20; deal++ {
		s := g.NewInitialState()
		for !s.IsTerminal() {
			if games.IsChanceNode(s) {
				a, _ := games.SampleChance(s, deals)
				s.ApplyAction(a)
				continue
			}
			plain, _ := pimc.New(g, pimc.Config{Samples: 8}, rand.New(rand.NewPCG(uint64(deal), 1)))
			hooked, _ := pimc.New(g, pimc.Config{Samples: 8, Exact: exact}, rand.New(rand.NewPCG(uint64(deal), 1)))
			acts, want, err := plain.ActionValues(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			_, got, err := hooked.ActionValues(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			for k := range acts {
				if math.Abs(got[k]-want[k]) > 1e-9 {
					t.Fatalf("%s: card %s valued %v by the solver, %v by expectiminimax", s, g.CardName(acts[k]), got[k], want[k])
				}
			}
			s.ApplyAction(acts[pimc.Best(got)[0]])
		}
	}
	if calls == 0 {
		t.Fatal("the Exact hook was never called")
	}
}
