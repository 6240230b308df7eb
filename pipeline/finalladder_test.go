package pipeline

import (
	"context"
	"path/filepath"
	"testing"
)

// lastLadderBest returns the best network named by the last metrics line
// with a ladder result, and that line.
func lastLadderBest(t *testing.T, m []map[string]any) (string, map[string]any) {
	t.Helper()
	for i := len(m) - 1; i >= 0; i-- {
		if _, ok := m[i]["ladder"]; ok {
			return m[i]["best"].(string), m[i]
		}
	}
	t.Fatal("no ladder result in the metrics")
	return "", nil
}

// A run that ends between two ladder.every iterations plays the ladder once
// more, so that its last figure rates its final best network: at the end of
// its iterations and when its duration runs out, and not when the last
// iteration's ladder already rated it.
func TestFinalLadderRatesTheLastBest(t *testing.T) {
	dir := t.TempDir()
	// gate.games = 0: every network is promoted, so the best changes each iteration.
	sets := []string{"gate.games=0", "bench.every=0", "ladder.every=2"}
	runOnce(t, smoke(t, dir, append(sets, "iterations=3")...))
	m := readMetrics(t, dir)
	if len(m) != 4 {
		t.Fatalf("%d metrics lines, want 3 iterations and a final ladder", len(m))
	}
	if _, ok := m[2]["ladder"]; ok {
		t.Fatal("iteration 3 played the ladder (ladder.every = 2)")
	}
	best, line := lastLadderBest(t, m)
	if line["final_ladder"] != true || line["iteration"].(float64) != 3 || best != "ckpt-000003.tbn" {
		t.Fatalf("last line %v, want the final ladder of ckpt-000003.tbn", line)
	}
	if _, ok := line["gate"]; ok {
		t.Fatalf("the final ladder's line carries a gating result: %v", line)
	}

	// Resumed to iteration 4, whose own ladder rates the final network: no
	// final ladder, and the final ladder line above is not read as a
	// rejected iteration.
	tr := runOnce(t, smoke(t, dir, append(sets, "iterations=4")...))
	if tr.rejected["ckpt-000003.tbn"] {
		t.Fatal("the final ladder's line made ckpt-000003.tbn a rejected checkpoint")
	}
	m = readMetrics(t, dir)
	if len(m) != 5 {
		t.Fatalf("%d metrics lines, want 5", len(m))
	}
	if best, line := lastLadderBest(t, m); line["final_ladder"] != nil || best != "ckpt-000004.tbn" {
		t.Fatalf("last ladder line %v", line)
	}

	// Bound by its duration: whatever it managed, the last ladder rates the best.
	runOnce(t, smoke(t, dir, "gate.games=0", "bench.every=0", "ladder.every=1000", "iterations=0", "duration=3s"))
	m = readMetrics(t, dir)
	want, err := readBest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if best, line := lastLadderBest(t, m); best != filepath.Base(want) {
		t.Fatalf("after the duration: the last ladder rated %s (%v), the best is %s", best, line, want)
	}
	if m[len(m)-1]["iteration"].(float64) > 4 && m[len(m)-1]["final_ladder"] != true {
		t.Fatalf("the duration-bound run's last line is not a final ladder: %v", m[len(m)-1])
	}
}

// The duration running out after an iteration's checkpoint is saved (here
// held until it does) lets that iteration finish: its gating, its ladder and
// its metrics line are kept, and no final ladder repeats the ladder. Before,
// the deadline cut the ladder, the iteration's metrics line was lost and the
// final ladder played it again.
func TestDurationEndingMidIterationKeepsItsLadder(t *testing.T) {
	dir := t.TempDir()
	stageHook = func(ctx context.Context, stage string, n int) {
		if stage == "checkpoint" && n == 1 {
			<-ctx.Done()
		}
	}
	defer func() { stageHook = nil }()
	runOnce(t, smoke(t, dir, "gate.games=2", "bench.every=0", "ladder.every=1", "iterations=0", "duration=15s"))
	m := readMetrics(t, dir)
	if len(m) != 1 {
		t.Fatalf("%d metrics lines, want iteration 1's alone: %v", len(m), m)
	}
	line := m[0]
	if line["iteration"].(float64) != 1 || line["final_ladder"] != nil {
		t.Fatalf("metrics line %v, want iteration 1's own", line)
	}
	if _, ok := line["ladder"]; !ok {
		t.Fatalf("iteration 1's line has no ladder: %v", line)
	}
	if g, ok := line["gate"].(map[string]any); !ok || g["wins"] == nil || g["wins"].(float64)+g["draws"].(float64)+g["losses"].(float64) == 0 {
		t.Fatalf("iteration 1's line has no gating match: %v", line)
	}
	if wall := line["wall_seconds"].(float64); wall < 15 {
		t.Fatalf("iteration 1 ended at %.1f s, before the 15 s duration: the hook did not hold it", wall)
	}
}
