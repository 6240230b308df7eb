package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWatchServes(t *testing.T) {
	dir := t.TempDir()
	line := `{"iteration":1,"wall_seconds":30,"train":{"total_steps":10,"loss_total":2.5,"policy_entropy":1.9}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"watch", "-run", dir, "-addr", "127.0.0.1:0"}, nil, &stdout, &stderr)
	}()
	re := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/)`)
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(stdout.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("no address printed; stdout %q stderr %q", stdout.String(), stderr.String())
	}
	resp, err := http.Get(url + "api/plots")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"iterations":1`) {
		t.Errorf("GET api/plots: %d %s", resp.StatusCode, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("watch after cancel: %v", err)
	}
}

func TestWatchRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"watch"}, "-run is required"},
		{[]string{"watch", "-run", filepath.Join(t.TempDir(), "none")}, "no such file"},
		{[]string{"watch", "-run", t.TempDir(), "-games", "0"}, "games = 0"},
		{[]string{"watch", "-run", t.TempDir(), "extra"}, "unexpected argument"},
		{[]string{"watch", "-run", t.TempDir(), "-addr", "127.0.0.1:0"}, "holds no training run"},
	} {
		var stdout, stderr bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // a page served is a failure
		err := run(ctx, tc.args, nil, &stdout, &stderr)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}
