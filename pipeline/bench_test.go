package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"tabula/games"
	"tabula/internal/refdata/refdatatest"
	"tabula/players"
)

func TestBenchVerdictsCachedAndUsed(t *testing.T) {
	set := refdatatest.Path(t, "connect4", "Test_L2_R1")
	dir, root := filepath.Dir(set), t.TempDir()
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	solver, err := players.Build(g, players.Spec{Kind: "solver"})
	if err != nil {
		t.Fatal(err)
	}
	defer solver.Close()
	rate, n, err := benchSet(ctx, root, dir, "", "Test_L2_R1", 30, solver, 1, nil)
	if err != nil || rate != 0 || n != 30 {
		t.Fatalf("the perfect solver: rate %v on %d positions, %v; want 0 on 30", rate, n, err)
	}
	cache := filepath.Join(root, "bench", "Test_L2_R1-30.json")
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("verdicts not cached: %v", err)
	}
	// A damaged cache is recomputed and replaced.
	os.WriteFile(cache, []byte("{broken"), 0o644)
	random, _ := players.Build(g, players.Spec{Kind: "random"})
	rate, _, err = benchSet(ctx, root, dir, "", "Test_L2_R1", 30, random, 1, nil)
	if err != nil || rate < 0.1 {
		t.Fatalf("random's mistake rate = %v, %v; want clearly above 0", rate, err)
	}
	if data, _ := os.ReadFile(cache); len(data) < 100 {
		t.Fatal("the damaged cache was not rewritten")
	}
}
