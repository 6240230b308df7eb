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
// CPU time for CFR, CFR+ and external-sampling MCCFR on Kuhn and Leduc
// (nodes visited per CPU-second in the last column), the figures of
// docs/benchmarks.md. It runs only with TABULA_CFR_CURVE=1:
//
//	TABULA_CFR_CURVE=1 go test ./search/cfr -run Curve -v
func TestCurve(t *testing.T) {
	if os.Getenv("TABULA_CFR_CURVE") == "" {
		t.Skip("set TABULA_CFR_CURVE=1 to print the convergence curves")
	}
	for _, g := range []*poker.Game{poker.Kuhn(), poker.Leduc()} {
		full := []int{10, 100, 1000, 10000}
		curve(t, g, "cfr", Config{}, full)
		curve(t, g, "cfr+", Config{Plus: true}, full)
		curve(t, g, "es-mccfr", Config{ExternalSampling: true, Seed: 1}, []int{100, 1000, 10000, 100000, 1000000})
	}
}

func curve(t *testing.T, g *poker.Game, name string, cfg Config, iters []int) {
	s, err := New(games.Game(g), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var cpu, wall time.Duration
	for _, n := range iters {
		c0, w0 := cputime.Process(), time.Now()
		s.Run(n - s.Iterations())
		cpu += cputime.Process() - c0
		wall += time.Since(w0)
		t.Logf("%s %-8s iters %7d cpu %8.3fs wall %8.3fs exploitability %.3e chips value %.6f nodes/cpu-s %.3g",
			g.Name(), name, n, cpu.Seconds(), wall.Seconds(), s.Exploitability()*g.MaxWin(), s.Value()*g.MaxWin(),
			float64(s.Visits())/cpu.Seconds())
	}
}
