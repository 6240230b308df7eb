package server

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tabula/games"
	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	_ "tabula/games/othello"
	"tabula/nn"
	"tabula/web"
)

// writeCheckpoint saves a tiny random network for game spec under dir/rel.
func writeCheckpoint(t testing.TB, dir, rel, spec string) {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, h, w := g.ObservationShape()
	wts, err := nn.NewWeights(nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8},
		nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: g.Name(), Step: 7, Weights: wts}); err != nil {
		t.Fatal(err)
	}
}

// testRuns makes a runs folder with two connect4 checkpoints, one othello
// checkpoint and a file that is not a checkpoint.
func testRuns(t testing.TB) string {
	dir := t.TempDir()
	writeCheckpoint(t, dir, "c4/checkpoints/ckpt-000001.tbn", "connect4")
	writeCheckpoint(t, dir, "c4/checkpoints/ckpt-000002.tbn", "connect4")
	writeCheckpoint(t, dir, "oth/checkpoints/ckpt-000001.tbn", "othello:size=6")
	if err := os.WriteFile(filepath.Join(dir, "c4", "junk.tbn"), []byte("this is not a checkpoint, only some text"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func newTestServer(t testing.TB, mod func(*Config)) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Runs = testRuns(t)
	cfg.MoveTime = 20 * time.Second
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// do sends one request and decodes the JSON reply into out (when not nil).
func do(t *testing.T, h http.Handler, method, url, body string, out any) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, url, strings.NewReader(body))
	req.Host = "127.0.0.1:8080"
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if out != nil && rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatalf("%s %s: reply %q: %v", method, url, rec.Body.String(), err)
		}
	}
	return rec.Code, rec.Body.String()
}

func TestMoveWithNetwork(t *testing.T) {
	s := newTestServer(t, nil)
	var rep web.Reply
	code, body := do(t, s, "POST", "/api/move", `{"game":"connect4","player":"net:path=c4/checkpoints/ckpt-000001.tbn,sims=24","moves":[3,3]}`, &rep)
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	if len(rep.Policy) != 7 || rep.Value == nil {
		t.Fatalf("policy %v value %v: want 7 probabilities and a value", rep.Policy, rep.Value)
	}
	sum := float32(0)
	for _, p := range rep.Policy {
		sum += p
	}
	if sum < 0.99 || sum > 1.01 {
		t.Errorf("policy sums to %v", sum)
	}
	if got := rep.Position.Moves; len(got) != 3 || got[2] != rep.Move {
		t.Errorf("position moves %v after engine move %d", got, rep.Move)
	}
	if rep.Position.ToMove != 1 || rep.Position.Cells[5*7+3] != 1 || rep.Position.Cells[4*7+3] != 2 {
		t.Errorf("position %+v: want red at the bottom of column 4, yellow above, yellow to move", rep.Position)
	}
	// The same request gives the same answer (the seed comes from the request).
	var again web.Reply
	do(t, s, "POST", "/api/move", `{"game":"connect4","player":"net:path=c4/checkpoints/ckpt-000001.tbn,sims=24","moves":[3,3]}`, &again)
	if again.Move != rep.Move {
		t.Errorf("second answer %d, first %d", again.Move, rep.Move)
	}
}

func TestMoveEveryGame(t *testing.T) {
	s := newTestServer(t, nil)
	for _, c := range web.Choices {
		if c.Spec == "backgammon" {
			continue // its dice and checkers: TestBackgammonAPI
		}
		var rep web.Reply
		body := `{"game":"` + c.Spec + `","player":"random","moves":[]}`
		code, text := do(t, s, "POST", "/api/move", body, &rep)
		if code != http.StatusOK {
			t.Errorf("%s: status %d: %s", c.Spec, code, text)
			continue
		}
		if !contains(rep.Position.Legal, rep.Position.Legal...) || len(rep.Position.Moves) != 1 {
			t.Errorf("%s: reply %+v", c.Spec, rep)
		}
		stones := 0
		for _, v := range rep.Position.Cells {
			if v != 0 {
				stones++
			}
		}
		want := 1
		switch rep.Position.Layout.Kind {
		case "othello":
			want = 5 // four to start, one more, one flipped: still five discs
		case "chess":
			want = 32 // a first move captures nothing
		}
		if stones != want {
			t.Errorf("%s: %d stones after one move, want %d", c.Spec, stones, want)
		}
	}
}

func contains(list []int, xs ...int) bool {
	for _, x := range xs {
		found := false
		for _, y := range list {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}

func TestState(t *testing.T) {
	s := newTestServer(t, nil)
	// Connect Four: red wins with four in column 1.
	var p web.Position
	code, body := do(t, s, "POST", "/api/state", `{"game":"connect4","moves":[0,1,0,1,0,1,0]}`, &p)
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	if !p.Over || p.Result != "Red wins" || p.Returns != [2]float64{1, -1} || len(p.Legal) != 0 || p.Notation != "1212121" {
		t.Errorf("position %+v: want a red win", p)
	}
}

func TestBadRequests(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.MaxBody = 2048 })
	huge := `{"game":"connect4","moves":[` + strings.Repeat("0,", 4000) + `0]}`
	for _, tc := range []struct {
		name, method, url, body string
		status                  int
		want                    string
	}{
		{"illegal move", "POST", "/api/state", `{"game":"connect4","moves":[0,0,0,0,0,0,0]}`, 400, "move 7: illegal move"},
		{"move out of range", "POST", "/api/move", `{"game":"connect4","player":"random","moves":[9]}`, 400, "outside [0, 7)"},
		{"unknown game", "POST", "/api/state", `{"game":"shogi","moves":[]}`, 400, `unknown game "shogi"`},
		{"no game", "POST", "/api/state", `{"moves":[]}`, 400, "no game given"},
		{"bad game parameter", "POST", "/api/state", `{"game":"go:size=99","moves":[]}`, 400, "size"},
		{"bad spec kind", "POST", "/api/move", `{"game":"connect4","player":"leela","moves":[]}`, 400, `unknown kind "leela"`},
		{"bad spec value", "POST", "/api/move", `{"game":"connect4","player":"alphabeta:depth=0","moves":[]}`, 400, "depth"},
		{"spec over the server's limit", "POST", "/api/move", `{"game":"connect4","player":"alphabeta:depth=2,tt=26","moves":[]}`, 400, "more than this server allows"},
		{"no player", "POST", "/api/move", `{"game":"connect4","moves":[]}`, 400, "no player given"},
		{"solver in go", "POST", "/api/move", `{"game":"go:size=5","player":"solver","moves":[]}`, 400, "connect4 and othello only"},
		{"net path leaves runs", "POST", "/api/move", `{"game":"connect4","player":"net:path=../x.tbn","moves":[]}`, 400, "inside the runs folder"},
		{"net path absolute", "POST", "/api/move", `{"game":"connect4","player":"net:path=/etc/passwd","moves":[]}`, 400, "inside the runs folder"},
		{"net path missing", "POST", "/api/move", `{"game":"connect4","player":"net:path=none.tbn","moves":[]}`, 400, "no such file"},
		{"net of another game", "POST", "/api/move", `{"game":"connect4","player":"net:path=oth/checkpoints/ckpt-000001.tbn","moves":[]}`, 400, `checkpoint is for game "othello:size=6"`},
		{"corrupt net", "POST", "/api/move", `{"game":"connect4","player":"net:path=c4/junk.tbn","moves":[]}`, 400, "checkpoint c4/junk.tbn: not a tabula checkpoint"},
		{"game over", "POST", "/api/move", `{"game":"connect4","player":"random","moves":[0,1,0,1,0,1,0]}`, 400, "the game is over"},
		{"player in state", "POST", "/api/state", `{"game":"connect4","player":"random","moves":[]}`, 400, "takes no player"},
		{"unknown field", "POST", "/api/state", `{"game":"connect4","moves":[],"cheat":true}`, 400, `unknown field "cheat"`},
		{"malformed JSON", "POST", "/api/state", `{"game":`, 400, "request body"},
		{"two values", "POST", "/api/state", `{"game":"connect4","moves":[]} {}`, 400, "more than one JSON value"},
		{"moves not numbers", "POST", "/api/state", `{"game":"connect4","moves":["d4"]}`, 400, "request body"},
		{"oversized body", "POST", "/api/state", huge, 413, "larger than 2048 bytes"},
		{"too many moves", "POST", "/api/state", `{"game":"connect4","moves":[` + strings.Repeat("0,", 50) + `0]}`, 400, "at most 42"},
		{"wrong method", "GET", "/api/move", ``, 405, "takes POST, not GET"},
		{"unknown API", "GET", "/api/nothing", ``, 404, "no API /api/nothing"},
		{"players of a bad game", "GET", "/api/players?game=nosuchgame", ``, 400, "unknown game"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := do(t, s, tc.method, tc.url, tc.body, nil)
			if code != tc.status {
				t.Fatalf("status %d, want %d: %s", code, tc.status, body)
			}
			if tc.want == "" {
				return
			}
			var e struct{ Error string }
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("reply %q is not a JSON error: %v", body, err)
			}
			if !strings.Contains(e.Error, tc.want) {
				t.Errorf("error %q, want one containing %q", e.Error, tc.want)
			}
		})
	}
}

func TestPlayersListsCheckpointsOfTheGame(t *testing.T) {
	s := newTestServer(t, nil)
	var got map[string][]Opponent
	if code, body := do(t, s, "GET", "/api/players?game=connect4", "", &got); code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	var paths []string
	for _, o := range got["checkpoints"] {
		paths = append(paths, o.Title)
	}
	if strings.Join(paths, " ") != "c4/checkpoints/ckpt-000001.tbn c4/checkpoints/ckpt-000002.tbn" {
		t.Errorf("connect4 checkpoints %q", paths)
	}
	if len(got["builtin"]) == 0 || got["builtin"][len(got["builtin"])-1].Spec != "solver" {
		t.Errorf("builtin %+v: want the solver last for connect4", got["builtin"])
	}
	// Every listed spec plays.
	for _, o := range append(got["checkpoints"], got["builtin"][:2]...) {
		req, _ := json.Marshal(web.Request{Game: "connect4", Player: o.Spec, Moves: []int{}})
		if code, body := do(t, s, "POST", "/api/move", string(req), nil); code != 200 {
			t.Errorf("%s: status %d: %s", o.Spec, code, body)
		}
	}
	do(t, s, "GET", "/api/players?game=othello:size=6", "", &got)
	if len(got["checkpoints"]) != 1 || got["checkpoints"][0].Title != "oth/checkpoints/ckpt-000001.tbn" {
		t.Errorf("othello checkpoints %+v", got["checkpoints"])
	}
}

func TestPageAndGames(t *testing.T) {
	s := newTestServer(t, nil)
	code, body := do(t, s, "GET", "/", "", nil)
	if code != 200 || !strings.Contains(body, `src="main-http.js"`) {
		t.Fatalf("page: status %d: %.200s", code, body)
	}
	for _, f := range []string{"/app.js", "/board.js", "/engine-http.js", "/style.css"} {
		if code, _ := do(t, s, "GET", f, "", nil); code != 200 {
			t.Errorf("%s: status %d", f, code)
		}
	}
	var gs []gameInfo
	do(t, s, "GET", "/api/games", "", &gs)
	if len(gs) != 12 || gs[0].Layout.Kind != "connect4" || gs[5].Layout.Rows != 9 || gs[5].Layout.Pass != 81 ||
		gs[6].Layout.Kind != "chess" || gs[6].Layout.Players != [2]string{"White", "Black"} || gs[7].Layout.Kind != "tictactoe" ||
		gs[8].Layout.Kind != "backgammon" || gs[9].Spec != "whist" || gs[9].Layout.Kind != "cards" {
		t.Errorf("games %+v", gs)
	}
}

func TestEngineDeadline(t *testing.T) {
	// A search that cannot finish within MoveTime is cut off with a 503.
	s := newTestServer(t, func(c *Config) { c.MoveTime = 50 * time.Millisecond })
	code, body := do(t, s, "POST", "/api/move", `{"game":"go:size=9","player":"mcts:rollouts=100000","moves":[]}`, nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "did not answer within 50ms") {
		t.Fatalf("status %d: %s", code, body)
	}
}

func TestBusy(t *testing.T) {
	// With the only search slot taken, a request waits at most MoveTime.
	s := newTestServer(t, func(c *Config) { c.MoveTime = 50 * time.Millisecond; c.MaxSearches = 1 })
	s.sem <- struct{}{}
	defer func() { <-s.sem }()
	_, err := s.Move(context.Background(), web.Request{Game: "connect4", Player: "random", Moves: []int{}})
	if err == nil || !strings.Contains(err.Error(), "server busy") {
		t.Fatalf("err = %v, want server busy", err)
	}
}

func TestEngineCacheEvicts(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.Engines = 1 })
	for _, p := range []string{"net:path=c4/checkpoints/ckpt-000001.tbn,sims=8", "net:path=c4/checkpoints/ckpt-000002.tbn,sims=8", "random"} {
		if _, err := s.Move(context.Background(), web.Request{Game: "connect4", Player: p, Moves: []int{}}); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		s.mu.Lock()
		n := s.lru.Len()
		s.mu.Unlock()
		if n != 1 {
			t.Fatalf("%d engines loaded, want 1", n)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	c := DefaultConfig()
	c.MaxSearches = 0
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "max searches") {
		t.Errorf("Validate = %v", err)
	}
	c = DefaultConfig()
	c.Runs = filepath.Join(t.TempDir(), "none")
	if _, err := New(c, nil); err == nil {
		t.Error("New with a missing runs folder succeeded")
	}
}

// TestConcurrentRequests sends requests for several engines at once to a
// server that keeps one loaded engine, so that engines are evicted while
// others use them (run with -race).
func TestConcurrentRequests(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.Engines = 1; c.MaxSearches = 3 })
	players := []string{"net:path=c4/checkpoints/ckpt-000001.tbn,sims=16", "net:path=c4/checkpoints/ckpt-000002.tbn,sims=16", "random", "greedy"}
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		go func() {
			_, err := s.Move(context.Background(), web.Request{Game: "connect4", Player: players[i%len(players)], Moves: []int{i % 7}})
			errs <- err
		}()
	}
	for i := 0; i < 16; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for e := s.lru.Front(); e != nil; e = e.Next() {
		if en := e.Value.(*engine); en.refs != 0 {
			t.Errorf("engine %s still has %d users", en.key, en.refs)
		}
	}
}

func TestCheckpointPathWithSpaces(t *testing.T) {
	dir := t.TempDir()
	writeCheckpoint(t, dir, "my run/ckpt, 1=a.tbn", "connect4")
	cfg := DefaultConfig()
	cfg.Runs = dir
	s, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got map[string][]Opponent
	do(t, s, "GET", "/api/players?game=connect4", "", &got)
	if len(got["checkpoints"]) != 1 {
		t.Fatalf("checkpoints %+v", got["checkpoints"])
	}
	spec := got["checkpoints"][0].Spec
	if spec != `net:path="my run/ckpt, 1=a.tbn",sims=200` {
		t.Errorf("spec %s", spec)
	}
	req, _ := json.Marshal(web.Request{Game: "connect4", Player: strings.Replace(spec, "200", "8", 1), Moves: []int{}})
	if code, body := do(t, s, "POST", "/api/move", string(req), nil); code != 200 {
		t.Errorf("status %d: %s", code, body)
	}
}
