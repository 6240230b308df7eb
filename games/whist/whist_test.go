package whist

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

func TestConformance(t *testing.T) {
	for _, spec := range []string{"whist", "whist:hand=3,ranks=3,trumps=0", "whist:hand=8,ranks=8,trumps=1"} {
		t.Run(spec, func(t *testing.T) {
			g, err := games.New(spec)
			if err != nil {
				t.Fatal(err)
			}
			if g.Name() != spec {
				t.Fatalf("Name %q, want %q", g.Name(), spec)
			}
			gamestest.Check(t, g, gamestest.Config{Games: 150, Seed: 1, Transpositions: true, SampleChecks: 3, ChanceSamples: 20000})
			gamestest.CheckImperfect(t, g, gamestest.Config{Games: 100, Seed: 2})
		})
	}
}

func TestBadParams(t *testing.T) {
	for spec, want := range map[string]string{
		"whist:ranks=9":        "ranks=9",
		"whist:ranks=1":        "ranks=1",
		"whist:hand=0":         "hand=0",
		"whist:hand=7,ranks=3": "hand=7",
		"whist:hand=6,ranks=3": "hand=6", // 12 cards and a turn-up do not fit 12
		"whist:trumps=2":       "trumps=2",
		"whist:hand=x":         "hand",
	} {
		if _, err := games.New(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one naming %s", spec, err, want)
		}
	}
	if _, err := games.New("whist:hand=6,ranks=3,trumps=0"); err != nil {
		t.Errorf("12 cards without a turn-up: %v", err)
	}
}

// deal builds a deal of g from the cards named, player 0's hand, player
// 1's hand and the turn-up.
func deal(t *testing.T, g *Game, cards string) *State {
	t.Helper()
	s := g.NewInitialState().(*State)
	cs, err := g.ParseActions(cards)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if !s.IsLegal(c) {
			t.Fatalf("%s: card %s cannot be dealt", cards, g.CardName(c))
		}
		s.ApplyAction(c)
	}
	if s.IsChanceNode() {
		t.Fatalf("%s: the deal is not complete", cards)
	}
	return s
}

func playAll(t *testing.T, s *State, moves string) {
	t.Helper()
	for _, m := range strings.Fields(moves) {
		a, err := s.ParseMove(m)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		s.ApplyAction(a)
	}
}

func TestTricks(t *testing.T) {
	g, _ := New(3, 6, true)
	// Player 0: AS KH 9C; player 1: QS TH JD; turn-up 9D: diamonds are trumps.
	s := deal(t, g, "AS KH 9C QS TH JD 9D")
	if s.Trump() != 1 || s.CurrentPlayer() != 0 {
		t.Fatalf("trump %d mover %d", s.Trump(), s.CurrentPlayer())
	}
	playAll(t, s, "AS") // player 1 must follow with QS
	if got := s.LegalActions(nil); len(got) != 1 || g.CardName(got[0]) != "QS" {
		t.Fatalf("follower's legal cards %v, want QS alone", g.FormatActions(got))
	}
	if _, err := s.ParseMove("JD"); !errors.Is(err, games.ErrIllegalMove) || !strings.Contains(err.Error(), "follow suit") {
		t.Errorf("revoke: %v", err)
	}
	playAll(t, s, "QS")    // player 0 wins and leads
	playAll(t, s, "9C JD") // player 1 has no club: trumps in and wins
	if s.CurrentPlayer() != 1 || s.Tricks() != [2]int{1, 1} || s.Voids()[1] != 1 {
		t.Fatalf("after two tricks: mover %d tricks %v voids %v", s.CurrentPlayer(), s.Tricks(), s.Voids())
	}
	playAll(t, s, "TH KH") // player 0 takes the last trick
	if !s.IsTerminal() || s.Tricks() != [2]int{2, 1} {
		t.Fatalf("end: terminal %v tricks %v", s.IsTerminal(), s.Tricks())
	}
	if r := s.Returns(); r[0] != 1.0/3 || r[1] != -1.0/3 {
		t.Errorf("returns %v, want +-1/3", r)
	}
	if sc := s.Score(); sc[0] != 1 {
		t.Errorf("score %v, want 1 trick", sc)
	}
	if want := "0:  | 1:  | turn 9D | AS QS, 9C JD, TH KH (2-1)"; s.String() != want {
		t.Errorf("String %q, want %q", s.String(), want)
	}
}

func TestNoTrumpsDiscardLoses(t *testing.T) {
	g, _ := New(2, 4, false)
	s := deal(t, g, "AS JH KD QD")
	playAll(t, s, "JH KD") // a discard never wins without trumps
	if s.Tricks() != [2]int{1, 0} || s.CurrentPlayer() != 0 {
		t.Errorf("tricks %v mover %d", s.Tricks(), s.CurrentPlayer())
	}
}

func TestInformationHidesOpponentCards(t *testing.T) {
	g := Default()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 50; i++ {
		s := g.NewInitialState().(*State)
		for !s.IsTerminal() {
			key := s.InformationStateString(0)
			for m := s.hands[1]; m != 0; m &= m - 1 {
				if name := g.CardName(bits.TrailingZeros32(m)); strings.Contains(key, name) {
					t.Fatalf("player 0's information state %q shows player 1's unplayed %s", key, name)
				}
			}
			legal := s.LegalActions(nil)
			s.ApplyAction(legal[rng.IntN(len(legal))])
		}
	}
}

// TestResampleRespectsVoids checks that a resampled opponent never holds a
// card of a suit it showed out of, and that every unseen card outside those
// suits is drawn sometimes.
func TestResampleRespectsVoids(t *testing.T) {
	g, _ := New(4, 6, true)
	s := deal(t, g, "AS KS QS JS AH KH QH JH AD")
	playAll(t, s, "AS AH") // player 1 shows out of spades
	rng := rand.New(rand.NewPCG(1, 2))
	var seen uint32
	for i := 0; i < 2000; i++ {
		r := s.Resample(0, rng).(*State)
		if r.hands[1]&g.SuitMask(3) != 0 {
			t.Fatalf("resampled hand %s holds a spade after showing out", g.FormatSet(r.hands[1]))
		}
		if bits.OnesCount32(r.hands[1]) != 3 || r.dealt[1]&(1<<mustCard(g, "AH")) == 0 {
			t.Fatalf("resampled dealt %s hand %s", g.FormatSet(r.dealt[1]), g.FormatSet(r.hands[1]))
		}
		seen |= r.hands[1]
	}
	want := (uint32(1)<<24 - 1) &^ g.SuitMask(3) &^ s.dealt[0] &^ (1 << mustCard(g, "AH")) &^ (1 << mustCard(g, "AD"))
	if seen != want {
		t.Errorf("cards drawn %s, want %s", g.FormatSet(seen), g.FormatSet(want))
	}
}

func mustCard(g *Game, name string) int {
	c, err := g.ParseCard(name)
	if err != nil {
		panic(err)
	}
	return c
}

func TestParseCard(t *testing.T) {
	g := Default()
	for text, want := range map[string]string{"as": "AS", "S A": "", "sa": "AS", "10h": "TH", "9c": "9C"} {
		c, err := g.ParseCard(text)
		switch {
		case want == "" && err == nil:
			t.Errorf("%q: parsed as %s, want an error", text, g.CardName(c))
		case want != "" && (err != nil || g.CardName(c) != want):
			t.Errorf("%q: %s %v, want %s", text, g.CardName(c), err, want)
		}
	}
	if _, err := g.ParseCard("8S"); err == nil || !strings.Contains(err.Error(), "not in the deck") {
		t.Errorf("8S in a 9-A deck: %v", err)
	}
}
