package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"tabula/arena"
	"tabula/internal/refdata"
)

func TestBenchVerdictsCachedAndUsed(t *testing.T) {
	set := refdata.Path(t, "connect4", "Test_L2_R1")
	dir, root := filepath.Dir(set), t.TempDir()
	v, pos, err := loadVerdicts(root, dir, "Test_L2_R1", 30)
	if err != nil || len(pos) != 30 || len(v.Outcomes) != 30 {
		t.Fatalf("loadVerdicts: %v, %d positions", err, len(pos))
	}
	cache := filepath.Join(root, "bench", "Test_L2_R1-30.json")
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("verdicts not cached: %v", err)
	}
	// The cached copy is used (a poisoned cache would show up), and a
	// damaged one is recomputed.
	os.WriteFile(cache, []byte("{broken"), 0o644)
	v2, _, err := loadVerdicts(root, dir, "Test_L2_R1", 30)
	if err != nil || len(v2.Outcomes) != 30 || v2.Outcomes[7] != v.Outcomes[7] {
		t.Fatalf("recomputing a damaged cache: %v", err)
	}
	ctx := context.Background()
	g := pos[0].State.Game()
	solver, err := arena.Build(g, arena.Spec{Kind: "solver"})
	if err != nil {
		t.Fatal(err)
	}
	defer solver.Close()
	rate, err := mistakeRate(ctx, solver, v, pos, 1)
	if err != nil || rate != 0 {
		t.Fatalf("the perfect solver's mistake rate = %v, %v; want 0", rate, err)
	}
	random, _ := arena.Build(g, arena.Spec{Kind: "random"})
	rate, err = mistakeRate(ctx, random, v, pos, 1)
	if err != nil || rate < 0.1 {
		t.Fatalf("random's mistake rate = %v, %v; want clearly above 0", rate, err)
	}
}
