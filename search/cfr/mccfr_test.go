package cfr

import (
	"testing"

	"tabula/games/poker"
)

// TestExternalSampling checks that external-sampling MCCFR converges: with
// a fixed seed its average strategy's exploitability falls below a bound
// after a fixed number of iterations, on Kuhn and on Leduc, and falls as the
// iterations grow. The bounds leave a margin over what the seeds give (see
// the log) yet are far below uniform play's exploitability (Kuhn 0.46,
// Leduc 2.37 chips), so a broken update fails them.
func TestExternalSampling(t *testing.T) {
	for _, tc := range []struct {
		g     *poker.Game
		early int
		iters int
		bound float64 // chips
	}{
		{poker.Kuhn(), 1000, 20000, 0.015},
		{poker.Leduc(), 1000, 100000, 0.06},
	} {
		s, err := New(tc.g, Config{ExternalSampling: true, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		m := tc.g.MaxWin()
		u := s.Exploitability() * m
		s.Run(tc.early)
		e1 := s.Exploitability() * m
		s.Run(tc.iters - tc.early)
		e2 := s.Exploitability() * m
		t.Logf("%s: exploitability %.4f chips uniform, %.4f after %d iterations, %.5f after %d (%d nodes visited, %.0f a iteration, tree %d)",
			tc.g.Name(), u, e1, tc.early, e2, tc.iters, s.Visits(), float64(s.Visits())/float64(tc.iters), s.NumNodes())
		if e2 > tc.bound || e2 >= e1 || e1 >= u {
			t.Errorf("%s: exploitability %.4f uniform, %.4f after %d, %.5f after %d iterations; want falling, below %g", tc.g.Name(), u, e1, tc.early, e2, tc.iters, tc.bound)
		}
	}
	if _, err := New(poker.Kuhn(), Config{ExternalSampling: true, Plus: true}); err == nil {
		t.Error("Plus with ExternalSampling accepted")
	}
}
