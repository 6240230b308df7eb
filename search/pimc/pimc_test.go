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
	"tabula/internal/cputime"
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

// TestBluff shows the bluff CFR learns and PIMC never makes. In Kuhn poker
// the second player holding the Jack, after a check, bets with probability
// exactly 1/3 in every equilibrium (Kuhn 1950): a bluff with the worst
// card, which wins when the Queen folds. CFR+'s average strategy finds it;
// PIMC, which values each action as if the cards were seen, never bets a
// Jack (a Jack loses every showdown it sees), in either seat.
func TestBluff(t *testing.T) {
	g := poker.Kuhn()
	s, err := cfr.New(g, cfr.Config{Plus: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Run(2000)
	eq := s.AveragePolicy()
	fused := pimcPolicy(t, g, 400)
	const (
		secondJack = "p1 ? J | c" // second player, Jack, after a check
		firstJack  = "p0 J ? | "  // first player, Jack, first to act
	)
	bet := func(pol cfr.Policy, key string) float64 {
		ap, ok := pol[key]
		if !ok {
			t.Fatalf("no information state %q", key)
		}
		for k, a := range ap.Actions {
			if a == poker.Raise {
				return ap.Probs[k]
			}
		}
		t.Fatalf("%q: no bet among %v", key, ap.Actions)
		return 0
	}
	cfrBluff, pimcBluff := bet(eq, secondJack), bet(fused, secondJack)
	t.Logf("second player's Jack after a check bets: CFR+ %.4f (equilibrium 1/3), PIMC %.4f; first player's Jack: CFR+ %.4f (equilibria: [0, 1/3]), PIMC %.4f",
		cfrBluff, pimcBluff, bet(eq, firstJack), bet(fused, firstJack))
	if math.Abs(cfrBluff-1.0/3) > 0.01 {
		t.Errorf("CFR+ bets the second player's Jack with probability %.4f, want 1/3", cfrBluff)
	}
	if pimcBluff != 0 || bet(fused, firstJack) != 0 {
		t.Errorf("PIMC bets a Jack: %.4f (second player), %.4f (first)", pimcBluff, bet(fused, firstJack))
	}
}

// TestLeducExploitability measures PIMC's exploitability in Leduc
// hold'em (its strategy at all 288 information sets, 400 determinisations
// each) against CFR+'s, the figures of docs/methods.md:
//
//	go test ./search/pimc -run LeducExploitability -v
func TestLeducExploitability(t *testing.T) {
	g := poker.Leduc()
	s, err := cfr.New(g, cfr.Config{Plus: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Run(2000)
	c0 := cputime.Process()
	pol := pimcPolicy(t, g, 400)
	cpu := cputime.Process() - c0
	br, err := s.BestResponseTo(pol)
	if err != nil {
		t.Fatal(err)
	}
	m := g.MaxWin()
	pimcExpl := (br[0] + br[1]) / 2 * m
	t.Logf("Leduc exploitability, chips a hand: PIMC (400 samples) %.4f (best responses %.4f, %.4f; %.1f CPU-s), CFR+ 2000 iterations %.2e",
		pimcExpl, br[0]*m, br[1]*m, cpu.Seconds(), s.Exploitability()*m)
	if !(pimcExpl > 0.05) {
		t.Errorf("PIMC's exploitability in Leduc %.4f chips, want far above CFR's", pimcExpl)
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
