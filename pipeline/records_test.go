package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tabula/games"
	"tabula/mcts"
	"tabula/replay"
	"tabula/watch"
)

// TestSmokeRunRecords runs the smoke config with selfplay.records on: the
// run folder's records hold self-play, gating and ladder games whose moves
// replay legally to the recorded results, with a value for every move and
// the search's values present for self-play; so does a self-play worker's
// (cmd/selfplay -run) beside it. Self-play runs under a playout cap
// without tree reuse or solver here, so that each move's root visits in the
// records are exactly what a fresh search of its budget reports
// (mcts.Result.Visits), the full or the fast one. The run's watch page
// serves the self-play records as its recent games, visits included.
func TestSmokeRunRecords(t *testing.T) {
	dir := t.TempDir()
	cfg := smoke(t, dir, "selfplay.records=true", "selfplay.search.tree_reuse=false", "selfplay.search.solver=false",
		"selfplay.play.playout_cap=true", "selfplay.play.fast_simulations=4", "selfplay.play.full_search_fraction=0.5")
	runOnce(t, cfg)
	// A worker beside the run (same folder) keeps its games too.
	if err := RunWorker(context.Background(), dir, WorkerOptions{ID: "extra", Games: 2, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	files, err := replay.RecordFiles(filepath.Join(dir, recordsDir))
	if err != nil {
		t.Fatal(err)
	}
	g, _ := games.New("connect4")
	reported := map[int]bool{} // root visits a fresh search reports, full and fast
	for _, sims := range []int{cfg.SelfPlay.MCTS.Simulations, cfg.SelfPlay.MCTS.FastSimulations} {
		mc := cfg.SelfPlay.MCTS
		mc.Simulations = sims
		sr, err := mcts.NewSearch(mc, mcts.UniformEvaluator{}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := sr.Run(context.Background(), g.NewInitialState())
		if err != nil {
			t.Fatal(err)
		}
		reported[res.Visits] = true
	}
	if len(reported) != 2 {
		t.Fatalf("full and fast searches report the same root visits %v", reported)
	}
	visitsSeen := map[int]int{}
	kinds := map[string]int{}
	for _, f := range files {
		recs, err := replay.ReadRecords(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 || len(recs) > cfg.SelfPlay.ChunkGames {
			t.Errorf("%s: %d games, want 1 to chunk_games %d", f, len(recs), cfg.SelfPlay.ChunkGames)
		}
		for i, r := range recs {
			kinds[r.Kind]++
			if strings.HasPrefix(filepath.Base(f), "selfplay-extra-") {
				kinds["worker"]++
			}
			if !strings.HasPrefix(filepath.Base(f), r.Kind+"-") || r.Game != "connect4" {
				t.Errorf("%s game %d: kind %q, game %q", f, i, r.Kind, r.Game)
			}
			s, err := r.Replay(g)
			if err != nil {
				t.Fatalf("%s game %d: %v", f, i, err)
			}
			if r.Moves != g.(games.Notation).FormatActions(r.Actions) {
				t.Errorf("%s game %d: moves %q, actions %v", f, i, r.Moves, r.Actions)
			}
			if !r.Resigned && (!s.IsTerminal() || s.Returns() != r.Returns) {
				t.Errorf("%s game %d: the moves end at returns %v (terminal %v), the record says %v", f, i, s.Returns(), s.IsTerminal(), r.Returns)
			}
			nonzero := 0
			for _, v := range r.Values {
				if v != 0 {
					nonzero++
				}
			}
			if r.Kind == "selfplay" && (nonzero == 0 || r.Players[0] != r.Players[1] || !strings.HasPrefix(r.Players[0], "gen-") && !strings.HasPrefix(r.Players[0], "ckpt-")) {
				t.Errorf("%s game %d: players %v, %d nonzero values of %d", f, i, r.Players, nonzero, len(r.Values))
			}
			if r.Kind == "selfplay" {
				if len(r.Visits) != len(r.Actions) {
					t.Fatalf("%s game %d: %d visit counts for %d moves", f, i, len(r.Visits), len(r.Actions))
				}
				for k, n := range r.Visits {
					if !reported[n] {
						t.Errorf("%s game %d move %d: %d root visits, the search reports %v", f, i, k+1, n, reported)
					}
					visitsSeen[n]++
				}
			} else if r.Visits != nil {
				t.Errorf("%s game %d (%s): visits %v, want none", f, i, r.Kind, r.Visits)
			}
			if r.Kind == "gating" && (r.Players != [2]string{"candidate", "best"} && r.Players != [2]string{"best", "candidate"} || nonzero == 0) {
				t.Errorf("%s game %d: gating players %v, %d nonzero values", f, i, r.Players, nonzero)
			}
		}
	}
	// Two iterations: gating plays gate.games each, the ladder (every 2)
	// ladder.games against each of its 2 players once.
	if kinds["selfplay"] < 3 || kinds["worker"] != 2 || kinds["gating"] != 2*cfg.Gate.Games || kinds["ladder"] != 2*cfg.Ladder.Games {
		t.Errorf("records per kind %v", kinds)
	}
	if len(visitsSeen) != 2 {
		t.Errorf("moves by root visits %v, want full and fast searches", visitsSeen)
	}
	checkWatchServesRecords(t, dir, g)
}

// checkWatchServesRecords: the watch page of the run folder dir serves its
// self-play games from the records, each as recorded move for move with
// the search's value before every move, newest file first.
func checkWatchServesRecords(t *testing.T, dir string, g games.Game) {
	t.Helper()
	wcfg := watch.DefaultConfig()
	wcfg.Run = dir
	ws, err := watch.New(wcfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/api/games?n=64", nil)
	req.Host = "localhost:8081"
	resp := httptest.NewRecorder()
	ws.Handler().ServeHTTP(resp, req)
	var reply struct {
		Games   []watch.Game `json:"games"`
		Source  string       `json:"source"`
		Skipped int          `json:"skipped"`
	}
	if err := json.Unmarshal(resp.Body.Bytes(), &reply); resp.Code != 200 || err != nil {
		t.Fatalf("watch /api/games: %d %v", resp.Code, err)
	}
	files, err := replay.RecordFiles(filepath.Join(dir, recordsDir))
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]replay.GameRecord{}
	modTime := map[string]time.Time{}
	for _, f := range files {
		if !strings.HasPrefix(filepath.Base(f), "selfplay-") {
			continue
		}
		recs, err := replay.ReadRecords(f)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		modTime[filepath.Base(f)] = fi.ModTime()
		for i, r := range recs {
			recorded[fmt.Sprintf("%s#%d", filepath.Base(f), i)] = r
		}
	}
	if want := min(64, len(recorded)); reply.Source != "records" || reply.Skipped != 0 || len(reply.Games) != want {
		t.Fatalf("watch: source %q, %d skipped, %d games; want records, 0, %d of the %d self-play games", reply.Source, reply.Skipped, len(reply.Games), want, len(recorded))
	}
	seen := map[string]bool{}
	for k, gm := range reply.Games {
		key := fmt.Sprintf("%s#%d", gm.Chunk, gm.Index)
		r, ok := recorded[key]
		if !ok || seen[key] {
			t.Fatalf("watch game %d (%s) is not a self-play record, or served twice", k, key)
		}
		seen[key] = true
		if k > 0 && modTime[gm.Chunk].After(modTime[reply.Games[k-1].Chunk]) {
			t.Errorf("watch game %d (%s) is newer than the game before it", k, key)
		}
		if len(gm.Moves) != len(r.Actions) || len(gm.Frames) != len(r.Actions)+1 {
			t.Fatalf("watch game %s: %d moves, %d frames, recorded %d moves", key, len(gm.Moves), len(gm.Frames), len(r.Actions))
		}
		for i, a := range r.Actions {
			if gm.Moves[i] != g.(games.Notation).FormatAction(a) {
				t.Fatalf("watch game %s move %d: %q, recorded %d", key, i+1, gm.Moves[i], a)
			}
			if v := gm.Frames[i].Value; v == nil || *v != r.Values[i] {
				t.Fatalf("watch game %s: value before move %d %v, recorded %v", key, i+1, v, r.Values[i])
			}
			if n := gm.Frames[i].Visits; n == nil || *n != r.Visits[i] {
				t.Fatalf("watch game %s: root visits before move %d %v, recorded %v", key, i+1, n, r.Visits[i])
			}
		}
		want := "draw"
		if r.Returns[0] > 0 {
			want = "first player wins"
		} else if r.Returns[0] < 0 {
			want = "second player wins"
		}
		if gm.Result != want || gm.Resigned != r.Resigned {
			t.Errorf("watch game %s: %q (resigned %v), recorded returns %v (resigned %v)", key, gm.Result, gm.Resigned, r.Returns, r.Resigned)
		}
	}
}

// TestRecordsOffByDefault: without selfplay.records no writer is made, and
// the nil writer takes games without writing.
func TestRecordsOffByDefault(t *testing.T) {
	dir := t.TempDir()
	cfg := smoke(t, dir)
	g, _ := games.New("connect4")
	rw := newRecordWriter(cfg, dir, "selfplay", trainerName, g, 1, "", 7)
	if rw != nil {
		t.Fatal("a record writer with selfplay.records off")
	}
	if err := rw.selfPlay(mcts.GameRecord{Actions: []int{3}}, 0); err != nil {
		t.Fatal(err)
	}
	if err := rw.flush(); err != nil {
		t.Fatal(err)
	}
	if files, _ := replay.RecordFiles(filepath.Join(dir, recordsDir)); len(files) != 0 {
		t.Errorf("records written: %v", files)
	}
}
