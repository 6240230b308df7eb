package watch

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWatchRefusesOtherHostsAndOrigins: the watch page answers only
// requests that name it in Host (DNS rebinding gets 403) and come from no
// other origin.
func TestWatchRefusesOtherHostsAndOrigins(t *testing.T) {
	dir, _ := fakeRun(t)
	cfg := DefaultConfig()
	cfg.Run = dir
	cfg.AllowHosts = []string{"watch.example"}
	s, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	for _, tc := range []struct {
		name, method, url string
		hdr               map[string]string
		status            int
	}{
		{"rebinding", "GET", "/api/plots", map[string]string{"Host": "attacker.example:8081"}, 403},
		{"rebinding games", "GET", "/api/games", map[string]string{"Host": "attacker.example"}, 403},
		{"rebinding page", "GET", "/", map[string]string{"Host": "attacker.example"}, 403},
		{"cross-origin", "GET", "/api/plots", map[string]string{"Origin": "http://attacker.example"}, 403},
		{"null origin", "GET", "/api/games", map[string]string{"Origin": "null"}, 403},
		{"cross-site fetch", "GET", "/api/games", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}, 403},
		{"POST", "POST", "/api/plots", nil, 405},
		{"bad n", "GET", "/api/games?n=-1", nil, 400},
		{"huge n", "GET", "/api/games?n=99999999999999999999", nil, 400},
		{"same origin", "GET", "/api/plots", map[string]string{"Origin": "http://localhost:8081"}, 200},
		{"allowed name", "GET", "/api/games", map[string]string{"Host": "watch.example"}, 200},
		{"link from another site", "GET", "/", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.url, nil)
			req.Host = "localhost:8081"
			for k, v := range tc.hdr {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body.String())
			}
		})
	}
}

// TestWatchPathTraversal: the page's asset paths serve only the embedded
// assets, however a path is written, and a link in the run folder changes
// nothing the server reads.
func TestWatchPathTraversal(t *testing.T) {
	dir, _ := fakeRun(t)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "secret.txt")); err != nil {
		t.Fatal(err)
	}
	s := serveRun(t, dir, nil)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	for _, p := range []string{
		"/assets/../../../../etc/passwd", "/assets/%2e%2e/%2e%2e/etc/passwd", "/assets/..%2f..%2fetc%2fpasswd",
		"/assets/../server.go", "/assets/%2e%2e/server.go", "/secret.txt", "/assets/../secret.txt", "//etc/passwd",
		"/assets/" + secret, "/assets/%2F" + strings.TrimPrefix(secret, "/"), "/metrics.jsonl", "/replay/",
	} {
		res, err := http.Get(hs.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		body := string(b)
		if res.StatusCode >= 500 || strings.Contains(body, "root:") || strings.Contains(body, "TOP SECRET") || strings.Contains(body, "package watch") {
			t.Errorf("GET %s: status %d %.80q", p, res.StatusCode, body)
		}
	}
}

// TestWatchHTTPServerLimits: the server Run starts bounds headers and times
// out slow requests and idle connections.
func TestWatchHTTPServerLimits(t *testing.T) {
	dir, _ := fakeRun(t)
	s := serveRun(t, dir, nil)
	hs := s.httpServer()
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.WriteTimeout <= 0 || hs.IdleTimeout <= 0 || hs.MaxHeaderBytes <= 0 || hs.MaxHeaderBytes > 64<<10 {
		t.Errorf("http.Server limits: read header %v, read %v, write %v, idle %v, max header bytes %d",
			hs.ReadHeaderTimeout, hs.ReadTimeout, hs.WriteTimeout, hs.IdleTimeout, hs.MaxHeaderBytes)
	}
}
