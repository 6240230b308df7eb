package bench

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	refdata "tabula/internal/refdata/refdatatest"
	"tabula/players"
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
	cache := filepath.Join(t.TempDir(), "v.json")
	v, err := LoadOrSolveVerdicts(ctx, cache, pos, 16, false, nil)
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
	solver, err := players.Build(g, players.Spec{Kind: "solver"})
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
	// The file round-trips, and serves the first of its positions.
	again, err := LoadOrSolveVerdicts(ctx, cache, pos, 16, false, nil)
	if err != nil || !again.matches(pos) {
		t.Fatalf("reloading: %v", err)
	}
	fewer, err := LoadOrSolveVerdicts(ctx, cache, pos[:5], 16, false, nil)
	if err != nil || len(fewer.Outcomes) != 5 {
		t.Fatalf("stale cache: %v", err)
	}
}

// TestVerdictsCacheIsNotOverwritten checks that a cache file holding
// anything but the verdicts asked for is left alone unless forced, that a
// cache of the first positions is extended (its verdicts kept, the rest
// solved), and that the cache's folder is never created.
func TestVerdictsCacheIsNotOverwritten(t *testing.T) {
	ctx := context.Background()
	pos := readSet(t, "Test_L3_R1")[:8]
	other := readSet(t, "Test_L2_R1")[:3]
	dir := t.TempDir()
	cache := filepath.Join(dir, "v.json")
	if _, err := LoadOrSolveVerdicts(ctx, cache, other, 16, false, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(cache)
	_, err := LoadOrSolveVerdicts(ctx, cache, pos, 16, false, nil)
	if !errors.Is(err, ErrOtherVerdicts) || !strings.Contains(err.Error(), "3 other positions") {
		t.Fatalf("cache of other positions: error %v, want ErrOtherVerdicts", err)
	}
	if after, _ := os.ReadFile(cache); string(after) != string(before) {
		t.Fatal("a cache of other positions was overwritten")
	}
	// Not a verdicts file at all (a positions file given by mistake).
	notV := filepath.Join(dir, "positions.txt")
	os.WriteFile(notV, []byte("4453 1\n"), 0o644)
	jsonV := filepath.Join(dir, "package.json")
	os.WriteFile(jsonV, []byte(`{"name": "x"}`), 0o644)
	for _, f := range []string{notV, jsonV} {
		before, _ := os.ReadFile(f)
		_, err = LoadOrSolveVerdicts(ctx, f, pos, 16, false, nil)
		if !errors.Is(err, ErrOtherVerdicts) || !strings.Contains(err.Error(), "not a verdicts file") {
			t.Errorf("%s: error %v, want ErrOtherVerdicts naming it not a verdicts file", f, err)
		}
		if after, _ := os.ReadFile(f); string(after) != string(before) {
			t.Errorf("%s was overwritten", f)
		}
	}
	// Forced, the cache is replaced.
	v, err := LoadOrSolveVerdicts(ctx, cache, pos, 16, true, nil)
	if err != nil || !v.matches(pos) {
		t.Fatalf("forced: %v", err)
	}
	if c, ok, err := readVerdicts(cache, pos); !ok || err != nil || !c.matches(pos) {
		t.Fatalf("forced: cache not replaced (%v, %v)", ok, err)
	}
	// A cache of the first 5 is extended to 8: its (poisoned) verdicts are
	// kept, the other 3 solved.
	start := &Verdicts{Positions: v.Positions[:5], Outcomes: make([][7]int, 5)}
	for i := range start.Outcomes {
		start.Outcomes[i] = [7]int{1, 1, 1, 1, 1, 1, 1}
	}
	data, _ := json.Marshal(start)
	os.WriteFile(cache, data, 0o644)
	ext, err := LoadOrSolveVerdicts(ctx, cache, pos, 16, false, nil)
	if err != nil || len(ext.Outcomes) != 8 || ext.Outcomes[4] != start.Outcomes[4] || ext.Outcomes[7] != v.Outcomes[7] {
		t.Fatalf("extending a cache of the first positions: %v", err)
	}
	// A missing folder is an error, and is not created.
	missing := filepath.Join(dir, "nonexistent", "v.json")
	_, err = LoadOrSolveVerdicts(ctx, missing, pos, 16, false, nil)
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing folder: error %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the missing folder was created")
	}
}

func readSet(t *testing.T, set string) []Position {
	t.Helper()
	f, err := os.Open(refdata.Path(t, "connect4", set))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pos, err := ReadPositions(f, set)
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

func TestLoadOrSolveVerdictsKnownFiles(t *testing.T) {
	pos := readSet(t, "Test_L3_R1")[:12]
	ctx := context.Background()
	dir := t.TempDir()
	// A known file covering more positions, with outcomes no solver would
	// give, so that taking it shows.
	fake := &Verdicts{}
	for _, p := range pos {
		fake.Positions = append(fake.Positions, p.Moves)
		fake.Outcomes = append(fake.Outcomes, [7]int{1, 1, 1, 1, 1, 1, 1})
	}
	known := filepath.Join(dir, "known.json")
	data, _ := json.Marshal(fake)
	os.WriteFile(known, data, 0o644)
	other := filepath.Join(dir, "other.json")
	otherV := &Verdicts{Positions: []string{"4"}, Outcomes: [][7]int{{}}}
	data, _ = json.Marshal(otherV)
	os.WriteFile(other, data, 0o644)

	cache := filepath.Join(dir, "v.json")
	v, err := LoadOrSolveVerdicts(ctx, cache, pos[:8], 16, false, nil, filepath.Join(dir, "missing.json"), other, known)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Outcomes) != 8 || v.Outcomes[0] != fake.Outcomes[0] || !v.matches(pos[:8]) {
		t.Fatalf("got %d verdicts %v, want the known file's first 8", len(v.Outcomes), v.Outcomes[0])
	}
	// The part taken is now the cache, which covers only 8 positions.
	if c, ok, err := readVerdicts(cache, pos[:8]); !ok || err != nil || c.Outcomes[0] != fake.Outcomes[0] {
		t.Fatalf("cache not written from the known file: %v %v", ok, err)
	}
	// Nothing known fits 12 other positions: they are solved.
	v, err = LoadOrSolveVerdicts(ctx, filepath.Join(dir, "v2.json"), pos[:12], 16, false, nil, other)
	if err != nil {
		t.Fatal(err)
	}
	sv, _ := c4solver.New(16)
	if v.Outcomes[11] != sv.OutcomeMoves(pos[11].State) {
		t.Fatal("positions no known file covers were not solved")
	}
}

// TestShippedVerdicts checks the verdicts the repository ships for Pons' sets
// (data/connect4/verdicts): each holds the set's first positions in order,
// and a sample of them agrees with the solver.
func TestShippedVerdicts(t *testing.T) {
	sv, _ := c4solver.New(22)
	for _, tc := range []struct {
		set    string
		n      int // positions shipped
		sample int // every sample-th position is solved again (0: none)
	}{
		{"Test_L1_R1", 1000, 500},
		{"Test_L1_R2", 1000, 500},
		{"Test_L1_R3", 100, 0},
		{"Test_L2_R1", 1000, 100},
		{"Test_L2_R2", 1000, 100},
		{"Test_L3_R1", 1000, 50},
	} {
		pos := readSet(t, tc.set)[:tc.n]
		v, ok, err := readVerdicts(filepath.Join("..", "data", "connect4", "verdicts", tc.set+".json"), pos)
		if err != nil || !ok || len(v.Outcomes) != tc.n {
			t.Fatalf("%s: shipped verdicts do not hold the first %d positions (%v)", tc.set, tc.n, err)
		}
		for i := 0; tc.sample > 0 && i < tc.n; i += tc.sample {
			if got := sv.OutcomeMoves(pos[i].State); got != v.Outcomes[i] {
				t.Errorf("%s line %d: shipped %v, solver %v", tc.set, pos[i].Line, v.Outcomes[i], got)
			}
		}
	}
}
