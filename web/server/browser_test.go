package server

import (
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tabula/games/chess"
	"tabula/internal/atomicfile"
	"tabula/internal/browsertest"
	"tabula/web/webtest"
)

// TestPagePlaysConnectFour loads the page in headless Chromium, picks Connect
// Four against a checkpoint from the runs folder, plays a whole game by
// clicking on the board, and checks that the engine answers every move with
// its move probabilities and value, and that the result appears; then, in
// Othello, that an illegal click is refused with a message, and in Go, with a
// spec typed in, that points and passes are played (and a bad spec refused).
func TestPagePlaysConnectFour(t *testing.T) {
	s := newTestServer(t, nil)
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx := browsertest.New(t, 40*time.Second)

	const opponent = "net:path=c4/checkpoints/ckpt-000002.tbn,sims=200"
	var options []string
	err := chromedp.Run(ctx,
		chromedp.Navigate(hs.URL+"/"),
		chromedp.WaitReady(`body[data-ready="1"]`),
		chromedp.Evaluate(`[...document.querySelectorAll("#opponent option")].map(o => o.value)`, &options),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(options, " "), opponent) {
		t.Fatalf("opponents offered %q, want %q among them", options, opponent)
	}
	err = chromedp.Run(ctx,
		chromedp.SetValue("#game", "connect4", chromedp.ByID),
		chromedp.SetValue("#opponent", opponent, chromedp.ByID),
		chromedp.SetValue("#colour", "0", chromedp.ByID),
		chromedp.Click("#new", chromedp.ByID),
	)
	if err != nil {
		t.Fatal(err)
	}
	game, err := webtest.PlayConnectFour(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("game %v: %s (a click on a full column tried: %v)", game.Moves, game.Result, game.TriedIllegal)
	// In the same browser: Othello refuses an illegal click, then plays on.
	if err := webtest.CheckIllegalCellRefused(ctx, "net:path=oth/checkpoints/ckpt-000001.tbn,sims=200"); err != nil {
		t.Fatal(err)
	}
	// A spec typed into the box: a bad one is refused with the server's
	// message; a good one plays Go, where the person also passes.
	if _, msg, err := webtest.CheckSpecBox(ctx, "go:size=5", "leela:depth=3"); err != nil || !strings.Contains(msg, `unknown kind "leela"`) {
		t.Fatalf("bad spec typed in: error shown %q (%v)", msg, err)
	}
	if err := webtest.CheckGoPass(ctx, "alphabeta:depth=2"); err != nil {
		t.Fatal(err)
	}
}

// TestPageScreenshot plays a few moves of Othello against a checkpoint and
// writes a screenshot of the page to $TABULA_SCREENSHOT (docs/play-web.png).
func TestPageScreenshot(t *testing.T) {
	out := os.Getenv("TABULA_SCREENSHOT")
	if out == "" {
		t.Skip("TABULA_SCREENSHOT not set")
	}
	s := newTestServer(t, nil)
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx := browsertest.New(t, 40*time.Second)
	if err := chromedp.Run(ctx,
		chromedp.EmulateViewport(980, 660),
		chromedp.Navigate(hs.URL+"/"),
		chromedp.WaitReady(`body[data-ready="1"]`),
		chromedp.SetValue("#game", "othello:size=6", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("game").dispatchEvent(new Event("change"))`, nil),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.SetValue("#opponent", "net:path=oth/checkpoints/ckpt-000001.tbn,sims=200", chromedp.ByID),
		chromedp.SetValue("#colour", "1", chromedp.ByID),
		chromedp.Click("#new", chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	if _, err := webtest.WaitTurn(ctx); err != nil {
		t.Fatal(err)
	}
	var png []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(out, png); err != nil {
		t.Fatal(err)
	}
}

// TestPageChecksPlayerAtNewGame: a bad player is refused when the game
// starts, before the person's first move, and the page is not stuck; an
// engine that fails after the person's move gives the move back.
func TestPageChecksPlayerAtNewGame(t *testing.T) {
	s := newTestServer(t, nil)
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx := browsertest.New(t, 40*time.Second)
	if err := chromedp.Run(ctx, chromedp.Navigate(hs.URL+"/"), chromedp.WaitReady(`body[data-ready="1"]`)); err != nil {
		t.Fatal(err)
	}
	newGame := func(game, spec, colour string) (webtest.Board, string) {
		t.Helper()
		if err := chromedp.Run(ctx,
			chromedp.SetValue("#game", game, chromedp.ByID),
			chromedp.Evaluate(`document.getElementById("game").dispatchEvent(new Event("change"))`, nil),
			chromedp.SetValue("#spec", spec, chromedp.ByID),
			chromedp.SetValue("#colour", colour, chromedp.ByID),
			chromedp.Click("#new", chromedp.ByID),
		); err != nil {
			t.Fatal(err)
		}
		b, err := webtest.WaitTurn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := webtest.Text(ctx, "error")
		if err != nil {
			t.Fatal(err)
		}
		return b, msg
	}
	// The person moves first: the bad spec is reported at once.
	for _, spec := range []string{"stockfish", "gtp:cmd=evil", "net:path=none.tbn"} {
		if _, msg := newGame("connect4", spec, "0"); msg == "" {
			t.Errorf("%s: no error shown when the game starts", spec)
		}
	}
	// A good player then plays.
	if b, msg := newGame("connect4", "random", "0"); msg != "" || b.Human != "0" || b.Busy != "0" {
		t.Fatalf("random after a bad spec: %+v, error %q", b, msg)
	}
	if err := webtest.ClickColumn(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if b, err := webtest.WaitTurn(ctx); err != nil || len(b.MoveList()) != 2 {
		t.Fatalf("after a move against random: %+v %v", b, err)
	}
	// The Othello solver loads but cannot move from the start (too many
	// empty squares): the person's move is given back, and it is their turn.
	if _, msg := newGame("othello:size=6", "solver", "0"); msg != "" {
		t.Fatalf("othello solver refused at the start: %q", msg)
	}
	b, err := webtest.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := webtest.ClickCell(ctx, b.LegalList()[0], 6); err != nil {
		t.Fatal(err)
	}
	b, err = webtest.WaitTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := webtest.Text(ctx, "error")
	if !strings.Contains(msg, "taken back") || len(b.MoveList()) != 0 || b.ToMove != b.Human {
		t.Errorf("after the engine failed: %+v, error %q: want the move taken back and the person to move", b, msg)
	}
}

// TestPagePlaysChess plays chess on the page with the mouse against random:
// a click on an empty square with no piece picked up is refused with the
// legal moves listed; e2 then e4 plays 1. e4; and from a position given in
// the page's address (#game=chess&moves=...) a pawn on b7 clicked to b8
// asks for the promotion piece, and the knight button plays b8=N.
func TestPagePlaysChess(t *testing.T) {
	s := newTestServer(t, nil)
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx := browsertest.New(t, 40*time.Second)
	action := func(uci string) int {
		m, err := chess.ParseUCI(uci)
		if err != nil {
			t.Fatal(err)
		}
		return chess.ActionOf(m)
	}
	cell := func(sq string) int { return int('8'-sq[1])*8 + int(sq[0]-'a') } // row 0 is the eighth rank
	newGame := func() webtest.Board {
		t.Helper()
		if err := chromedp.Run(ctx,
			chromedp.SetValue("#game", "chess", chromedp.ByID),
			chromedp.Evaluate(`document.getElementById("game").dispatchEvent(new Event("change"))`, nil),
			chromedp.SetValue("#spec", "random", chromedp.ByID),
			chromedp.SetValue("#colour", "0", chromedp.ByID),
			chromedp.Click("#new", chromedp.ByID),
		); err != nil {
			t.Fatal(err)
		}
		b, err := webtest.WaitTurn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	click := func(sq string) {
		t.Helper()
		if err := webtest.ClickCell(ctx, cell(sq), 8); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(hs.URL+"/"), chromedp.WaitReady(`body[data-ready="1"]`)); err != nil {
		t.Fatal(err)
	}
	if b := newGame(); len(b.LegalList()) != 20 || len(b.MoveList()) != 0 {
		t.Fatalf("chess start: %+v, want 20 legal moves and none played", b)
	}
	click("e5")
	if msg, _ := webtest.Text(ctx, "error"); !strings.Contains(msg, "not legal") || !strings.Contains(msg, "e2e4") {
		t.Errorf("a click on an empty square: error %q, want a refusal listing the legal moves", msg)
	}
	click("e2")
	click("e4")
	b, err := webtest.WaitTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if moves := b.MoveList(); len(moves) != 2 || moves[0] != action("e2e4") {
		t.Fatalf("after e2 and e4 were clicked: moves %v, want e2e4 (%d) and a reply", moves, action("e2e4"))
	}
	if text, _ := webtest.Text(ctx, "moves"); !strings.HasPrefix(text, "1. e4 ") {
		t.Errorf("move list %q, want it to start with 1. e4", text)
	}

	// 1. a4 b5 2. axb5 a6 3. bxa6 Bb7 4. axb7 Nc6: White promotes on b8.
	var start []string
	for _, u := range strings.Fields("a2a4 b7b5 a4b5 a7a6 b5a6 c8b7 a6b7 b8c6") {
		start = append(start, strconv.Itoa(action(u)))
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`location.hash = "game=chess&moves=`+strings.Join(start, ",")+`"`, nil)); err != nil {
		t.Fatal(err)
	}
	if b := newGame(); len(b.MoveList()) != 8 || b.ToMove != "0" {
		t.Fatalf("game from the address: %+v, want 8 moves and White to move", b)
	}
	click("b7")
	click("b8")
	var pieces []string
	if err := chromedp.Run(ctx,
		chromedp.WaitVisible(`#promotion`, chromedp.ByID),
		chromedp.Evaluate(`[...document.querySelectorAll("#promotion button")].map(b => b.dataset.piece)`, &pieces),
	); err != nil {
		t.Fatal(err)
	}
	if strings.Join(pieces, "") != "qrbn" {
		t.Fatalf("promotion choices %v, want q r b n", pieces)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#promotion button[data-piece="n"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	b, err = webtest.WaitTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if moves := b.MoveList(); len(moves) < 9 || moves[8] != action("b7b8n") {
		t.Fatalf("after the knight was chosen: moves %v, want b7b8n (%d) ninth", moves, action("b7b8n"))
	}
	if text, _ := webtest.Text(ctx, "moves"); !strings.Contains(text, "5. b8=N") {
		t.Errorf("move list %q, want 5. b8=N in it", text)
	}
}
