package cfr

import (
	"os"
	"testing"
	"time"

	"tabula/games"
	"tabula/games/poker"
	"tabula/internal/cputime"
)

// TestCurve prints exploitability (chips per hand) against iterations and
// CPU time for CFR and CFR+ on Kuhn and Leduc, the figures of
// docs/benchmarks.md. It runs only with TABULA_CFR_CURVE=1:
//
//	TABULA_CFR_CURVE=1 go test ./search/cfr -run Curve -v
func TestCurve(t *testing.T) {
	if os.Getenv("TABULA_CFR_CURVE") == "" {
		t.Skip("set TABULA_CFR_CURVE=1 to print the convergence curves")
	}
	for _, g := range []*poker.Game{poker.Kuhn(), poker.Leduc()} {
		for _, plus := range []bool{false, true} {
			curve(t, g, plus)
		}
	}
}

func curve(t *testing.T, g *poker.Game, plus bool) {
	s, err := New(games.Game(g), Config{Plus: plus})
	if err != nil {
		t.Fatal(err)
	}
	var cpu, wall time.Duration
	for _, n := range []int{10, 100, 1000, 10000} {
		c0, w0 := cputime.Process(), time.Now()
		s.Run(n - s.Iterations())
		cpu += cputime.Process() - c0
		wall += time.Since(w0)
		t.Logf("%s plus=%v iters %6d cpu %8.3fs wall %8.3fs exploitability %.3e chips value %.6f",
			g.Name(), plus, n, cpu.Seconds(), wall.Seconds(), s.Exploitability()*g.MaxWin(), s.Value()*g.MaxWin())
	}
}
