package mcts

import (
	"context"
	"testing"

	"tabula/games"
)

// TestPonderAnalysis deepens one analysis in steps and reads it back: visits
// add up, children come most visited first, and every principal variation
// is a legal line from the root.
func TestPonderAnalysis(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DirichletEpsilon = 0
	cfg.TreeReuse = false // Ponder keeps its tree anyway
	s := newRolloutSearch(t, cfg)
	st := position(t, "4453")
	ctx := context.Background()
	if got := s.RootChildren(nil); len(got) != 0 {
		t.Fatalf("children before any search: %v", got)
	}
	total := 0
	for range 3 {
		if err := s.Ponder(ctx, st, 100); err != nil {
			t.Fatal(err)
		}
		total += 100
		kids := s.RootChildren(nil)
		sum := 0
		for i, c := range kids {
			sum += c.Visits
			if i > 0 && c.Visits > kids[i-1].Visits {
				t.Fatalf("children out of order: %v", kids)
			}
			if c.Q < -1 || c.Q > 1 || c.Prior < 0 || c.Prior > 1 {
				t.Fatalf("child out of range: %+v", c)
			}
		}
		if sum < total-10 || sum > total {
			t.Errorf("children hold %d visits after %d playouts", sum, total)
		}
		pv := s.PV(nil, kids[0].Action, 10)
		if len(pv) < 2 || pv[0] != kids[0].Action {
			t.Errorf("principal variation %v", pv)
		}
		c := st.Clone()
		for _, a := range pv {
			if err := games.Play(c, a); err != nil {
				t.Fatalf("pv %v: %v", pv, err)
			}
		}
	}
}
