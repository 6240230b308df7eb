package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tabula/internal/browsertest"
	"tabula/nn"
	"tabula/web/webtest"
)

// TestExportWebPlaysInBrowser exports a tiny random Connect Four network as a
// static folder, serves the folder with a plain file server (no API at all),
// and plays a whole game against it in headless Chromium by clicking: the
// engine runs in WebAssembly in the page.
func TestExportWebPlaysInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the WebAssembly engine")
	}
	dir := t.TempDir()
	ck := writeTestCheckpoint(t, dir, "connect4")
	out := filepath.Join(dir, "site")
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := run(ctx, []string{"export", "-checkpoint", ck, "-format", "web", "-out", out, "-game", "connect4"}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "wrote "+out) {
		t.Errorf("stdout %q", stdout.String())
	}
	for _, f := range []string{"index.html", "engine.wasm", "wasm_exec.js", "weights.tbn", "model.json", "app.js", "board.js", "engine-wasm.js", "engine-worker.js", "main-wasm.js", "style.css"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "engine-http.js")); err == nil {
		t.Error("the static folder holds the server's engine-http.js")
	}
	page, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if !bytes.Contains(page, []byte(`src="main-wasm.js"`)) || bytes.Contains(page, []byte("main-http.js")) {
		t.Errorf("index.html does not load the wasm engine:\n%s", page)
	}
	// The weights are the checkpoint's network, without optimiser state.
	w, err := nn.LoadCheckpoint(filepath.Join(out, "weights.tbn"))
	if err != nil || w.Game != "connect4" || w.Optimizer != nil {
		t.Fatalf("weights.tbn: %v", err)
	}

	hs := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer hs.Close()
	bctx := browsertest.New(t, 60*time.Second)
	var options []string
	if err := chromedp.Run(bctx,
		chromedp.Navigate(hs.URL+"/index.html"),
		chromedp.WaitReady(`body[data-ready="1"]`),
		chromedp.Evaluate(`[...document.querySelectorAll("#opponent option")].map(o => o.value)`, &options),
		chromedp.SetValue("#opponent", "net:sims=50", chromedp.ByID),
		chromedp.SetValue("#colour", "0", chromedp.ByID),
		chromedp.Click("#new", chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	if len(options) == 0 || !strings.HasPrefix(options[0], "net:sims=") {
		t.Errorf("opponents %q: want this network only", options)
	}
	game, err := webtest.PlayConnectFour(bctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("game %v: %s", game.Moves, game.Result)
}
