package c4solver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// shippedVerdicts reads data/connect4/verdicts/<name>.json, the win/draw/loss
// of every column of the first positions of a Pons set, as written by
// `arena bench -verdicts` (bench.Verdicts).
func shippedVerdicts(t *testing.T, name string) (positions []string, outcomes [][7]int) {
	t.Helper()
	path := filepath.Join("..", "..", "data", "connect4", "verdicts", name+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Positions []string `json:"positions"`
		Outcomes  [][7]int `json:"outcomes"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(v.Positions) == 0 || len(v.Positions) != len(v.Outcomes) {
		t.Fatalf("%s: %d positions, %d outcomes", path, len(v.Positions), len(v.Outcomes))
	}
	return v.Positions, v.Outcomes
}

// TestShippedVerdicts checks, on a sample of each set, that the shipped
// verdicts belong to the set's positions in order, that their best column
// has the sign of the published score, and that OutcomeMoves computes them
// again. From the slow Begin-Hard set (Test_L1_R3) it samples the positions
// with the most stones, whose exact scores Solve must also give.
func TestShippedVerdicts(t *testing.T) {
	s := newSolver(t)
	for _, set := range []struct {
		name string
		step int
	}{{"Test_L3_R1", 100}, {"Test_L2_R1", 100}, {"Test_L2_R2", 100}, {"Test_L1_R1", 200}, {"Test_L1_R2", 250}, {"Test_L1_R3", 0}} {
		t.Run(set.name, func(t *testing.T) {
			ps := loadSet(t, set.name)
			positions, outcomes := shippedVerdicts(t, set.name)
			if len(positions) > len(ps) {
				t.Fatalf("%d verdicts for %d positions", len(positions), len(ps))
			}
			for i, m := range positions {
				if m != ps[i].line {
					t.Fatalf("verdict %d is for %q, the set's position %d is %q", i, m, i+1, ps[i].line)
				}
				best := Invalid
				for _, o := range outcomes[i] {
					best = max(best, o)
				}
				if best != sign(ps[i].score) {
					t.Fatalf("%s: best verdict %v is %d, the score %d", m, outcomes[i], best, ps[i].score)
				}
			}
			var sample []int
			if set.step > 0 {
				for i := 0; i < len(positions); i += set.step {
					sample = append(sample, i)
				}
			} else {
				sample = deepest(positions, 2)
			}
			for _, i := range sample {
				p := ps[i]
				if got := s.OutcomeMoves(p.state); got != outcomes[i] {
					t.Errorf("%s: OutcomeMoves = %v, shipped %v", p.line, got, outcomes[i])
				}
				if set.step == 0 {
					if got := s.Solve(p.state); got != p.score {
						t.Errorf("%s: Solve = %d, want %d", p.line, got, p.score)
					}
				}
			}
		})
	}
}

// deepest returns the indexes of the n positions with the most moves (the
// first of equals).
func deepest(positions []string, n int) []int {
	var out []int
	for len(out) < n && len(out) < len(positions) {
		best := -1
		for i, m := range positions {
			taken := false
			for _, j := range out {
				taken = taken || j == i
			}
			if !taken && (best < 0 || len(m) > len(positions[best])) {
				best = i
			}
		}
		out = append(out, best)
	}
	return out
}
