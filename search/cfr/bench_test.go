package cfr

import (
	"testing"
	"time"

	"tabula/games/poker"
	"tabula/internal/cputime"
)

// BenchmarkLeducIteration measures CFR+ iterations on Leduc hold'em (each
// one walk of the whole tree per player) and the tree nodes visited per
// second and per CPU-second (the latter is what to quote on a shared
// machine).
func BenchmarkLeducIteration(b *testing.B) {
	benchIteration(b, Config{Plus: true})
}

// BenchmarkLeducExternalSampling measures external-sampling MCCFR
// iterations on Leduc hold'em (one sampled walk per player each).
func BenchmarkLeducExternalSampling(b *testing.B) {
	benchIteration(b, Config{ExternalSampling: true, Seed: 1})
}

func benchIteration(b *testing.B, cfg Config) {
	s, err := New(poker.Leduc(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	c0 := cputime.Process()
	s.Run(b.N)
	cpu := (cputime.Process() - c0).Seconds()
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "iters/s")
	b.ReportMetric(float64(s.Visits())/sec, "nodes/s")
	b.ReportMetric(float64(s.Visits())/cpu, "nodes/cpu-s")
}

// BenchmarkLeducExploitability measures one exact exploitability (two best
// responses) of Leduc hold'em.
func BenchmarkLeducExploitability(b *testing.B) {
	s, err := New(poker.Leduc(), Config{Plus: true})
	if err != nil {
		b.Fatal(err)
	}
	s.Run(10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = s.Exploitability()
	}
}

// itersToTarget runs CFR+ on Leduc hold'em in steps of step iterations
// until the exploitability is below target chips, and returns the
// iterations and the exploitability then.
func itersToTarget(tb testing.TB, target float64, step, limit int) (int, float64) {
	g := poker.Leduc()
	s, err := New(g, Config{Plus: true})
	if err != nil {
		tb.Fatal(err)
	}
	for s.Iterations() < limit {
		s.Run(step)
		if e := s.Exploitability() * g.MaxWin(); e < target {
			return s.Iterations(), e
		}
	}
	return s.Iterations(), s.Exploitability() * g.MaxWin()
}

// TestLeducGoal checks the goal's first half, independent of the machine:
// CFR+ brings Leduc hold'em below 1e-4 chips a hand of exploitability
// within 3000 iterations (checked every 100, it takes 1800; the CPU time is
// BenchmarkLeducGoal's).
func TestLeducGoal(t *testing.T) {
	n, e := itersToTarget(t, 1e-4, 100, 3000)
	t.Logf("CFR+ on Leduc: exploitability %.3g chips after %d iterations", e, n)
	if e >= 1e-4 {
		t.Errorf("CFR+ on Leduc: exploitability %.3g chips after %d iterations, want < 1e-4", e, n)
	}
}

// BenchmarkLeducGoal measures the CPU time CFR+ takes to bring Leduc
// hold'em below 1e-4 chips of exploitability, checking every 100
// iterations (the checks, two exact best responses each, included).
func BenchmarkLeducGoal(b *testing.B) {
	var cpu time.Duration
	n := 0
	for i := 0; i < b.N; i++ {
		c0 := cputime.Process()
		n, _ = itersToTarget(b, 1e-4, 100, 100000)
		cpu += cputime.Process() - c0
	}
	b.ReportMetric(float64(n), "iters")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}
