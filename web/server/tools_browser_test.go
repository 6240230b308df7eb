package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"tabula/games/sgf"
	"tabula/internal/browsertest"
	"tabula/web"
	"tabula/web/webtest"
)

// chooseGame selects game on the page (before New game) and waits for its
// board to be drawn.
func chooseGame(ctx context.Context, game string) error {
	return chromedp.Run(ctx,
		chromedp.SetValue("#game", game, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("game").dispatchEvent(new Event("change"))`, nil),
		chromedp.Poll(`(() => { const d = document.getElementById("board").dataset; return d.coords !== undefined && d.drawn === `+strconv.Quote(game)+`; })()`, nil,
			chromedp.WithPollingTimeout(5*time.Second)),
	)
}

// TestPageCoordinates checks, before any game starts, that every board game
// of the page is drawn with its coordinates: Connect Four columns 1-7,
// Othello a-h and 1-8, Go letters without I and rows numbered from the
// bottom, tic-tac-toe cell numbers; and that the strip under the board (or
// the board itself, for tic-tac-toe) has the labels' ink in it.
func TestPageCoordinates(t *testing.T) {
	s := newTestServer(t, nil)
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx := browsertest.New(t, 40*time.Second)
	if err := chromedp.Run(ctx, chromedp.Navigate(hs.URL+"/"), chromedp.WaitReady(`body[data-ready="1"]`)); err != nil {
		t.Fatal(err)
	}
	type coords struct{ Cols, Rows, Cells []string }
	want := map[string]coords{
		"connect4":       {Cols: strings.Split("1234567", "")},
		"othello:size=8": {Cols: strings.Split("abcdefgh", ""), Rows: strings.Split("12345678", "")},
		"go:size=9":      {Cols: strings.Split("ABCDEFGHJ", ""), Rows: strings.Split("987654321", "")},
		"tictactoe":      {Cells: strings.Split("123456789", "")},
	}
	for game, w := range want {
		if err := chooseGame(ctx, game); err != nil {
			t.Fatalf("%s: %v", game, err)
		}
		var raw string
		var ink int
		if err := chromedp.Run(ctx,
			chromedp.Evaluate(`document.getElementById("board").dataset.coords`, &raw),
			chromedp.Evaluate(labelInk, &ink),
		); err != nil {
			t.Fatal(err)
		}
		var got coords
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatalf("%s: data-coords %q: %v", game, raw, err)
		}
		if !slices.Equal(got.Cols, w.Cols) || !slices.Equal(got.Rows, w.Rows) || !slices.Equal(got.Cells, w.Cells) {
			t.Errorf("%s: coordinates %+v, want %+v", game, got, w)
		}
		if ink < 20 {
			t.Errorf("%s: %d dark pixels where the labels are drawn: the labels are not on the canvas", game, ink)
		}
	}
}

// labelInk counts the canvas's dark pixels where labels are drawn: left of
// and under the board's cells, or, for tic-tac-toe (its labels are inside
// the empty cells), in the cells' middles.
const labelInk = `(() => { const c = document.getElementById("board"), g = JSON.parse(c.dataset.geometry);
	const co = JSON.parse(c.dataset.coords), k = c.width / parseFloat(c.style.width);
	const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
	const rows = Math.round((parseFloat(c.style.height) - g.y0) / g.cell);
	let n = 0;
	for (let y = 0; y < c.height; y++) for (let x = 0; x < c.width; x++) {
		const bx = x / k - g.x0, by = y / k - g.y0;
		let label;
		if (co.cells) {
			const fx = bx / g.cell % 1, fy = by / g.cell % 1;
			label = fx > 0.35 && fx < 0.65 && fy > 0.35 && fy < 0.65;
		} else {
			label = bx < 0 || by >= (co.rows.length ? co.rows.length : rows - 1) * g.cell;
		}
		const i = 4 * (y * c.width + x);
		if (label && d[i + 3] > 0 && d[i] + d[i + 1] + d[i + 2] < 600) n++;
	}
	return n; })()`

// TestPageResignAndRecord plays Go 5x5 as white against alpha-beta: a point
// and a pass, then resigns, and checks that the game is over as white's
// loss; then downloads the record from the page and reads it with
// games/sgf: the page's moves and RE[B+R]. Then, in tic-tac-toe, the
// downloaded record is the move list in cell numbers.
func TestPageResignAndRecord(t *testing.T) {
	s := newTestServer(t, nil)
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx := browsertest.New(t, 60*time.Second)
	dir := t.TempDir()
	if err := chromedp.Run(ctx, chromedp.Navigate(hs.URL+"/"), chromedp.WaitReady(`body[data-ready="1"]`)); err != nil {
		t.Fatal(err)
	}
	if err := webtest.CheckGoPass(ctx, "alphabeta:depth=2"); err != nil {
		t.Fatal(err)
	}
	st, err := webtest.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Over == "1" {
		t.Skipf("the game ended before the resignation: moves %s", st.Moves)
	}
	var resigned, undoDisabled bool
	if err := chromedp.Run(ctx,
		chromedp.Click("#resign", chromedp.ByID),
		chromedp.Poll(`document.getElementById("board").dataset.over === "1"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Evaluate(`document.getElementById("board").dataset.resigned === "1" && document.getElementById("resign").disabled`, &resigned),
		chromedp.Evaluate(`document.getElementById("undo").disabled`, &undoDisabled),
	); err != nil {
		t.Fatal(err)
	}
	result, _ := webtest.Text(ctx, "result")
	if !resigned || !undoDisabled || !strings.Contains(result, "White resigned: Black wins") {
		t.Errorf("after Resign: resigned %v, undo disabled %v, result %q", resigned, undoDisabled, result)
	}
	name, text, err := downloadRecord(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := sgf.Parse([]byte(text))
	if err != nil {
		t.Fatalf("downloaded %s %q: %v", name, text, err)
	}
	if name != "tabula-go.sgf" || rec.Result != "B+R" || rec.White != "you" || fmt.Sprint(rec.Actions()) != fmt.Sprint(st.MoveList()) {
		t.Errorf("downloaded %s: RE %q PW %q moves %v, want tabula-go.sgf, B+R, you, %v", name, rec.Result, rec.White, rec.Actions(), st.MoveList())
	}

	// Tic-tac-toe, the person first: one move, the engine's answer, the record.
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.getElementById("spec").value = ""`, nil),
		chromedp.SetValue("#colour", "0", chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx,
		chromedp.SetValue("#game", "tictactoe", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("game").dispatchEvent(new Event("change"))`, nil),
		chromedp.Poll(`[...document.querySelectorAll("#opponent option")].some(o => o.value === "random")`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.SetValue("#opponent", "random", chromedp.ByID),
		chromedp.Click("#new", chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	if _, err := webtest.WaitTurn(ctx); err != nil {
		t.Fatal(err)
	}
	if err := webtest.ClickCell(ctx, 4, 3); err != nil {
		t.Fatal(err)
	}
	st, err = webtest.WaitTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	moves := st.MoveList()
	if len(moves) != 2 || moves[0] != 4 {
		msg, _ := webtest.Text(ctx, "error")
		t.Fatalf("tic-tac-toe after clicking the centre: moves %v (error %q)", moves, msg)
	}
	name, text, err = downloadRecord(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("5%d\n", moves[1]+1); name != "tabula-tictactoe.txt" || text != want {
		t.Errorf("tic-tac-toe record %s %q, want tabula-tictactoe.txt %q", name, text, want)
	}
}

// downloadRecord presses Download record and returns the file name and text
// of the record the browser saved into dir.
func downloadRecord(ctx context.Context, dir string) (name, text string, err error) {
	err = chromedp.Run(ctx,
		browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(dir),
		chromedp.Evaluate(`(() => { const l = document.getElementById("record-link"); delete l.dataset.filename; })()`, nil),
		chromedp.Click("#download", chromedp.ByID),
		chromedp.Poll(`document.getElementById("record-link").dataset.filename !== undefined`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Evaluate(`document.getElementById("record-link").dataset.filename`, &name),
	)
	if err != nil {
		msg, _ := webtest.Text(ctx, "error")
		return "", "", fmt.Errorf("download: %w (error shown %q)", err, msg)
	}
	// The file appears under its own name once the browser has written it.
	path := filepath.Join(dir, name)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			os.Remove(path)
			return name, string(b), nil
		}
	}
	return "", "", fmt.Errorf("download: %s did not appear in %s", name, dir)
}

// TestPageBackgammon plays backgammon as white (first) against pubeval by
// clicking points: a click on a point without a checker that can move is
// refused with a message; then the first legal turn the server lists is
// entered as clicks on each checker's point and destination, and the page
// must play exactly that turn, show the engine's answer, and show the
// person's next dice.
func TestPageBackgammon(t *testing.T) {
	s := newTestServer(t, nil)
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx := browsertest.New(t, 60*time.Second)
	if err := chromedp.Run(ctx,
		chromedp.Navigate(hs.URL+"/"),
		chromedp.WaitReady(`body[data-ready="1"]`),
		chromedp.SetValue("#game", "backgammon", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("game").dispatchEvent(new Event("change"))`, nil),
		chromedp.Poll(`[...document.querySelectorAll("#opponent option")].some(o => o.value === "pubeval")`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.SetValue("#opponent", "pubeval", chromedp.ByID),
		chromedp.SetValue("#colour", "0", chromedp.ByID),
		chromedp.Click("#new", chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	st, err := webtest.WaitTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The position the page shows, as the server describes it (the moves
	// end with the person's roll, so nothing is rolled again).
	var p web.Position
	if code, body := do(t, s, "POST", "/api/state", fmt.Sprintf(`{"game":"backgammon","moves":[%s],"deal":%q}`, st.Moves, st.Deal), &p); code != 200 {
		t.Fatalf("state of the page's moves %q: %d %s", st.Moves, code, body)
	}
	var dice, coords string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.getElementById("board").dataset.dice`, &dice),
		chromedp.Evaluate(`document.getElementById("board").dataset.coords`, &coords),
	); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d,%d", p.Backgammon.Dice[0], p.Backgammon.Dice[1]); dice != want {
		t.Errorf("dice shown %q, want %q", dice, want)
	}
	if !strings.Contains(coords, `"13","14","15","16","17","18","19","20","21","22","23","24"`) || !strings.Contains(coords, `"12","11","10","9","8","7","6","5","4","3","2","1"`) {
		t.Errorf("backgammon coordinates %s, want 13-24 along the top and 12-1 along the bottom", coords)
	}
	// Point 3 holds no checker of white's at the start.
	if err := clickPoint(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if msg, _ := webtest.Text(ctx, "error"); !strings.Contains(msg, "No legal move of yours starts at point 3") {
		t.Errorf("click on point 3: error shown %q", msg)
	}
	turn, steps := p.Legal[0], p.Backgammon.Steps[0]
	for _, m := range steps {
		if err := clickPoint(ctx, m[0]); err != nil {
			t.Fatal(err)
		}
		if err := clickPoint(ctx, m[1]); err != nil {
			t.Fatal(err)
		}
	}
	after, err := webtest.WaitTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	moves := after.MoveList()
	before := st.MoveList()
	if len(moves) < len(before)+3 || moves[len(before)] != turn {
		msg, _ := webtest.Text(ctx, "error")
		t.Fatalf("after clicking %v (turn %s): moves %v, want %v, the turn %d, the engine's roll and turn and the next roll (error %q)",
			steps, p.LegalText[0], moves, before, turn, msg)
	}
	engineMove, _ := webtest.Text(ctx, "engine-move")
	list, _ := webtest.Text(ctx, "moves")
	if engineMove == "" || !strings.Contains(list, engineMove) || !strings.Contains(list, p.LegalText[0]) {
		t.Errorf("engine's move %q, move list %q: want both turns in it", engineMove, list)
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("board").dataset.dice`, &dice)); err != nil || len(dice) != 3 {
		t.Errorf("the person's next dice shown: %q (%v)", dice, err)
	}
	var undoOff bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("undo").disabled`, &undoOff)); err != nil || !undoOff {
		t.Errorf("Undo enabled in backgammon (it would roll again): %v", err)
	}
	// The record and the resignation go with the game's dice token.
	name, text, err := downloadRecord(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if name != "tabula-backgammon.txt" || !strings.Contains(text, p.LegalText[0]) || !strings.Contains(text, engineMove) {
		t.Errorf("downloaded %s %q: want tabula-backgammon.txt with both turns", name, text)
	}
	var resigned bool
	if err := chromedp.Run(ctx,
		chromedp.Click("#resign", chromedp.ByID),
		chromedp.Poll(`document.getElementById("board").dataset.over === "1"`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate(`document.getElementById("board").dataset.resigned === "0"`, &resigned),
	); err != nil {
		msg, _ := webtest.Text(ctx, "error")
		t.Fatalf("resign: %v (error %q)", err, msg)
	}
	if result, _ := webtest.Text(ctx, "result"); !resigned || !strings.Contains(result, "White resigned: Black wins") {
		t.Errorf("after Resign: resigned %v, result %q", resigned, result)
	}
}

// clickPoint clicks, with the mouse, backgammon point k (25 the bar, 0 the
// tray) where the page says it drew it.
func clickPoint(ctx context.Context, k int) error {
	var xy []float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`(() => { const c = document.getElementById("board"), r = c.getBoundingClientRect();
  const p = JSON.parse(c.dataset.points)[%d]; return [r.left + p.x, r.top + p.y]; })()`, k), &xy)); err != nil {
		return err
	}
	return chromedp.Run(ctx, chromedp.MouseClickXY(xy[0], xy[1]))
}

// TestPageOthelloAutoPass finds, through the API, an Othello 6x6 game in
// which black (random moves, seeded) reaches a turn where its only legal
// move is the pass, against alphabeta:depth=2 (deterministic); then plays
// black's moves on the page by clicking and checks that the page passes for
// the person by itself and the engine plays on.
func TestPageOthelloAutoPass(t *testing.T) {
	s := newTestServer(t, nil)
	const game, engine, pass = "othello:size=6", "alphabeta:depth=2", 36
	var black []int // black's moves, up to the one after which it must pass
	var passAt int  // the index of the forced pass in the game's moves
	for seed := uint64(1); seed <= 200 && black == nil; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0))
		moves, mine := []int{}, []int{}
		for {
			var p web.Position
			if code, body := do(t, s, "POST", "/api/state", fmt.Sprintf(`{"game":%q,"moves":%s}`, game, jsonInts(moves)), &p); code != 200 {
				t.Fatalf("state: %d %s", code, body)
			}
			if p.Over {
				break
			}
			if len(p.Legal) == 1 && p.Legal[0] == pass && len(moves) > 0 {
				black, passAt = mine, len(moves)
				break
			}
			a := p.Legal[rng.IntN(len(p.Legal))]
			moves, mine = append(moves, a), append(mine, a)
			var rep web.Reply
			if code, body := do(t, s, "POST", "/api/move", fmt.Sprintf(`{"game":%q,"player":%q,"moves":%s}`, game, engine, jsonInts(moves)), &rep); code != 200 {
				if code == 400 && strings.Contains(body, "over") {
					break
				}
				t.Fatalf("move: %d %s", code, body)
			}
			moves = rep.Position.Moves
			if rep.Position.Over {
				break
			}
			// The engine moving again (black passing) is played by the
			// page itself only when black's pass is forced, which is the
			// case looked for above.
			if rep.Position.ToMove != 0 {
				break
			}
		}
	}
	if black == nil {
		t.Skip("no game of 200 reached a forced pass of black")
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx := browsertest.New(t, 60*time.Second)
	if err := chromedp.Run(ctx,
		chromedp.Navigate(hs.URL+"/"),
		chromedp.WaitReady(`body[data-ready="1"]`),
		chromedp.SetValue("#game", game, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("game").dispatchEvent(new Event("change"))`, nil),
		chromedp.SetValue("#spec", engine, chromedp.ByID),
		chromedp.SetValue("#colour", "0", chromedp.ByID),
		chromedp.Click("#new", chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	t.Logf("black's moves %v; its forced pass is move %d", black, passAt+1)
	for i, a := range black {
		if _, err := webtest.WaitTurn(ctx); err != nil {
			t.Fatal(err)
		}
		if err := webtest.ClickCell(ctx, a, 6); err != nil {
			t.Fatal(err)
		}
		// Wait for the engine's answer (the moves grow past this click).
		if err := chromedp.Run(ctx, chromedp.Poll(fmt.Sprintf(`(() => { const d = document.getElementById("board").dataset;
			return d.busy === "0" && d.moves.split(",").length >= %d; })()`, 2*i+2), nil, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			b, _ := webtest.Read(ctx)
			msg, _ := webtest.Text(ctx, "error")
			t.Fatalf("black's move %d (%d): moves %q (error %q): %v", i+1, a, b.Moves, msg, err)
		}
	}
	st, err := webtest.WaitTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := st.MoveList()
	if len(got) <= passAt || got[passAt] != pass {
		msg, _ := webtest.Text(ctx, "error")
		t.Fatalf("moves %v: want black's forced pass at move %d, played by the page (error %q)", got, passAt+1, msg)
	}
	if st.Over != "1" && (len(got) <= passAt+1) {
		t.Errorf("moves %v: the engine did not play on after the pass", got)
	}
}

func jsonInts(a []int) string {
	b, _ := json.Marshal(a)
	return string(b)
}
