package server

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tabula/internal/browsertest"
)

// TestPageShowsBoardBeforeNewGame checks that the page opens with the
// default game's empty board drawn, and draws another game's board when the
// game is changed, all before New game is pressed.
func TestPageShowsBoardBeforeNewGame(t *testing.T) {
	s := newTestServer(t, nil)
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx := browsertest.New(t, 40*time.Second)

	// inked counts the canvas's painted pixels; a blank canvas has none.
	const inked = `(() => { const c = document.getElementById("board");
		const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
		let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; return n; })()`
	var first, width, second, width2 int
	var games []string
	err := chromedp.Run(ctx,
		chromedp.Navigate(hs.URL+"/"),
		chromedp.WaitReady(`body[data-ready="1"]`),
		chromedp.Evaluate(inked, &first),
		chromedp.Evaluate(`document.getElementById("board").width`, &width),
		// The board games: the card games draw no board.
		chromedp.Evaluate(`[...document.querySelectorAll("#game option")].map(o => o.value).filter(v => !["whist", "kuhn", "leduc"].includes(v))`, &games),
	)
	if err != nil {
		t.Fatal(err)
	}
	if first == 0 {
		t.Fatalf("the board is blank before New game")
	}
	if len(games) < 2 {
		t.Fatalf("games offered %q, want two or more", games)
	}
	err = chromedp.Run(ctx,
		chromedp.SetValue("#game", games[len(games)-1], chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("game").dispatchEvent(new Event("change"))`, nil),
		chromedp.Sleep(500*time.Millisecond),
		chromedp.Evaluate(inked, &second),
		chromedp.Evaluate(`document.getElementById("board").width`, &width2),
	)
	if err != nil {
		t.Fatal(err)
	}
	if second == 0 || second == first && width2 == width {
		t.Errorf("after choosing %s: %d painted pixels on a %d-wide canvas, before %d on %d: want the new game's board",
			games[len(games)-1], second, width2, first, width)
	}
}
