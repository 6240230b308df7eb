package pipeline

import (
	"context"
	"math"
	"testing"
)

// TestTimedScheduleDropsTheRate: train.schedule timed trains at
// learning_rate until train.drop_at of the duration has passed, then at
// learning_rate x gamma; metrics.jsonl reports the rate each iteration used,
// and the arithmetic self-play's network ran in (evaluator.precision).
func TestTimedScheduleDropsTheRate(t *testing.T) {
	for _, tc := range []struct {
		name, dropAt, precision string
		want                    float64
	}{
		// 0.001 of a minute is 60 ms: the replay window's first fill takes longer.
		{"dropped from the start", "0.001", "fp32", 0.002 * 0.3},
		{"not yet dropped", "0.99", "bf16", 0.002},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := smoke(t, dir, "iterations=2", "duration=1m", "ladder.every=0", "bench.every=0", "gate.games=0",
				"train.learning_rate=0.002", "train.schedule=timed", "train.gamma=0.3", "train.drop_at="+tc.dropAt, "evaluator.precision="+tc.precision)
			tr, err := New(cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := tr.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			tr.Close()
			m := readMetrics(t, dir)
			if len(m) != 2 {
				t.Fatalf("%d metrics lines, want 2", len(m))
			}
			for i, l := range m {
				if got := l["train"].(map[string]any)["learning_rate"].(float64); math.Abs(got-tc.want) > 1e-12 {
					t.Errorf("iteration %d: learning_rate %v, want %v", i+1, got, tc.want)
				}
				if got := l["selfplay"].(map[string]any)["precision"]; got != tc.precision {
					t.Errorf("iteration %d: selfplay.precision %v, want %s", i+1, got, tc.precision)
				}
			}
		})
	}
}
