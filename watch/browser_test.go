package watch

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tabula/internal/browsertest"
)

// TestPageInChromium loads the page of a fake run in headless Chromium and
// checks that the plots are drawn and that a self-play game and a gating
// game replay move by move.
func TestPageInChromium(t *testing.T) {
	dir, _ := fakeRun(t)
	cfg := DefaultConfig()
	cfg.Run, cfg.Refresh = dir, 500*time.Millisecond
	s, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	gs, _, err := RecentGames(dir+"/replay", cfg.Games, nil)
	if err != nil || len(gs) == 0 || len(gs[0].Frames) < 4 {
		t.Fatalf("fake run games: %v (%d games)", err, len(gs))
	}

	ctx := browsertest.New(t, 60*time.Second)
	var points []string
	var board0, board3, frame, text string
	err = chromedp.Run(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(`canvas[data-name="selfplay"][data-points]`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#plots canvas')).map(c => c.dataset.name + '=' + c.dataset.points)`, &points),
		chromedp.WaitVisible(`#board[data-frame="0"]`, chromedp.ByQuery),
		chromedp.AttributeValue(`#board`, "data-board", &board0, nil, chromedp.ByQuery),
		chromedp.Click(`#next`, chromedp.ByQuery),
		chromedp.Click(`#next`, chromedp.ByQuery),
		chromedp.Click(`#next`, chromedp.ByQuery),
		chromedp.WaitVisible(`#board[data-frame="3"]`, chromedp.ByQuery),
		chromedp.AttributeValue(`#board`, "data-board", &board3, nil, chromedp.ByQuery),
		chromedp.AttributeValue(`#board`, "data-frame", &frame, nil, chromedp.ByQuery),
		chromedp.Text(`#frame-text`, &text, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	// The second gating game, to its end.
	gating, err := GatingGames(dir+"/gating", cfg.Games)
	if err != nil || len(gating) != 2 {
		t.Fatalf("gating games: %v, %d", err, len(gating))
	}
	pick := fmt.Sprintf(`(() => { const s = document.getElementById('game-select'); s.value = '%d'; s.dispatchEvent(new Event('change')); return s.value; })()`, len(gs)+1)
	var picked, lastBoard, result string
	err = chromedp.Run(ctx,
		chromedp.Evaluate(pick, &picked),
		chromedp.Click(`#last`, chromedp.ByQuery),
		chromedp.WaitVisible(fmt.Sprintf(`#board[data-frame="%d"]`, len(gating[1].Frames)-1), chromedp.ByQuery),
		chromedp.AttributeValue(`#board`, "data-board", &lastBoard, nil, chromedp.ByQuery),
		chromedp.Text(`#game-result`, &result, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("chromium, gating game: %v", err)
	}
	if lastBoard != gating[1].Frames[len(gating[1].Frames)-1].Board || !strings.Contains(result, "dark: best, light: candidate") {
		t.Errorf("gating game: board %q, result line %q", lastBoard, result)
	}
	want := []string{"elo=1", "loss=8", "entropy=2", "mistakes=2", "selfplay=2", "scores=1"}
	if strings.Join(points, " ") != strings.Join(want, " ") {
		t.Errorf("points drawn per plot %v, want %v", points, want)
	}
	if board0 != gs[0].Frames[0].Board || board3 != gs[0].Frames[3].Board {
		t.Errorf("boards shown %q, %q, want %q, %q", board0, board3, gs[0].Frames[0].Board, gs[0].Frames[3].Board)
	}
	if !strings.Contains(text, fmt.Sprintf("move 3 of %d", len(gs[0].Frames)-1)) || !strings.Contains(text, gs[0].Moves[2]) {
		t.Errorf("frame text %q", text)
	}
}
