package arena

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/internal/refdata"
	"tabula/search/c4solver"
)

func TestVerdictsCacheAndBench(t *testing.T) {
	f, err := os.Open(refdata.Path(t, "connect4", "Test_L3_R1"))
	if err != nil {
		t.Fatal(err)
	}
	pos, err := ReadPositions(f, "Test_L3_R1")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	pos = pos[:40]
	ctx := context.Background()
	cache := filepath.Join(t.TempDir(), "sub", "v.json")
	v, err := LoadOrSolveVerdicts(ctx, cache, pos, 16, nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, _ := c4solver.New(16)
	for i, p := range pos {
		if v.Outcomes[i] != sv.OutcomeMoves(p.State) {
			t.Fatalf("position %d: verdicts differ from the solver", i)
		}
	}
	// A poisoned cache that matches the positions is trusted: that is how we
	// know Bench used it rather than solving again.
	poisoned := *v
	poisoned.Outcomes = make([][7]int, len(v.Outcomes))
	for i := range poisoned.Outcomes {
		poisoned.Outcomes[i] = [7]int{1, -1, -1, -1, -1, -1, -1} // only column 1 "wins"
	}
	g := pos[0].State.Game()
	solver, err := Build(g, Spec{Kind: "solver"})
	if err != nil {
		t.Fatal(err)
	}
	defer solver.Close()
	honest, err := Bench(ctx, BenchConfig{Verdicts: v}, solver, pos)
	if err != nil || honest.Mistakes != 0 {
		t.Fatalf("solver with true verdicts: %d mistakes, %v", honest.Mistakes, err)
	}
	lied, err := Bench(ctx, BenchConfig{Verdicts: &poisoned}, solver, pos)
	if err != nil || lied.Mistakes == 0 {
		t.Fatalf("Bench ignored the verdicts it was given (%d mistakes, %v)", lied.Mistakes, err)
	}
	if _, err := Bench(ctx, BenchConfig{Verdicts: v}, solver, pos[:10]); err == nil || !strings.Contains(err.Error(), "other positions") {
		t.Fatalf("verdicts for other positions accepted: %v", err)
	}
	// The file round-trips, and a stale one (other positions) is replaced.
	again, err := LoadOrSolveVerdicts(ctx, cache, pos, 16, nil)
	if err != nil || !again.matches(pos) {
		t.Fatalf("reloading: %v", err)
	}
	fewer, err := LoadOrSolveVerdicts(ctx, cache, pos[:5], 16, nil)
	if err != nil || len(fewer.Outcomes) != 5 {
		t.Fatalf("stale cache: %v", err)
	}
}
