package search

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"tabula/games/chess"
	"tabula/internal/cputime"
)

// BenchmarkLazySMPTimeToDepth searches each benchmark position to a fixed
// depth from an empty table with every feature on, with 1 and 2 threads,
// and reports the wall time and the process CPU time per position (the CPU
// time counts both threads), the main search's nodes and the nodes of all
// threads. Depth 9 by default; TABULA_SMP_DEPTH=N sets another. On a
// shared machine the wall times depend on the other load: compare runs made
// together.
//
//	go test ./search -run XX -bench LazySMPTimeToDepth -benchtime 3x
func BenchmarkLazySMPTimeToDepth(b *testing.B) {
	depth := 9
	if v, err := strconv.Atoi(os.Getenv("TABULA_SMP_DEPTH")); err == nil && v > 0 {
		depth = v
	}
	states := make([]*chess.State, len(benchPositions))
	for i, fen := range benchPositions {
		states[i] = chessState(b, fen)
	}
	for _, threads := range []int{1, 2} {
		b.Run("threads="+strconv.Itoa(threads)+"/depth="+strconv.Itoa(depth), func(b *testing.B) {
			cfg := AllFeatures()
			cfg.Depth, cfg.TableBits, cfg.Threads = depth, 20, threads
			sr, err := New(chess.Game{}, cfg)
			if err != nil {
				b.Fatal(err)
			}
			var wall, cpu time.Duration
			var nodes int64
			for b.Loop() {
				for _, s := range states {
					sr.Reset()
					c0, t0 := cputime.Process(), time.Now()
					res, err := sr.Search(context.Background(), s)
					if err != nil {
						b.Fatal(err)
					}
					wall += time.Since(t0)
					cpu += cputime.Process() - c0
					nodes += res.Nodes
					if res.Depth != depth {
						b.Fatalf("depth %d, want %d", res.Depth, depth)
					}
				}
			}
			n := float64(b.N * len(states))
			b.ReportMetric(float64(wall.Microseconds())/1000/n, "wall-ms/pos")
			b.ReportMetric(float64(cpu.Microseconds())/1000/n, "cpu-ms/pos")
			b.ReportMetric(float64(nodes)/n, "nodes/pos")
		})
	}
}
