package pipeline

import (
	"path/filepath"
	"strings"
	"testing"

	"tabula/games/chess"
	"tabula/nn"
)

// TestChessSmoke runs one iteration of configs/chess-smoke.yaml end to end:
// self-play games of chess:maxplies=60 end (by the rules or the ply cap),
// training, gating and a ladder against random and alphabeta:depth=1 run,
// and the best network, trained under the cap, plays plain chess.
func TestChessSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("a chess training iteration: skipped with -short")
	}
	dir := t.TempDir()
	cfg, err := Load("../configs/chess-smoke.yaml", []string{"run_dir=" + dir, "iterations=1", "ladder.every=1"})
	if err != nil {
		t.Fatal(err)
	}
	tr := runOnce(t, cfg)
	if sum := tr.Summary(); !strings.Contains(sum, "alphabeta:depth=2' -games 100 -openings data/chess/openings.txt") {
		t.Errorf("the summary's evaluate command does not play alpha-beta from the openings:\n%s", sum)
	}
	m := readMetrics(t, dir)
	if len(m) != 1 {
		t.Fatalf("%d metrics lines, want 1", len(m))
	}
	sp := m[0]["selfplay"].(map[string]any)
	if sp["games"].(float64) < 1 || sp["examples"].(float64) < 1 {
		t.Fatalf("self-play finished no chess game: %v", sp)
	}
	gate := m[0]["gate"].(map[string]any)
	if gate["wins"].(float64)+gate["draws"].(float64)+gate["losses"].(float64) != 2 {
		t.Fatalf("gating %v, want 2 games", gate)
	}
	lad, ok := m[0]["ladder"]
	if !ok {
		t.Fatal("no ladder result (ladder.every = 1)")
	}
	for _, p := range []string{"random", "alphabeta:depth=1"} {
		if !strings.Contains(toJSON(t, lad), p) {
			t.Errorf("ladder %v does not name %s", lad, p)
		}
	}
	ck, err := nn.LoadCheckpoint(filepath.Join(dir, "checkpoints", "best-weights.tbn"))
	if err != nil {
		t.Fatal(err)
	}
	if ck.Game != "chess:maxplies=60" {
		t.Errorf("checkpoint game %q, want chess:maxplies=60", ck.Game)
	}
	if err := ck.CheckGame(chess.Game{}); err != nil {
		t.Errorf("the network trained under maxplies=60 does not play chess: %v", err)
	}
}
