package poker

import (
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

func TestConformance(t *testing.T) {
	for _, g := range []*Game{Kuhn(), Leduc()} {
		t.Run(g.Name(), func(t *testing.T) {
			gamestest.Check(t, g, gamestest.Config{Games: 300, Seed: 1, Transpositions: true})
			gamestest.CheckImperfect(t, g, gamestest.Config{Games: 200, Seed: 2})
		})
	}
}

// play replays moves written with ParseMove from the initial state.
func play(t *testing.T, g *Game, moves ...string) *State {
	t.Helper()
	s := g.NewInitialState().(*State)
	for _, m := range moves {
		a, err := s.ParseMove(m)
		if err != nil {
			t.Fatalf("%v: %v", moves, err)
		}
		s.ApplyAction(a)
	}
	return s
}

func TestKuhnHands(t *testing.T) {
	cases := []struct {
		moves []string
		chips float64 // player 0's
		str   string
	}{
		{[]string{"J", "Q", "check", "check"}, -1, "J Q | cc (-1 +1)"},
		{[]string{"K", "Q", "bet", "call"}, 2, "K Q | rc (+2 -2)"},
		{[]string{"J", "K", "bet", "fold"}, 1, "J K | rf (+1 -1)"},
		{[]string{"Q", "J", "check", "bet", "fold"}, -1, "Q J | crf (-1 +1)"},
		{[]string{"Q", "J", "check", "bet", "call"}, 2, "Q J | crc (+2 -2)"},
	}
	for _, c := range cases {
		s := play(t, Kuhn(), c.moves...)
		if !s.IsTerminal() || s.Chips()[0] != c.chips || s.String() != c.str {
			t.Errorf("%v: terminal %v chips %v %q, want %v %q", c.moves, s.IsTerminal(), s.Chips(), s.String(), c.chips, c.str)
		}
		if r := s.Returns(); r[0] != c.chips/2 {
			t.Errorf("%v: returns %v, want chips/2", c.moves, r)
		}
	}
	s := play(t, Kuhn(), "K", "Q", "bet")
	if got := s.InformationStateString(1); got != "p1 ? Q | r" {
		t.Errorf("player 1's information state %q", got)
	}
	if got := s.InformationStateString(0); got != "p0 K ? | r" {
		t.Errorf("player 0's information state %q", got)
	}
}

func TestLeducHands(t *testing.T) {
	cases := []struct {
		moves []string
		chips float64
	}{
		// A pair with the public card beats a king.
		{[]string{"J", "K", "check", "check", "J", "check", "check"}, 1},
		// Raise, re-raise, call in both rounds: 1 + 2 + 2 + 4 + 4 = 13.
		{[]string{"K", "Q", "bet", "raise", "call", "J", "bet", "raise", "call"}, 13},
		// Equal ranks split.
		{[]string{"Q", "Q", "bet", "call", "K", "check", "check"}, 0},
		{[]string{"Q", "K", "bet", "raise", "fold"}, -3},
		{[]string{"Q", "K", "check", "bet", "call", "J", "bet", "fold"}, 3},
	}
	for _, c := range cases {
		s := play(t, Leduc(), c.moves...)
		if !s.IsTerminal() || s.Chips()[0] != c.chips {
			t.Errorf("%v: terminal %v chips %v, want %v (%s)", c.moves, s.IsTerminal(), s.Chips(), c.chips, s)
		}
	}
	s := play(t, Leduc(), "K", "Q", "bet", "raise", "call", "K", "bet")
	if got, want := s.InformationStateString(1), "p1 ? Q K | rrc/r"; got != want {
		t.Errorf("information state %q, want %q", got, want)
	}
	if s.IsLegal(Fold) != true || s.IsLegal(Raise) != true {
		t.Errorf("facing a bet with one raise left: legal %v", s.LegalActions(nil))
	}
	// Player 0 holds a K and sees the other K on the board: the opponent
	// holds a J or a Q.
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[int8]int{}
	for i := 0; i < 2000; i++ {
		r := s.Resample(0, rng).(*State)
		seen[r.cards[1]]++
	}
	if seen[King] != 0 || seen[Jack] == 0 || seen[Queen] == 0 {
		t.Errorf("resampled opponent cards %v", seen)
	}
}

func TestRegistered(t *testing.T) {
	for _, name := range []string{"kuhn", "leduc"} {
		g, err := games.New(name)
		if err != nil || g.Name() != name {
			t.Fatalf("games.New(%q) = %v, %v", name, g, err)
		}
		if err := games.RequireImperfect(g, "test"); err != nil {
			t.Fatal(err)
		}
		if games.RequirePerfectInformation(g, "alpha-beta") == nil {
			t.Fatalf("%s not refused by RequirePerfectInformation", name)
		}
	}
}
