package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
	"tabula/mcts"
	"tabula/replay"
)

// TestSmokeRunRecords runs the smoke config with selfplay.records on: the
// run folder's records hold self-play, gating and ladder games whose moves
// replay legally to the recorded results, with a value for every move and
// the search's values present for self-play; so does a self-play worker's
// (cmd/selfplay -run) beside it.
func TestSmokeRunRecords(t *testing.T) {
	dir := t.TempDir()
	cfg := smoke(t, dir, "selfplay.records=true")
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
