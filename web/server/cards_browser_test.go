package server

import (
	"math/bits"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tabula/games/whist"
	"tabula/internal/browsertest"
	"tabula/web/webtest"
)

// TestPageWhistShowsOwnHandOnly loads the page in headless Chromium, deals
// whist against the rule-based player with the person first, and checks
// that the page shows the person's hand and none of the engine's cards;
// then plays a card by its button and checks that the engine answers and
// its unplayed cards stay hidden.
func TestPageWhistShowsOwnHandOnly(t *testing.T) {
	s := newTestServer(t, nil)
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx := browsertest.New(t, 40*time.Second)
	if err := chromedp.Run(ctx,
		chromedp.Navigate(hs.URL+"/"),
		chromedp.WaitReady(`body[data-ready="1"]`),
		chromedp.SetValue("#game", "whist", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("game").dispatchEvent(new Event("change"))`, nil),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.SetValue("#spec", "cardrules", chromedp.ByID),
		chromedp.SetValue("#colour", "0", chromedp.ByID),
		chromedp.Click("#new", chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	check := func(when string) (hand []string) {
		t.Helper()
		if _, err := webtest.WaitTurn(ctx); err != nil {
			t.Fatal(err)
		}
		var text, deal string
		if err := chromedp.Run(ctx,
			chromedp.Evaluate(`document.body.innerText`, &text),
			chromedp.Evaluate(`document.getElementById("board").dataset.deal`, &deal),
		); err != nil {
			t.Fatal(err)
		}
		st, human, err := s.dealer.Reveal(deal)
		if err != nil {
			t.Fatalf("%s: the page's deal token: %v", when, err)
		}
		w := st.(*whist.State)
		g := w.Rules()
		names := func(m uint32) (out []string) {
			for ; m != 0; m &= m - 1 {
				out = append(out, g.CardName(bits.TrailingZeros32(m)))
			}
			return out
		}
		view := regexp.MustCompile(`your hand: (.*)`).FindStringSubmatch(text)
		if view == nil || strings.Join(strings.Fields(view[1]), " ") != g.FormatSet(w.Hands()[human]) {
			t.Fatalf("%s: the page shows %q, want the person's hand %s:\n%s", when, view, g.FormatSet(w.Hands()[human]), text)
		}
		for _, c := range names(w.Hands()[1-human]) {
			if regexp.MustCompile(`\b` + c + `\b`).MatchString(text) {
				t.Fatalf("%s: the page shows the engine's unplayed %s:\n%s", when, c, text)
			}
		}
		return names(w.Hands()[human])
	}
	hand := check("after the deal")
	var buttons []string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll("#cards button")].map(b => b.textContent)`, &buttons)); err != nil {
		t.Fatal(err)
	}
	if strings.Join(buttons, " ") == "" || len(buttons) != len(hand) {
		t.Fatalf("buttons %q for the hand %q: the person leads, any card", buttons, hand)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#cards button`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	check("after a card")
	var played string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("engine-move").textContent`, &played)); err != nil {
		t.Fatal(err)
	}
	if played == "" {
		t.Errorf("the engine's card is not shown")
	}
}
