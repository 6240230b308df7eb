package watch

import (
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	_ "tabula/games/othello"
	"tabula/replay"
)

// playedGame is a random game and the indices of the positions stored as
// examples (about half, as with a playout cap).
type playedGame struct {
	actions []int
	stored  []int // move numbers of the stored positions
}

// writeChunk plays n random games of g, stores about half of their
// positions as one replay chunk under dir/replay, and returns the games.
func writeChunk(t *testing.T, dir string, g games.Game, n, maxMoves int, seed uint64) []playedGame {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	buf, err := replay.Open(filepath.Join(dir, "replay"), g, replay.DefaultConfig(), "test", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	p, h, w := g.ObservationShape()
	var all []replay.Example
	var played []playedGame
	for range n {
		s := g.NewInitialState()
		var pg playedGame
		var ex []replay.Example
		var movers []int
		var legal []int
		for !s.IsTerminal() && len(pg.actions) < maxMoves {
			legal = s.LegalActions(legal)
			if rng.IntN(2) == 0 || len(pg.actions) == 0 && rng.IntN(2) == 0 {
				e := replay.Example{Obs: make([]float32, p*h*w), Policy: make([]float32, g.NumActions()), Legal: make([]bool, g.NumActions())}
				s.Observation(e.Obs)
				for _, a := range legal {
					e.Legal[a] = true
					e.Policy[a] = 1 / float32(len(legal))
				}
				ex = append(ex, e)
				movers = append(movers, s.CurrentPlayer())
				pg.stored = append(pg.stored, len(pg.actions))
			}
			a := legal[rng.IntN(len(legal))]
			pg.actions = append(pg.actions, a)
			s.ApplyAction(a)
		}
		ret := s.Returns()
		for i := range ex {
			ex[i].Value = float32(ret[movers[i]])
		}
		if len(ex) == 0 {
			continue
		}
		all = append(all, ex...)
		played = append(played, pg)
	}
	if _, err := buf.Write(all); err != nil {
		t.Fatal(err)
	}
	return played
}

// TestChunkGames checks that the games rebuilt from a chunk are the games
// played, up to their last stored position.
func TestChunkGames(t *testing.T) {
	// Random Go games capture stones placed a move earlier far more often
	// than real ones; 20 moves keep that to what the search handles.
	for i, tc := range []struct {
		spec     string
		maxMoves int
	}{{"connect4", 42}, {"othello:size=6", 32}, {"go:size=5", 20}} {
		spec := tc.spec
		t.Run(spec, func(t *testing.T) {
			g, err := games.New(spec)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			played := writeChunk(t, dir, g, 6, tc.maxMoves, uint64(i+1))
			got, unlinked, err := RecentGames(filepath.Join(dir, "replay"), 100, nil)
			if err != nil {
				t.Fatal(err)
			}
			stored := 0
			for _, pg := range played {
				stored += len(pg.stored)
			}
			if strings.HasPrefix(spec, "go") {
				// A stone placed and captured within a gap, twice, or a
				// gap of more than maxGap moves, cuts a game: allow a few.
				if unlinked > stored/10 {
					t.Errorf("%d of %d positions not linked", unlinked, stored)
				}
				t.Logf("%d of %d positions not linked, %d games from %d", unlinked, stored, len(got), len(played))
				return
			}
			if unlinked != 0 {
				t.Errorf("%d positions not linked", unlinked)
			}
			if len(got) != len(played) {
				t.Fatalf("rebuilt %d games, played %d", len(got), len(played))
			}
			for k, pg := range played {
				last := pg.stored[len(pg.stored)-1]
				if len(got[k].Moves) != last {
					t.Errorf("game %d: %d moves, want %d", k, len(got[k].Moves), last)
				}
				// Between stored positions the order of the moves may be a
				// transposition; the stored positions themselves must match.
				s := g.NewInitialState()
				boards := map[int]string{}
				for m := 0; m <= last; m++ {
					if slices.Contains(pg.stored, m) {
						boards[m] = boardOf(g, s)
					}
					if m < last {
						s.ApplyAction(pg.actions[m])
					}
				}
				for m, b := range boards {
					if m < len(got[k].Frames) && got[k].Frames[m].Board != b {
						t.Errorf("game %d: stored position %d rebuilt as %q, want %q", k, m, got[k].Frames[m].Board, b)
					}
				}
				if len(got[k].Frames) != last+1 {
					t.Fatalf("game %d: %d frames, want %d", k, len(got[k].Frames), last+1)
				}
				for _, m := range pg.stored {
					if !got[k].Frames[m].Searched || got[k].Frames[m].Z == nil {
						t.Errorf("game %d: frame %d not marked as stored", k, m)
					}
				}
			}
		})
	}
}

// boardOf renders s as Frame.Board does.
func boardOf(g games.Game, s games.State) string {
	p, h, w := g.ObservationShape()
	sr := &gapSearch{hw: h * w, cells: make([]float32, p*h*w)}
	return sr.frame(s, "").Board
}

// fakeRun writes a run folder: three metrics lines (the last torn, as while
// the trainer writes it) and a Connect Four replay chunk.
func fakeRun(t *testing.T) (string, []playedGame) {
	t.Helper()
	dir := t.TempDir()
	lines := []string{
		`{"iteration":1,"wall_seconds":60,"best":"ckpt-000001.tbn","train":{"steps":100,"total_steps":100,"loss_value":0.9,"loss_policy":1.9,"loss_l2":0.05,"loss_total":2.85,"policy_entropy":1.8},"selfplay":{"games":50,"positions":1000,"games_per_s":0.8,"positions_per_s":16.5},"gate":{"games":0,"promoted":true}}`,
		`{"iteration":2,"wall_seconds":180,"best":"ckpt-000002.tbn","train":{"steps":100,"total_steps":200,"loss_value":0.7,"loss_policy":1.7,"loss_l2":0.06,"loss_total":2.46,"policy_entropy":1.6},"selfplay":{"games":60,"positions":1200,"games_per_s":0.9,"positions_per_s":18},"ladder":{"players":["best","mcts:rollouts=1000","random"],"elo":[120.5,0,-300],"elo_low":[60,null,-400],"elo_high":[180,null,-200],"scores":{"random":1}},"bench":{"Test_L3_R1":0.12,"Test_L2_R1":0.3}}`,
		`{"iteration":3,"wall_sec`,
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	gating := `{"index":0,"game":"connect4","players":["candidate","best"],"seats":[0,1],"moves":"4453","result":[0,0],"winner":-1}
{"index":1,"game":"connect4","players":["best","candidate"],"seats":[1,0],"moves":"1111222","result":[1,-1],"winner":0}
`
	if err := os.MkdirAll(filepath.Join(dir, "gating"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"iter-000001.jsonl": `{"game":"connect4","moves":"1"}` + "\n", "iter-000002.jsonl": gating} {
		if err := os.WriteFile(filepath.Join(dir, "gating", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	return dir, writeChunk(t, dir, g, 4, 42, 42)
}

func get(t *testing.T, h http.Handler, method, url string) (int, string, http.Header) {
	t.Helper()
	req := httptest.NewRequest(method, url, nil)
	req.Host = "localhost:8081"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b), rec.Result().Header
}

func TestHandlers(t *testing.T) {
	dir, played := fakeRun(t)
	s := serveRun(t, dir, nil)
	h := s.Handler()

	code, body, hdr := get(t, h, "GET", "/")
	if code != 200 || !strings.Contains(body, "/assets/app.js") || !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Fatalf("GET /: %d %q csp %q", code, body[:min(len(body), 80)], hdr.Get("Content-Security-Policy"))
	}
	if code, body, _ := get(t, h, "GET", "/assets/app.js"); code != 200 || !strings.Contains(body, "drawPlot") {
		t.Errorf("GET /assets/app.js: %d", code)
	}

	code, body, _ = get(t, h, "GET", "/api/plots")
	if code != 200 {
		t.Fatalf("GET /api/plots: %d %s", code, body)
	}
	var plots struct {
		Iterations int `json:"iterations"`
		Plots      []struct {
			Name  string `json:"name"`
			Lines []struct {
				Label string     `json:"label"`
				X     []*float64 `json:"x"`
				Y     []*float64 `json:"y"`
				Low   []*float64 `json:"low"`
				High  []*float64 `json:"high"`
			} `json:"lines"`
		} `json:"plots"`
	}
	if err := json.Unmarshal([]byte(body), &plots); err != nil {
		t.Fatal(err)
	}
	if plots.Iterations != 2 {
		t.Errorf("iterations = %d, want 2 (the torn third line ignored)", plots.Iterations)
	}
	var names []string
	for _, p := range plots.Plots {
		names = append(names, p.Name)
	}
	if want := []string{"elo", "loss", "entropy", "mistakes", "selfplay", "scores"}; !slices.Equal(names, want) {
		t.Errorf("plots %v, want %v", names, want)
	}
	if e := plots.Plots[0].Lines[0]; len(e.X) != 1 || *e.X[0] != 3 || *e.Low[0] != 60 || *e.High[0] != 180 {
		t.Errorf("Elo line %+v", e)
	}
	if l := plots.Plots[1].Lines; len(l) != 4 || len(l[0].X) != 2 {
		t.Errorf("loss lines %+v", l)
	}
	if l := plots.Plots[3].Lines; len(l) != 2 || l[0].Label != "Test_L2_R1" {
		t.Errorf("mistake lines %+v", l)
	}

	code, body, _ = get(t, h, "GET", "/api/games?n=2")
	if code != 200 {
		t.Fatalf("GET /api/games: %d %s", code, body)
	}
	var gs struct {
		Games    []Game `json:"games"`
		Unlinked int    `json:"unlinked"`
		Gating   []Game `json:"gating"`
	}
	if err := json.Unmarshal([]byte(body), &gs); err != nil {
		t.Fatal(err)
	}
	if len(gs.Games) != 2 || gs.Unlinked != 0 {
		t.Fatalf("%d games, %d unlinked", len(gs.Games), gs.Unlinked)
	}
	if last := played[0].stored[len(played[0].stored)-1]; len(gs.Games[0].Moves) != last {
		t.Errorf("game 0 has %d moves, want %d", len(gs.Games[0].Moves), last)
	}
	// The newest iteration's gating games, as played.
	if len(gs.Gating) != 2 {
		t.Fatalf("%d gating games, want 2 (iteration 2's)", len(gs.Gating))
	}
	if g := gs.Gating[1]; g.Kind != "gating" || strings.Join(g.Moves, "") != "1111222" || len(g.Frames) != 8 ||
		g.Result != "first player wins" || g.Players != [2]string{"best", "candidate"} || g.Chunk != "iter-000002.jsonl" {
		t.Errorf("gating game 1: %+v", g)
	}
	// Column 1 from the bottom: x o x o, then x in column 2.
	if b := gs.Gating[1].Frames[5].Board; b[2*7:] != "o......x......o......xx....." {
		t.Errorf("gating game 1 after 5 moves: %q", b)
	}

	for _, tc := range []struct {
		method, url string
		code        int
	}{
		{"GET", "/api/games?n=0", 400},
		{"GET", "/api/games?n=abc", 400},
		{"GET", "/api/games?n=1000", 400},
		{"POST", "/api/plots", 405},
		{"GET", "/nothing", 404},
	} {
		if code, body, _ := get(t, h, tc.method, tc.url); code != tc.code {
			t.Errorf("%s %s: %d %q, want %d", tc.method, tc.url, code, body, tc.code)
		}
	}

	// A damaged metrics line in the middle is an error naming the line.
	if err := os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte("{\"iteration\":1}\nnot json\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, body, _ := get(t, h, "GET", "/api/plots"); code != 500 || !strings.Contains(body, "line 2") {
		t.Errorf("damaged metrics: %d %q", code, body)
	}
	// So is an illegal gating game.
	bad := `{"index":0,"game":"connect4","moves":"11111111"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "gating", "iter-000003.jsonl"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, body, _ := get(t, h, "GET", "/api/games"); code != 500 || !strings.Contains(body, "iter-000003.jsonl line 1") {
		t.Errorf("illegal gating game: %d %q", code, body)
	}
	os.Remove(filepath.Join(dir, "gating", "iter-000003.jsonl"))
	// A damaged chunk is an error too.
	names2, _ := filepath.Glob(filepath.Join(dir, "replay", "chunk-*"))
	if err := os.WriteFile(names2[0], []byte("TBRC garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := serveRun(t, dir, nil)
	if code, body, _ := get(t, s2.Handler(), "GET", "/api/games"); code != 500 || !strings.Contains(body, "corrupt") {
		t.Errorf("damaged chunk: %d %q", code, body)
	}
}

func TestEmptyRun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Run = t.TempDir()
	s, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{"/api/plots", "/api/games"} {
		if code, body, _ := get(t, s.Handler(), "GET", url); code != 200 {
			t.Errorf("GET %s on an empty run: %d %s", url, code, body)
		}
	}
	cfg.Run = filepath.Join(cfg.Run, "missing")
	if _, err := New(cfg, nil); err == nil {
		t.Error("New with a missing run folder: no error")
	}
	cfg.Run, cfg.Addr = t.TempDir(), "nonsense"
	if _, err := New(cfg, nil); err == nil {
		t.Error("New with a bad address: no error")
	}
}

// FuzzParseMetrics checks that no input makes the metrics reader or the
// plots panic, and that Plots' JSON always encodes.
func FuzzParseMetrics(f *testing.F) {
	f.Add([]byte(`{"iteration":1,"wall_seconds":60,"train":{"loss_total":2.5}}` + "\n"))
	f.Add([]byte(`{"ladder":{"elo":[1,null],"elo_low":[null],"elo_high":[]},"bench":{"a":0.5,"b":"skipped"}}` + "\n{\"iter"))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ParseMetrics(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		if _, err := json.Marshal(Plots(recs)); err != nil {
			t.Fatalf("plots of %q do not encode: %v", data, err)
		}
	})
}

// serveRun is a watch server of the run in dir with the default settings.
func serveRun(t *testing.T, dir string, log *slog.Logger) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Run = dir
	s, err := New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
