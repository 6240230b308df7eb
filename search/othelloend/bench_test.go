package othelloend

import (
	"fmt"
	"testing"
	"time"
)

// benchFFO solves each position of an FFO file once per iteration and
// reports the time per position and the nodes searched per second.
func benchFFO(b *testing.B, file string, first int) {
	positions := readFFO(b, file, first)
	s := newSolver(b, 20)
	for _, q := range positions {
		b.Run(fmt.Sprintf("ffo%02d-e%d", q.id, q.empties), func(b *testing.B) {
			var nodes uint64
			var total time.Duration
			b.ReportAllocs()
			for b.Loop() {
				d, n := checkFFO(b, s, q)
				nodes += n
				total += d
			}
			b.ReportMetric(float64(nodes)/total.Seconds(), "nodes/s")
			b.ReportMetric(total.Seconds()/float64(b.N), "s/pos")
		})
	}
}

func BenchmarkFFO1to19(b *testing.B)  { benchFFO(b, "fforum-1-19.obf", 1) }
func BenchmarkFFO20to39(b *testing.B) { benchFFO(b, "fforum-20-39.obf", 20) }
