package players

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/poker"
	"tabula/games/whist"
)

// dealWhist deals g from the cards named: player 0's hand, player 1's, the
// turn-up.
func dealWhist(t *testing.T, g *whist.Game, cards string, plays string) *whist.State {
	t.Helper()
	s := g.NewInitialState().(*whist.State)
	cs, err := g.ParseActions(cards + " " + plays)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if err := games.Play(s, c); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestCardRule(t *testing.T) {
	g, _ := whist.New(4, 6, true)
	const deal = "AS 9S KH 9D QS JS TH JC 9H" // hearts are trumps
	cases := []struct{ plays, want string }{
		{"", "AS"},         // a master leads
		{"AS", "JS"},       // the follower cannot beat the ace: its lowest spade
		{"AS QS 9S", "JS"}, // the follower wins with its cheapest winner
		{"9D", "TH"},       // void in diamonds: trumps in cheaply
	}
	for _, c := range cases {
		s := dealWhist(t, g, deal, c.plays)
		if got := g.CardName(CardRule(s)); got != c.want {
			t.Errorf("after %q: played %s, want %s", c.plays, got, c.want)
		}
	}
	g0, _ := whist.New(3, 4, false)
	// No trumps; player 1 leads nothing here: player 0 has no master and
	// leads the lowest card of its longest suit.
	s := dealWhist(t, g0, "QS JS KH AS AH JD", "")
	if got := g0.CardName(CardRule(s)); got != "JS" {
		t.Errorf("no master: led %s, want JS", got)
	}
}

// TestCardRuleSeesOnlyItsInformation checks that the rule plays the same
// card in every state the mover cannot tell from the real one.
func TestCardRuleSeesOnlyItsInformation(t *testing.T) {
	g := whist.Default()
	rng := rand.New(rand.NewPCG(1, 2))
	for deal := 0; deal < 100; deal++ {
		s := g.NewInitialState().(*whist.State)
		for !s.IsTerminal() {
			if s.IsChanceNode() {
				a, _ := games.SampleChance(s, rng)
				s.ApplyAction(a)
				continue
			}
			want := CardRule(s)
			for i := 0; i < 5; i++ {
				r := s.Resample(s.CurrentPlayer(), rng).(*whist.State)
				if got := CardRule(r); got != want {
					t.Fatalf("%s: plays %s, but %s in resampled %s", s, g.CardName(want), g.CardName(got), r)
				}
			}
			s.ApplyAction(want)
		}
	}
}

// duplicateTricks plays deals duplicate deals between a and b (each deal
// twice, seats swapped) and returns a's mean trick margin per game.
func duplicateTricks(t *testing.T, g games.Game, a, b string, deals int) float64 {
	t.Helper()
	var fs [2]*Factory
	for i, text := range []string{a, b} {
		spec, err := ParseSpec(text)
		if err != nil {
			t.Fatal(err)
		}
		if fs[i], err = Build(g, spec); err != nil {
			t.Fatal(err)
		}
	}
	total := 0.0
	for d := 0; d < deals; d++ {
		for swap := 0; swap < 2; swap++ {
			dice := rand.New(rand.NewPCG(uint64(d), 99))
			var ps [2]Player
			for seat := 0; seat < 2; seat++ {
				p, err := fs[seat^swap].New(rand.New(rand.NewPCG(uint64(d), uint64(seat))))
				if err != nil {
					t.Fatal(err)
				}
				ps[seat] = p
			}
			s := g.NewInitialState().(*whist.State)
			for !s.IsTerminal() {
				if s.IsChanceNode() {
					c, _ := games.SampleChance(s, dice)
					s.ApplyAction(c)
					continue
				}
				c, err := ps[s.CurrentPlayer()].ChooseAction(context.Background(), s.Clone())
				if err != nil {
					t.Fatal(err)
				}
				if err := games.Play(s, c); err != nil {
					t.Fatal(err)
				}
			}
			total += s.Score()[swap] // a sits in seat swap
		}
	}
	return total / float64(2*deals)
}

// TestCardPlayersBeatRandom plays duplicate whist deals: the rules and
// PIMC with the double-dummy solver must each take more tricks than
// random play (each wins by over a trick a deal; a tie is far outside
// chance over these deals).
func TestCardPlayersBeatRandom(t *testing.T) {
	g := whist.Default()
	if m := duplicateTricks(t, g, "cardrules", "random", 60); m < 0.5 {
		t.Errorf("cardrules against random: %+.2f tricks a deal, want over +0.5", m)
	}
	if m := duplicateTricks(t, g, "pimc:samples=8", "random", 30); m < 0.5 {
		t.Errorf("pimc against random: %+.2f tricks a deal, want over +0.5", m)
	}
}

func TestCardRulesRefusesOtherGames(t *testing.T) {
	spec, _ := ParseSpec("cardrules")
	if _, err := Build(poker.Kuhn(), spec); err == nil || !strings.Contains(err.Error(), "whist only") {
		t.Errorf("cardrules on kuhn: %v", err)
	}
}
