package c4solver

import "testing"

// benchSet solves the first limit positions of a benchmark set (all when
// limit is 0) once per iteration, with a table emptied before each pass, and
// reports positions/s and nodes/s: exactly (Solve), or with weak only the
// result (Outcome).
func benchSet(b *testing.B, name string, limit int, weak bool) {
	ps := loadSet(b, name)
	if limit > 0 && limit < len(ps) {
		ps = ps[:limit]
	}
	s := newSolver(b)
	b.ReportAllocs()
	b.ResetTimer()
	var nodes uint64
	positions := 0
	for b.Loop() {
		b.StopTimer()
		s.Reset()
		b.StartTimer()
		for _, p := range ps {
			if weak {
				if got := s.Outcome(p.state); got != sign(p.score) {
					b.Fatalf("%s: Outcome = %d, want %d", p.line, got, sign(p.score))
				}
			} else if got := s.Solve(p.state); got != p.score {
				b.Fatalf("%s: Solve = %d, want %d", p.line, got, p.score)
			}
		}
		nodes += s.Nodes()
		positions += len(ps)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(positions)/sec, "positions/s")
	b.ReportMetric(float64(nodes)/sec, "nodes/s")
	b.ReportMetric(float64(nodes)/float64(positions), "nodes/position")
}

func BenchmarkL3R1(b *testing.B) { benchSet(b, "Test_L3_R1", 0, false) }
func BenchmarkL2R1(b *testing.B) { benchSet(b, "Test_L2_R1", 0, false) }
func BenchmarkL2R2(b *testing.B) { benchSet(b, "Test_L2_R2", 0, false) }
func BenchmarkL1R1(b *testing.B) { benchSet(b, "Test_L1_R1", 0, false) }

// The harder sets only on a prefix: about 0.2 s (L1_R2) and several
// seconds (L1_R3) a position for Pons' C++ solver.
func BenchmarkL1R2First20(b *testing.B) { benchSet(b, "Test_L1_R2", 20, false) }
func BenchmarkL1R3First3(b *testing.B)  { benchSet(b, "Test_L1_R3", 3, false) }

// BenchmarkL2R2First200 is a quicker measure of the typical middle game.
func BenchmarkL2R2First200(b *testing.B) { benchSet(b, "Test_L2_R2", 200, false) }

// The weak solve (Outcome) on the same prefixes of the harder sets.
func BenchmarkOutcomeL1R2First20(b *testing.B) { benchSet(b, "Test_L1_R2", 20, true) }
func BenchmarkOutcomeL1R3First3(b *testing.B)  { benchSet(b, "Test_L1_R3", 3, true) }
