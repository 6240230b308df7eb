package pipeline

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tabula/games/backgammon"
	"tabula/nn"
	"tabula/replay"
)

// TestChanceLadderRefusesAlphaBeta checks that a run of a game of chance
// whose ladder names a player that cannot handle chance is refused when the
// config is loaded, with an error naming chance.
func TestChanceLadderRefusesAlphaBeta(t *testing.T) {
	_, err := Load("../configs/backgammon-smoke.yaml", []string{"run_dir=" + t.TempDir(), `ladder.players=[random, "alphabeta:depth=2"]`})
	if err == nil || !strings.Contains(err.Error(), "chance") {
		t.Fatalf("Load: err = %v, want a refusal naming chance", err)
	}
}

// TestBackgammonSmoke runs configs/backgammon-smoke.yaml end to end: self-play
// rolls the dice and records only decision positions, training, gating (a
// colour-swapped pair on the same dice) and the ladder against pubeval and
// random all run on a game of chance.
func TestBackgammonSmoke(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load("../configs/backgammon-smoke.yaml", []string{"run_dir=" + dir})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tr := runOnce(t, cfg)
	if sum := tr.Summary(); !strings.Contains(sum, "sims=200 pubeval") {
		t.Errorf("the summary suggests no pubeval match: %s", sum)
	}
	t.Logf("two iterations in %v", time.Since(start).Round(time.Millisecond))
	m := readMetrics(t, dir)
	if len(m) != 2 {
		t.Fatalf("%d metrics lines, want 2", len(m))
	}
	games, examples := 0.0, 0.0
	for i, rec := range m {
		sp := rec["selfplay"].(map[string]any)
		tr := rec["train"].(map[string]any)
		// Every searched move of a full search is an example; the dice
		// are neither. (Which iteration a game lands in depends on the
		// machine's speed: under -race the second can see none.)
		games += sp["games"].(float64)
		examples += sp["examples"].(float64)
		if sp["examples"] != sp["positions"] || tr["steps"].(float64) != 5 {
			t.Fatalf("iteration %d: selfplay %v train %v", i+1, sp, tr)
		}
		gate := rec["gate"].(map[string]any)
		if _, ok := gate["promoted"]; !ok || gate["wins"].(float64)+gate["draws"].(float64)+gate["losses"].(float64) != 2 {
			t.Fatalf("iteration %d: gating %v", i+1, gate)
		}
	}
	if games < 1 || examples < 1 {
		t.Fatalf("self-play wrote %v games, %v examples in two iterations", games, examples)
	}
	lad, ok := m[1]["ladder"]
	if !ok {
		t.Fatal("no ladder result at iteration 2 (ladder.every = 2)")
	}
	for _, p := range []string{"pubeval", "random"} {
		if !strings.Contains(toJSON(t, lad), p) {
			t.Errorf("ladder %v does not name %s", lad, p)
		}
	}
	// Every stored example is a decision position: plane 18 of a
	// backgammon observation marks a chance node (no dice yet).
	files, _ := filepath.Glob(filepath.Join(dir, replayDir, "*"+replay.ChunkSuffix))
	n := 0
	for _, f := range files {
		_, ex, err := replay.ReadChunkFile(f)
		if err != nil {
			t.Fatalf("chunk %s: %v", f, err)
		}
		for _, e := range ex {
			n++
			if e.Obs[18*backgammon.Points] != 0 {
				t.Fatalf("chunk %s: an example at a chance node", f)
			}
		}
	}
	if n == 0 {
		t.Fatal("no examples in the replay folder")
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBackgammonMoneySmoke runs configs/backgammon-money-smoke.yaml: every
// value target is a result on the money scale (points/3), and the network
// is saved for the money game, which a net player of the win/loss game
// refuses.
func TestBackgammonMoneySmoke(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load("../configs/backgammon-money-smoke.yaml", []string{"run_dir=" + dir, "iterations=1", "ladder.every=0", "gate.games=0"})
	if err != nil {
		t.Fatal(err)
	}
	runOnce(t, cfg)
	files, _ := filepath.Glob(filepath.Join(dir, replayDir, "*"+replay.ChunkSuffix))
	seen := map[float32]int{}
	for _, f := range files {
		_, ex, err := replay.ReadChunkFile(f)
		if err != nil {
			t.Fatalf("chunk %s: %v", f, err)
		}
		for _, e := range ex {
			seen[e.Value]++
		}
	}
	third := float32(1) / 3
	for v, n := range seen {
		ok := false
		for _, k := range []float32{1, 2, 3} {
			ok = ok || math.Abs(float64(v)-float64(k*third)) < 1e-6 || math.Abs(float64(v)+float64(k*third)) < 1e-6
		}
		if !ok {
			t.Errorf("%d value targets of %v, want +-1/3, +-2/3 or +-1", n, v)
		}
	}
	if seen[third]+seen[-third] == 0 {
		t.Errorf("no single game among the value targets %v", seen)
	}
	ck, err := nn.LoadCheckpoint(filepath.Join(dir, "checkpoints", "best-weights.tbn"))
	if err != nil {
		t.Fatal(err)
	}
	if ck.Game != "backgammon:scoring=money" {
		t.Fatalf("the network is for %q", ck.Game)
	}
	if err := ck.CheckGame(backgammon.New(false)); err == nil {
		t.Error("a network trained on points accepted for the win/loss game")
	}
}
