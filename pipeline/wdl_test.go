package pipeline

import (
	"path/filepath"
	"testing"

	"tabula/nn"
)

// TestWDLSmoke: a run with experimental.wdl trains the win/draw/loss head end to
// end (self-play reads its value, the trainer its cross-entropy) and saves
// it in the checkpoints.
func TestWDLSmoke(t *testing.T) {
	dir := t.TempDir()
	runOnce(t, smoke(t, dir, "experimental.wdl=true", "ladder.every=0", "bench.every=0"))
	recs := readMetrics(t, dir)
	if len(recs) == 0 {
		t.Fatal("no metrics")
	}
	for i, rec := range recs {
		tr := rec["train"].(map[string]any)
		// A cross-entropy over three outcomes: positive, ~ln 3 = 1.1 from
		// random weights, falling as the head learns.
		if l, ok := tr["loss_value"].(float64); !ok || !(l > 0 && l < 3) {
			t.Fatalf("iteration %d: train %v", i+1, tr)
		}
	}
	ck, err := nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, "ckpt-000002.tbn"))
	if err != nil {
		t.Fatal(err)
	}
	if !ck.Weights.Config.WDL || ck.Weights.ValueFC2.Out != 3 {
		t.Fatalf("checkpoint config %+v, value head %d outputs", ck.Weights.Config, ck.Weights.ValueFC2.Out)
	}
}
