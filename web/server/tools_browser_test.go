package server

import (
	"context"
	"encoding/json"
	"fmt"
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
