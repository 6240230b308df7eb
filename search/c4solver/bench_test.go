package c4solver

import (
	"flag"
	"testing"
	"time"

	"tabula/internal/cputime"
)

// benchSet solves the first limit positions of a benchmark set (all when
// limit is 0) once per iteration, with a table emptied before each pass, and
// reports positions/s and nodes/s: exactly (Solve), only the result
// (Outcome), or the result of every move (OutcomeMoves, what the arena's
// verdicts hold).
// benchTableLog2 sizes the benchmarks' table: go test -bench X -args -tt=25.
var benchTableLog2 = flag.Int("tt", DefaultTableLog2, "log2 of the benchmarks' solver table entries")

type benchMode int

const (
	exact benchMode = iota
	weak
	weakMoves
)

func benchSet(b *testing.B, name string, limit int, m benchMode) {
	ps := loadSet(b, name)
	if limit > 0 && limit < len(ps) {
		ps = ps[:limit]
	}
	s, err := New(*benchTableLog2)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var nodes uint64
	positions := 0
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		s.Reset()
		b.StartTimer()
		start := cputime.Process()
		for _, p := range ps {
			switch m {
			case weak:
				if got := s.Outcome(p.state); got != sign(p.score) {
					b.Fatalf("%s: Outcome = %d, want %d", p.line, got, sign(p.score))
				}
			case weakMoves:
				outs := s.OutcomeMoves(p.state)
				got := Invalid
				for _, o := range outs {
					got = max(got, o)
				}
				if got != sign(p.score) {
					b.Fatalf("%s: best of OutcomeMoves %v = %d, want %d", p.line, outs, got, sign(p.score))
				}
			default:
				if got := s.Solve(p.state); got != p.score {
					b.Fatalf("%s: Solve = %d, want %d", p.line, got, p.score)
				}
			}
		}
		cpu += cputime.Process() - start
		nodes += s.Nodes()
		positions += len(ps)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(positions)/sec, "positions/s")
	b.ReportMetric(float64(nodes)/sec, "nodes/s")
	b.ReportMetric(float64(nodes)/float64(positions), "nodes/position")
	// CPU time of the process, not wall time: on a shared machine the
	// wall time per position says more about the other work than this.
	b.ReportMetric(cpu.Seconds()/float64(positions), "cpu-s/position")
}

func BenchmarkL3R1(b *testing.B) { benchSet(b, "Test_L3_R1", 0, exact) }
func BenchmarkL2R1(b *testing.B) { benchSet(b, "Test_L2_R1", 0, exact) }
func BenchmarkL2R2(b *testing.B) { benchSet(b, "Test_L2_R2", 0, exact) }
func BenchmarkL1R1(b *testing.B) { benchSet(b, "Test_L1_R1", 0, exact) }

// The harder sets only on a prefix: about 0.2 s (L1_R2) and several
// seconds (L1_R3) a position for Pons' C++ solver.
func BenchmarkL1R2First20(b *testing.B) { benchSet(b, "Test_L1_R2", 20, exact) }
func BenchmarkL1R3First3(b *testing.B)  { benchSet(b, "Test_L1_R3", 3, exact) }

// BenchmarkL2R2First200 is a quicker measure of the typical middle game.
func BenchmarkL2R2First200(b *testing.B) { benchSet(b, "Test_L2_R2", 200, exact) }

// The weak solve (Outcome) on the same prefixes of the harder sets.
func BenchmarkOutcomeL1R2First20(b *testing.B) { benchSet(b, "Test_L1_R2", 20, weak) }
func BenchmarkOutcomeL1R3First3(b *testing.B)  { benchSet(b, "Test_L1_R3", 3, weak) }

// OutcomeMoves, all seven columns, on the first Begin-Hard positions: the
// work of one position of the arena's verdicts.
func BenchmarkOutcomeMovesL1R3First2(b *testing.B) { benchSet(b, "Test_L1_R3", 2, weakMoves) }

// Exact and weak solves of the first five Begin-Hard positions.
func BenchmarkL1R3First5(b *testing.B)        { benchSet(b, "Test_L1_R3", 5, exact) }
func BenchmarkOutcomeL1R3First5(b *testing.B) { benchSet(b, "Test_L1_R3", 5, weak) }
