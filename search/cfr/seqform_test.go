package cfr

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"tabula/games/poker"
	"tabula/internal/refdata/refdatatest"
)

// leducLPValue is the value of Leduc hold'em to the first player by the
// sequence-form LP of OpenSpiel's leduc_poker, -0.08560642408 chips per
// hand, as the linear-programming test of the noregret library checks it
// (github.com/uoftcprg/noregret, noregret/tests/test_linear_programming.py).
const leducLPValue = -0.08560642408

// TestSequenceFormLP solves Kuhn and Leduc poker by the sequence-form LP
// with GLPK's glpsol and checks the values against the published ones, the
// LP's strategies against our exact best response (an equilibrium is
// unexploitable), and CFR+'s average strategy's value against the LP's.
// glpsol solves Leduc's LP (about 340 sequences a player) in well under a
// second.
func TestSequenceFormLP(t *testing.T) {
	glpsol := refdatatest.Program(t, "glpsol", "glpk-utils")
	for _, tc := range []struct {
		g     *poker.Game
		value float64 // chips
		iters int     // CFR+ iterations
		tol   float64 // |CFR+ value - LP value|, chips
	}{
		{poker.Kuhn(), kuhnValue, 1000, 1e-4},
		{poker.Leduc(), leducLPValue, 300, 2e-3},
	} {
		s, err := New(tc.g, Config{Plus: true})
		if err != nil {
			t.Fatal(err)
		}
		sol, err := s.SolveLP(context.Background(), glpsol)
		if err != nil {
			t.Fatal(err)
		}
		m := tc.g.MaxWin()
		v, v1 := sol.Value*m, sol.Value1*m
		t.Logf("%s: LP value %.10f chips (player 1's LP: %.10f)", tc.g.Name(), v, v1)
		if math.Abs(v-tc.value) > 1e-8 || math.Abs(v+v1) > 1e-8 {
			t.Errorf("%s: LP values %.10f and %.10f chips, want %.10f and its negation", tc.g.Name(), v, v1, tc.value)
		}
		br, err := s.BestResponseTo(sol.Policy)
		if err != nil {
			t.Fatal(err)
		}
		if e := (br[0] + br[1]) / 2 * m; math.Abs(e) > 1e-8 {
			t.Errorf("%s: the LP's strategies are exploitable by %.3g chips (best responses %v)", tc.g.Name(), e, br)
		}
		s.Run(tc.iters)
		if cv := s.Value() * m; math.Abs(cv-v) > tc.tol {
			t.Errorf("%s: CFR+ value after %d iterations %.6f chips, LP %.6f", tc.g.Name(), tc.iters, cv, v)
		}
		// Both CFR's and CFR+'s best responses bracket the LP's value at
		// every iteration count: player 0's best response gains at least
		// the value, player 1's at least its negation, and the average
		// strategy's value is within the sum of the two gains over the
		// equilibrium value.
		for _, plus := range []bool{false, true} {
			c, err := New(tc.g, Config{Plus: plus})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{1, 10, 100, 1000} {
				c.Run(n - c.Iterations())
				br := c.BestResponse()
				cv := c.Value()
				const eps = 1e-9
				if br[0] < sol.Value-eps || -br[1] > sol.Value+eps || math.Abs(cv-sol.Value) > br[0]+br[1]+eps {
					t.Errorf("%s plus=%v after %d: best responses %v, value %v do not bracket the LP's %v", tc.g.Name(), plus, n, br, cv, sol.Value)
				}
			}
			t.Logf("%s plus=%v after 1000 iterations: value %.6f chips, LP %.6f, exploitability %.2e", tc.g.Name(), plus, c.Value()*m, v, c.Exploitability()*m)
		}
	}
}

// TestSequenceFormLPText checks the LP's shape on Kuhn poker: one x per
// sequence of the maximiser (1 + 6 sets * 2 actions), one q per set of the
// minimiser plus the empty one, one f row per minimiser sequence.
func TestSequenceFormLPText(t *testing.T) {
	s, err := New(poker.Kuhn(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	lp, err := s.SequenceFormLP(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{" x12\n", " q6\n", " f12:\n", "q6 free"} {
		if !strings.Contains(lp, want) {
			t.Errorf("LP lacks %q", want)
		}
	}
	for _, absent := range []string{" x13\n", " q7\n", " f13:\n"} {
		if strings.Contains(lp, absent) {
			t.Errorf("LP has %q", absent)
		}
	}
	if _, err := s.SequenceFormLP(2); err == nil {
		t.Error("player 2 accepted")
	}
}

func TestReadGLPKSolutionRejects(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"infeasible": "c Status:     INFEASIBLE (FINAL)\ns bas 1 1 n f 0\nj 1 b 0 0\ne o f\n",
		"undefined":  "c Status:     UNDEFINED\ns bas 1 1 u u 0\nj 1 b 0 0\ne o f\n",
		"garbled":    "c Status:     OPTIMAL\ns bas 1 1 f f 0\nj x b 0 0\n",
		"empty":      "",
	} {
		p := dir + "/" + name
		if err := writeFile(p, text); err != nil {
			t.Fatal(err)
		}
		if _, _, err := readGLPKSolution(p); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func writeFile(p, text string) error { return os.WriteFile(p, []byte(text), 0o644) }
