package web

import (
	"context"
	"math/bits"
	"regexp"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/whist"
)

// firstLegal plays the first legal action: a stand-in engine.
type firstLegal struct{}

func (firstLegal) ChooseAction(_ context.Context, s games.State) (int, error) {
	return s.LegalActions(nil)[0], nil
}
func (firstLegal) LastPolicy() []float32 { return []float32{1} }
func (firstLegal) Value() float64        { return 0.5 }

// engineCards returns the names of the cards the engine holds in pos's
// deal, read from the sealed token with the dealer's key.
func engineCards(t *testing.T, d *Dealer, pos Position) []string {
	t.Helper()
	tok, err := d.open(pos.Deal)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := games.New(tok.Game)
	s, err := replayDeal(g, tok)
	if err != nil {
		t.Fatal(err)
	}
	w := s.(*whist.State)
	var out []string
	for m := w.Hands()[1-tok.Human]; m != 0; m &= m - 1 {
		out = append(out, w.Rules().CardName(bits.TrailingZeros32(m)))
	}
	return out
}

// TestDealerWhistHidesEngineCards deals whist games and plays them out
// through the dealer: every position the page gets names none of the
// engine's unplayed cards outside the sealed token (its view, its legal
// moves, its move list), the engine's reply carries no policy or value,
// the end shows the whole deal and the score, and a tampered or foreign
// token, a move out of turn and an illegal card are refused.
func TestDealerWhistHidesEngineCards(t *testing.T) {
	d, err := NewDealer()
	if err != nil {
		t.Fatal(err)
	}
	for _, human := range []int{0, 1} {
		pos, err := d.State(Request{Game: "whist", Human: human})
		if err != nil {
			t.Fatal(err)
		}
		for !pos.Over {
			hidden := engineCards(t, d, pos)
			shown := pos.View + " " + pos.Notation + " " + strings.Join(pos.LegalText, " ")
			for _, c := range hidden {
				if regexp.MustCompile(`\b` + c + `\b`).MatchString(shown) {
					t.Fatalf("the page is shown the engine's %s: %q", c, shown)
				}
			}
			if !strings.Contains(pos.View, "your hand: ") {
				t.Fatalf("view %q", pos.View)
			}
			if pos.ToMove == human {
				if len(pos.Legal) == 0 {
					t.Fatalf("the person's turn without legal moves")
				}
				if _, err := d.Think(context.Background(), firstLegal{}, Request{Game: "whist", Deal: pos.Deal}); err == nil || !IsBadRequest(err) {
					t.Fatalf("engine asked to move on the person's turn: %v", err)
				}
				a := pos.Legal[0]
				if pos, err = d.State(Request{Game: "whist", Deal: pos.Deal, Play: &a}); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if len(pos.Legal) != 0 {
				t.Fatalf("the engine's legal cards shown: %v", pos.LegalText)
			}
			a := 0
			if _, err := d.State(Request{Game: "whist", Deal: pos.Deal, Play: &a}); err == nil || !strings.Contains(err.Error(), "not your turn") {
				t.Fatalf("a card played for the engine: %v", err)
			}
			rep, err := d.Think(context.Background(), firstLegal{}, Request{Game: "whist", Deal: pos.Deal})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Policy != nil || rep.Value != nil || rep.Top != nil || rep.MoveText == "" {
				t.Fatalf("engine reply shows more than its card: %+v", rep)
			}
			pos = rep.Position
		}
		if !strings.Contains(pos.View, "the whole deal") || !regexp.MustCompile(`you [-+]\d+ tricks`).MatchString(pos.Score) || pos.Result == "" {
			t.Errorf("the end: view %q score %q result %q", pos.View, pos.Score, pos.Result)
		}
	}
	pos, _ := d.State(Request{Game: "whist"})
	bad := []byte(pos.Deal)
	bad[10] ^= 1
	other, _ := NewDealer()
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{Game: "whist", Deal: string(bad)}, "deal token"},
		{Request{Game: "kuhn", Deal: pos.Deal}, "the deal is of whist"},
		{Request{Game: "whist", Human: 2}, "human 2"},
		{Request{Game: "whist", Moves: []int{1}}, "takes no moves"},
		{Request{Game: "connect4"}, "not a game of hidden cards"},
		{Request{Game: "whist", Deal: strings.Repeat("A", maxTokenLen+1)}, "more than"},
	} {
		if _, err := d.State(c.req); err == nil || !IsBadRequest(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a bad request naming %q", c.req, err, c.want)
		}
	}
	if _, err := other.State(Request{Game: "whist", Deal: pos.Deal}); err == nil || !strings.Contains(err.Error(), "not issued by this server") {
		t.Errorf("another server's token: %v", err)
	}
	illegal := -1
	if _, err := d.State(Request{Game: "whist", Deal: pos.Deal, Play: &illegal}); err == nil || !IsBadRequest(err) {
		t.Errorf("card -1: %v", err)
	}
}

// TestDealerPokerView checks that a Kuhn hand shows the person's card and
// not the engine's until the end.
func TestDealerPokerView(t *testing.T) {
	d, _ := NewDealer()
	for i := 0; i < 20; i++ {
		pos, err := d.State(Request{Game: "kuhn", Human: 1})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(pos.View, "?") || !strings.HasPrefix(pos.View, "your card: ") || strings.Contains(pos.View, "|") {
			t.Fatalf("view %q", pos.View)
		}
		rep, err := d.Think(context.Background(), firstLegal{}, Request{Game: "kuhn", Deal: pos.Deal})
		if err != nil {
			t.Fatal(err)
		}
		if rep.MoveText == "" || rep.Position.Over {
			t.Fatalf("reply %+v", rep)
		}
	}
}
