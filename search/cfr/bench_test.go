package cfr

import (
	"testing"

	"tabula/games/poker"
)

// BenchmarkLeducIteration measures CFR+ iterations on Leduc hold'em (each
// one walk of the whole tree per player) and the tree nodes visited per
// second.
func BenchmarkLeducIteration(b *testing.B) {
	s, err := New(poker.Leduc(), Config{Plus: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	s.Run(b.N)
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "iters/s")
	b.ReportMetric(float64(2*b.N*s.NumNodes())/sec, "nodes/s")
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
