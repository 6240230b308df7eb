package pipeline

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"tabula/replay"
)

// TestGumbelSmokeRun runs the smoke config with Gumbel self-play
// (selfplay.search.algorithm=gumbel, playout cap on) and checks the replay
// examples it wrote: policy targets that are distributions over legal moves.
func TestGumbelSmokeRun(t *testing.T) {
	dir := t.TempDir()
	cfg := smoke(t, dir, "iterations=1", "ladder.every=0", "bench.every=0",
		"selfplay.search.algorithm=gumbel", "selfplay.search.gumbel_m=4",
		"selfplay.play.playout_cap=true", "selfplay.play.fast_simulations=4")
	runOnce(t, cfg)
	m := readMetrics(t, dir)
	if len(m) != 1 {
		t.Fatalf("%d metrics lines, want 1", len(m))
	}
	files, _ := filepath.Glob(filepath.Join(dir, replayDir, "*"+replay.ChunkSuffix))
	n := 0
	for _, f := range files {
		_, ex, err := replay.ReadChunkFile(f)
		if err != nil {
			t.Fatalf("chunk %s: %v", f, err)
		}
		for _, e := range ex {
			var sum float64
			for a, p := range e.Policy {
				if p < 0 || p > 0 && !e.Legal[a] {
					t.Fatalf("example %d: policy %v on illegal or negative move %d", n, e.Policy, a)
				}
				sum += float64(p)
			}
			if math.Abs(sum-1) > 1e-4 {
				t.Fatalf("example %d: policy %v sums to %v", n, e.Policy, sum)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no replay examples written")
	}
}

func TestGumbelConfigErrors(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"selfplay.search.algorithm=gumble", "selfplay.search.algorithm"},
		{"selfplay.search.gumbel_m=0", "selfplay.search.gumbel_m"},
		{"selfplay.search.gumbel_c_scale=0", "selfplay.search.gumbel_c_scale"},
		{"selfplay.play.forced_playouts=true", "selfplay.play.forced_playouts"},
	} {
		sets := []string{"run_dir=" + t.TempDir(), tc.set}
		if !strings.Contains(tc.set, "algorithm=") {
			sets = append(sets, "selfplay.search.algorithm=gumbel")
		}
		_, err := Load("../configs/connect4-smoke.yaml", sets)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("-set %s: error %v, want one naming %s", tc.set, err, tc.want)
		}
	}
}
