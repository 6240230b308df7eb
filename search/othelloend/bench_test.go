package othelloend

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// benchFFO solves each position of an FFO file once per iteration and
// reports the time per position and the nodes searched per second. It
// skips positions with more empties than $OTHELLOEND_MAX_EMPTIES (default
// 22: FFO #38 with 24 empties takes about a minute, #39 with 26 longer).
func benchFFO(b *testing.B, file string, first int) {
	maxEmpties := 22
	if v := os.Getenv("OTHELLOEND_MAX_EMPTIES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("OTHELLOEND_MAX_EMPTIES=%q: %v", v, err)
		}
		maxEmpties = n
	}
	positions := readFFO(b, file, first)
	s := newSolver(b, 20)
	for _, q := range positions {
		if q.empties > maxEmpties {
			continue
		}
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
