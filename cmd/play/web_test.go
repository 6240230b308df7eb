package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"tabula/web/server"
)

// TestWebServesUntilCancelled starts play web on a free loopback port,
// fetches the page and the games, and stops it with the context (Ctrl-C).
func TestWebServesUntilCancelled(t *testing.T) {
	runs := t.TempDir()
	writeTestCheckpoint(t, runs, "connect4")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"web", "-addr", "127.0.0.1:0", "-runs", runs}, nil, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the banner: %v (%v)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(line)
	if url == "" {
		t.Fatalf("banner %q names no loopback URL", line)
	}
	for _, path := range []string{"", "api/games", "api/players?game=connect4"} {
		res, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("%s: status %d: %s", path, res.StatusCode, body)
		}
		if path == "api/players?game=connect4" && !strings.Contains(string(body), "connect4.tbn") {
			t.Errorf("players %s: the checkpoint in -runs is not offered", body)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("play web returned %v after Ctrl-C", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("play web did not stop")
	}
}

func TestWebFlagErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"web", "-runs", filepath.Join(t.TempDir(), "none")}, "runs folder"},
		{[]string{"web", "-searches", "0"}, "max searches"},
		{[]string{"web", "extra"}, `unexpected argument "extra"`},
		{[]string{"web", "-addr", "256.0.0.1:99999"}, "web:"},
	} {
		err := run(context.Background(), tc.args, nil, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

// TestWebHTTPServerLimits: play web's http.Server bounds headers and times
// out slow requests and idle connections.
func TestWebHTTPServerLimits(t *testing.T) {
	hs := webHTTPServer(http.NotFoundHandler(), server.DefaultConfig())
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.WriteTimeout <= 0 || hs.IdleTimeout <= 0 || hs.MaxHeaderBytes <= 0 || hs.MaxHeaderBytes > 64<<10 {
		t.Errorf("http.Server limits: read header %v, read %v, write %v, idle %v, max header bytes %d",
			hs.ReadHeaderTimeout, hs.ReadTimeout, hs.WriteTimeout, hs.IdleTimeout, hs.MaxHeaderBytes)
	}
}
