package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tabula/internal/httpguard"
	"tabula/players"
	"tabula/web"
)

// fakePrograms puts programs named like the outside engines (and "evil") on
// PATH that would create a marker file if started, and returns the marker's
// path.
func fakePrograms(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	script := "#!/bin/sh\necho \"$0 $*\" >> " + marker + "\n"
	for _, name := range []string{"evil", "gnugo", "gtp-rhino", "grhino", "stockfish", "pachi", "gnubg"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return marker
}

func assertNotStarted(t *testing.T, marker string) {
	t.Helper()
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a program was started: %s", b)
	}
}

// send makes one request with the given headers (Host and Content-Type as
// the server's own page sends them unless given).
func send(h http.Handler, method, url, body string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, url, strings.NewReader(body))
	req.Host = "127.0.0.1:8080"
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func moveBody(game, player string) string {
	b, _ := json.Marshal(web.Request{Game: game, Player: player, Moves: []int{}})
	return string(b)
}

// TestOutsideEnginesRefused sends every spec that would start a program, to
// /api/move and /api/player, with fake engines on PATH: each is a 400 that
// says so, and no program starts.
func TestOutsideEnginesRefused(t *testing.T) {
	marker := fakePrograms(t)
	s := newTestServer(t, nil)
	for _, tc := range []struct{ game, player string }{
		{"go:size=9", `gtp:cmd=touch,args="` + marker + `"`},
		{"go:size=9", "gtp:cmd=evil"},
		{"go:size=9", `gtp:cmd=sh,args="-c evil"`},
		{"go:size=9", "gtp:cmd=/bin/sh"},
		{"go:size=9", "gnugo"},
		{"go:size=9", "gnugo:level=1"},
		{"go:size=9", "pachi:playouts=500"},
		{"othello:size=8", "grhino"},
		{"othello:size=8", "gtp:cmd=gtp-rhino"},
		{"connect4", "gtp:cmd=evil"},
		// UCI engines play chess only, but the kind is refused before the
		// game is looked at, whatever the game.
		{"connect4", "uci:cmd=evil"},
		{"go:size=9", `uci:cmd=sh,args="-c evil"`},
		{"connect4", "stockfish"},
		{"othello:size=8", "stockfish:elo=1500,movetime=10ms"},
		{"connect4", "stockfish:skill=0"},
		{"connect4", "gnubg"},
		{"connect4", "gnubg:ply=2"},
		{"connect4", "gnubg:cmd=evil"},
	} {
		for _, api := range []string{"/api/move", "/api/player"} {
			rec := send(s, "POST", api, moveBody(tc.game, tc.player), nil)
			if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "not offered over the web") {
				t.Errorf("%s %s: status %d %s, want 400 naming the refusal", api, tc.player, rec.Code, rec.Body.String())
			}
		}
	}
	time.Sleep(50 * time.Millisecond) // a started program would have written by now
	assertNotStarted(t, marker)
}

// TestEveryKind asserts which of arena's kinds a request may name: those
// that run inside tabula; every other kind, today's outside engines and any
// kind added later, is refused. Every string parameter of an allowed kind
// takes a fixed set of values, or is a path inside the runs folder.
func TestEveryKind(t *testing.T) {
	marker := fakePrograms(t)
	s := newTestServer(t, nil)
	allowed := []string{"random", "greedy", "alphabeta", "solver", "mcts", "net", "expectimax", "pubeval", "cfr", "pimc", "ismcts", "cardrules"}
	var got []string
	for _, k := range players.Kinds() {
		spec := k.Name
		switch k.Name {
		case "net":
			spec = "net:path=c4/checkpoints/ckpt-000001.tbn,sims=8"
		case "gtp":
			spec = "gtp:cmd=evil"
		}
		rec := send(s, "POST", "/api/player", moveBody("connect4", spec), nil)
		refused := rec.Code == http.StatusBadRequest && strings.Contains(rec.Body.String(), "not offered over the web")
		if rec.Code >= 500 {
			t.Errorf("%s: status %d %s", spec, rec.Code, rec.Body.String())
		}
		if !refused {
			got = append(got, k.Name)
		}
		if err := mustBeAllowList(); err != nil {
			t.Fatal(err)
		}
		// A string parameter given a path or a program is refused.
		for _, p := range k.Params {
			if p.Type != "string" {
				continue
			}
			for _, v := range []string{"/etc/passwd", "../outside", marker, "evil"} {
				spec := fmt.Sprintf("%s:%s=%q", k.Name, p.Name, v)
				if k.Name == "gtp" && p.Name != "cmd" {
					spec = fmt.Sprintf("gtp:cmd=evil,%s=%q", p.Name, v)
				}
				rec := send(s, "POST", "/api/move", moveBody("connect4", spec), nil)
				if rec.Code != http.StatusBadRequest {
					t.Errorf("%s: status %d %s, want 400", spec, rec.Code, rec.Body.String())
				}
			}
		}
	}
	if !slices.Equal(got, allowed) {
		t.Errorf("kinds a request may name: %v, want %v", got, allowed)
	}
	assertNotStarted(t, marker)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("bearoff file written at %s", marker)
	}
}

// TestHostOriginContentType: requests that name another host (DNS
// rebinding), come from another origin, or are not JSON are refused before
// they reach a handler, whatever they ask for.
func TestHostOriginContentType(t *testing.T) {
	marker := fakePrograms(t)
	s := newTestServer(t, func(c *Config) { c.Addr = "192.0.2.7:8080"; c.AllowHosts = []string{"tabula.example"} })
	attack := moveBody("go:size=9", "gtp:cmd=evil")
	good := moveBody("connect4", "random")
	for _, tc := range []struct {
		name, method, url, body string
		hdr                     map[string]string
		status                  int
	}{
		{"rebinding POST", "POST", "/api/move", attack, map[string]string{"Host": "attacker.example:8080"}, 403},
		{"rebinding GET players", "GET", "/api/players?game=connect4", "", map[string]string{"Host": "attacker.example"}, 403},
		{"rebinding page", "GET", "/", "", map[string]string{"Host": "attacker.example:8080"}, 403},
		{"no host", "GET", "/api/games", "", map[string]string{"Host": ""}, 403},
		{"host suffix", "GET", "/api/games", "", map[string]string{"Host": "localhost.attacker.example"}, 403},
		{"cross-origin POST", "POST", "/api/move", attack, map[string]string{"Origin": "http://attacker.example"}, 403},
		{"cross-origin good spec", "POST", "/api/move", good, map[string]string{"Origin": "http://attacker.example"}, 403},
		{"null origin", "POST", "/api/move", good, map[string]string{"Origin": "null"}, 403},
		{"other port", "POST", "/api/move", good, map[string]string{"Origin": "http://127.0.0.1:9999"}, 403},
		{"cross-site fetch", "POST", "/api/move", good, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site fetch", "POST", "/api/state", `{"game":"connect4","moves":[]}`, map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"cross-site GET API", "GET", "/api/players?game=connect4", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}, 403},
		{"text/plain CSRF", "POST", "/api/move", attack, map[string]string{"Content-Type": "text/plain"}, 415},
		{"form CSRF", "POST", "/api/move", attack, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"no content type", "POST", "/api/state", `{"game":"connect4","moves":[]}`, map[string]string{"Content-Type": ""}, 415},
		{"same origin", "POST", "/api/move", good, map[string]string{"Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-origin"}, 200},
		{"json with charset", "POST", "/api/move", good, map[string]string{"Content-Type": "application/json; charset=utf-8"}, 200},
		{"localhost", "GET", "/api/games", "", map[string]string{"Host": "LOCALHOST:8080"}, 200},
		{"ipv6 loopback", "GET", "/api/games", "", map[string]string{"Host": "[::1]:8080"}, 200},
		{"listen address", "GET", "/api/games", "", map[string]string{"Host": "192.0.2.7:8080"}, 200},
		{"allowed name", "POST", "/api/move", good, map[string]string{"Host": "tabula.example", "Origin": "https://tabula.example"}, 200},
		{"link from another site", "GET", "/", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := send(s, tc.method, tc.url, tc.body, tc.hdr)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body.String())
			}
		})
	}
	assertNotStarted(t, marker)
	if _, err := New(Config{MoveTime: time.Second, MaxSearches: 1, MaxBody: 1 << 10, MaxCheckpoints: 1, Engines: 1, AllowHosts: []string{"http://x/"}}, nil); err == nil {
		t.Error("New took an allowed host with a scheme and path")
	}
}

// TestPathTraversal: a net path may not leave the runs folder, by "..", an
// absolute path, a symbolic link or encoding; what a refused path says does
// not tell whether a file outside exists; static paths serve only the page.
func TestPathTraversal(t *testing.T) {
	outside := t.TempDir()
	writeCheckpoint(t, outside, "secret.tbn", "connect4")
	s := newTestServer(t, nil)
	if err := os.Symlink(filepath.Join(outside, "secret.tbn"), filepath.Join(s.runs, "link.tbn")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(s.runs, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(s.runs, "c4"), filepath.Join(s.runs, "inside")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"../x.tbn", "/etc/passwd", outside + "/secret.tbn", "c4/../../secret.tbn", "link.tbn", "out/secret.tbn",
		"out/none.tbn", "%2e%2e/secret.tbn", "..%2fsecret.tbn", `c4\..\..\secret.tbn`, "out",
	} {
		rec := send(s, "POST", "/api/move", moveBody("connect4", netSpec(path, 8)), nil)
		if rec.Code != http.StatusBadRequest {
			t.Errorf("net path %q: status %d %s, want 400", path, rec.Code, rec.Body.String())
		}
		if !strings.Contains(path, outside) && strings.Contains(rec.Body.String(), outside) {
			t.Errorf("net path %q: the reply names the folder outside: %s", path, rec.Body.String())
		}
	}
	// A file outside that exists and one that does not are refused alike.
	a := send(s, "POST", "/api/move", moveBody("connect4", netSpec("out/secret.tbn", 8)), nil).Body.String()
	b := send(s, "POST", "/api/move", moveBody("connect4", netSpec("out/none.tbn", 8)), nil).Body.String()
	if strings.ReplaceAll(a, "secret", "none") != b {
		t.Errorf("an existing file outside and a missing one are told apart:\n%s\n%s", a, b)
	}
	// A link that stays inside the folder is followed.
	if rec := send(s, "POST", "/api/move", moveBody("connect4", netSpec("inside/checkpoints/ckpt-000001.tbn", 8)), nil); rec.Code != 200 {
		t.Errorf("link inside the runs folder: status %d %s", rec.Code, rec.Body.String())
	}
	// The listing shows nothing through the links.
	rec := send(s, "GET", "/api/players?game=connect4", "", nil)
	if strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "link.tbn") {
		t.Errorf("listing shows a checkpoint outside: %s", rec.Body.String())
	}
	for _, url := range []string{"/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "//etc/passwd",
		"/static/../../go.mod", "/%2e%2e%2fserver.go", "/" + outside + "/secret.tbn"} {
		rec := send(s, "GET", url, "", nil)
		if rec.Code == 200 && (strings.Contains(rec.Body.String(), "root:") || strings.Contains(rec.Body.String(), "package server") || strings.Contains(rec.Body.String(), "module tabula")) {
			t.Errorf("GET %s served a file outside the page: %.80s", url, rec.Body.String())
		}
		if rec.Code >= 500 {
			t.Errorf("GET %s: status %d", url, rec.Code)
		}
	}
}

// TestBadEngineRequestsAre4xx: a player that cannot move in the position it
// is given, or asks for more than the server allows, is the request's fault.
func TestBadEngineRequestsAre4xx(t *testing.T) {
	s := newTestServer(t, nil)
	for _, tc := range []struct{ game, player, want string }{
		{"othello:size=8", "solver", "cannot move here"},
		{"othello:size=6", "solver", "cannot move here"},
		{"othello:size=8", "solver:tt=21", "more than this server allows (20)"},
		{"connect4", "solver:tt=23", "more than this server allows (22)"},
		{"connect4", "alphabeta:tt=19", "more than this server allows (18)"},
		{"go:size=9", "mcts:rollouts=100001", "more than this server allows"},
		{"connect4", "net:path=c4/checkpoints/ckpt-000001.tbn,sims=10001", "more than this server allows"},
		{"connect4", "net:path=c4/checkpoints/ckpt-000001.tbn,cache=65537", "more than this server allows"},
		{"connect4", "net:path=c4/checkpoints/ckpt-000001.tbn,batch=65", "more than this server allows"},
		{"connect4", "net:path=c4/checkpoints/ckpt-000001.tbn,precision=fp64", "not offered over the web"},
		{"go:size=5", "pubeval", "backgammon only"},
		{"connect4", "expectimax:bearoff=/tmp/bearoff.db", "not offered over the web"},
		{"connect4", "alphabeta:depth=2,egtb=/tmp", "not offered over the web"},
		{"connect4", "net:path=c4/checkpoints/ckpt-000001.tbn,egtb=/tmp", "not offered over the web"},
		{"connect4", "alphabeta:depth=2,book=/etc/passwd", "not offered over the web"},
		{"connect4", "solver:book=/etc/passwd", "not offered over the web"},
		{"connect4", "solver:book_margin=0.1", "not offered over the web"},
		{"othello:size=8", "alphabeta:depth=2,book=/etc/passwd", "not offered over the web"},
		{"othello:size=8", "alphabeta:depth=2,book_margin=0.1", "not offered over the web"},
		{"othello:size=6", "net:path=c4/checkpoints/ckpt-000001.tbn,book=/etc/passwd", "not offered over the web"},
		{"connect4", "expectimax:depth=3", "more than this server allows"},
	} {
		rec := send(s, "POST", "/api/move", moveBody(tc.game, tc.player), nil)
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s in %s: status %d %s, want 400 with %q", tc.player, tc.game, rec.Code, rec.Body.String(), tc.want)
		}
	}
}

// TestPlayerCheck: /api/player answers before a game whether its player can
// play it, naming what is wrong, and loads a good one.
func TestPlayerCheck(t *testing.T) {
	s := newTestServer(t, nil)
	for _, tc := range []struct {
		game, player string
		status       int
		want         string
	}{
		{"connect4", "net:path=c4/checkpoints/ckpt-000001.tbn,sims=8", 200, `"player":"net:path=c4/checkpoints/ckpt-000001.tbn,sims=8"`},
		{"connect4", "random", 200, `"game":"connect4"`},
		{"connect4", "leela", 400, `unknown kind "leela"`},
		{"connect4", "net:path=oth/checkpoints/ckpt-000001.tbn", 400, "checkpoint is for game"},
		{"connect4", "net:path=none.tbn", 400, "no such file"},
		{"go:size=5", "solver", 400, "connect4 and othello only"},
		{"connect4", "", 400, "no player given"},
		{"shogi", "random", 400, "unknown game"},
	} {
		rec := send(s, "POST", "/api/player", moveBody(tc.game, tc.player), nil)
		if rec.Code != tc.status || !strings.Contains(strings.ReplaceAll(rec.Body.String(), `\"`, `"`), tc.want) {
			t.Errorf("%s in %s: status %d %s, want %d with %q", tc.player, tc.game, rec.Code, rec.Body.String(), tc.status, tc.want)
		}
	}
}

// TestSlowAndOversized: the server's http.Server bounds headers and times
// out a request that dribbles its body; a body over MaxBody is 413.
func TestSlowAndOversized(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.MaxBody = 4096 })
	hs := httpguard.Server(s, httpguard.Timeouts{ReadHeader: 200 * time.Millisecond, Read: 300 * time.Millisecond, Write: 5 * time.Second, Idle: time.Second})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(ln)
	defer hs.Close()
	addr := ln.Addr().String()

	// Slow body: the connection is closed once the read timeout passes.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /api/state HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", addr)
	start := time.Now()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, err := c.Write([]byte(" ")); err != nil {
			break
		}
		if _, err := c.Read(make([]byte, 1)); err != nil && !isTimeout(err) {
			break
		}
		_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if time.Since(start) > 4*time.Second {
			t.Fatal("a slow body held the connection for 4 s")
		}
	}
	// Slow headers: the same.
	c2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	fmt.Fprintf(c2, "GET / HTTP/1.1\r\n")
	_ = c2.SetReadDeadline(time.Now().Add(3 * time.Second))
	if _, err := io.ReadAll(c2); err != nil && isTimeout(err) {
		t.Fatal("slow headers held the connection for 3 s")
	}
	// Oversized headers: 431.
	req, _ := http.NewRequest("GET", "http://"+addr+"/api/games", nil)
	req.Header.Set("X-Big", strings.Repeat("a", 2*httpguard.MaxHeaderBytes))
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("oversized headers: %v %v, want 431", res, err)
	}
	// Oversized body: 413.
	body := `{"game":"connect4","moves":[` + strings.Repeat("0,", 10000) + `0]}`
	res, err := http.Post("http://"+addr+"/api/state", "application/json", strings.NewReader(body))
	if err != nil || res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %v %v, want 413", res, err)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestConcurrentAttack sends a few hundred requests at once over real
// connections, most of them bad or hostile, to a server with two search
// slots: bad input is never a 5xx, no program starts, and afterwards the
// goroutines and the heap are back near where they were.
func TestConcurrentAttack(t *testing.T) {
	marker := fakePrograms(t)
	s := newTestServer(t, func(c *Config) { c.MaxSearches = 2; c.MoveTime = 2 * time.Second })
	hs := httptest.NewServer(s)
	defer hs.Close()
	runtime.GC()
	before := runtime.NumGoroutine()
	type attack struct {
		method, path, ctype, origin, host, body string
		bad                                     bool
	}
	attacks := []attack{
		{"POST", "/api/move", "application/json", "", "", moveBody("go:size=9", "gtp:cmd=evil"), true},
		{"POST", "/api/move", "text/plain", "", "", moveBody("go:size=9", "gnugo"), true},
		{"POST", "/api/move", "application/json", "http://attacker.example", "", moveBody("connect4", "random"), true},
		{"POST", "/api/move", "application/json", "", "attacker.example", moveBody("connect4", "random"), true},
		{"POST", "/api/move", "application/json", "", "", moveBody("connect4", "net:path=../x.tbn"), true},
		{"POST", "/api/move", "application/json", "", "", moveBody("othello:size=8", "solver"), true},
		{"POST", "/api/move", "application/json", "", "", moveBody("connect4", "alphabeta:tt=26"), true},
		{"POST", "/api/state", "application/json", "", "", `{"game":"connect4","moves":[9]}`, true},
		{"POST", "/api/player", "application/json", "", "", moveBody("othello:size=8", "grhino"), true},
		{"GET", "/../../etc/passwd", "", "", "", "", true},
		{"POST", "/api/move", "application/json", "", "", moveBody("connect4", "random"), false},
		{"POST", "/api/move", "application/json", "", "", moveBody("connect4", "alphabeta:depth=3"), false},
	}
	const n = 300
	var wg sync.WaitGroup
	errs := make(chan string, n)
	client := &http.Client{Timeout: 30 * time.Second}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := attacks[i%len(attacks)]
			req, _ := http.NewRequest(a.method, hs.URL+a.path, strings.NewReader(a.body))
			if a.ctype != "" {
				req.Header.Set("Content-Type", a.ctype)
			}
			if a.origin != "" {
				req.Header.Set("Origin", a.origin)
			}
			if a.host != "" {
				req.Host = a.host
			}
			res, err := client.Do(req)
			if err != nil {
				errs <- fmt.Sprintf("%s %s: %v", a.method, a.body, err)
				return
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			switch {
			case a.bad && (res.StatusCode < 400 || res.StatusCode >= 500) && !(a.path == "/../../etc/passwd" && !strings.Contains(string(b), "root:")):
				errs <- fmt.Sprintf("bad %s %s: status %d %s", a.path, a.body, res.StatusCode, b)
			case !a.bad && res.StatusCode != 200 && res.StatusCode != http.StatusServiceUnavailable:
				errs <- fmt.Sprintf("good %s %s: status %d %s", a.path, a.body, res.StatusCode, b)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	assertNotStarted(t, marker)
	hs.CloseClientConnections()
	client.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+10 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before+10 {
		t.Errorf("%d goroutines after the requests, %d before", g, before)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > 256<<20 {
		t.Errorf("heap in use %d MiB after the requests", ms.HeapInuse>>20)
	}
}
