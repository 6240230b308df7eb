package search

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"tabula/games/chess"
	"tabula/internal/cputime"
)

// benchPositions are the middlegame positions of the engine benchmarks:
// Kiwipete and positions 4, 5 and 6 of the Chess Programming Wiki's perft
// page, and a Queen's Gambit Declined.
var benchPositions = []string{
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	"r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
}

// BenchmarkChessTimeToDepth searches each benchmark position to a fixed
// depth from an empty table, with every feature on and then with each
// switch off in turn, and (from depth 9, where they act) with singular
// extensions on, and reports the time and nodes per position and the nodes
// per second. Times are the searching thread's CPU time, so that
// other load on a shared machine does not count. Depth 7 by default,
// without the slow no-ordering variant; TABULA_LONG=1 adds it and depth 9.
//
//	go test ./search -run XX -bench ChessTimeToDepth -benchtime 1x
func BenchmarkChessTimeToDepth(b *testing.B) {
	depths := []int{7}
	if longTests() {
		depths = append(depths, 9)
	}
	g := chess.Game{}
	states := make([]*chess.State, len(benchPositions))
	for i, fen := range benchPositions {
		states[i] = chessState(b, fen)
	}
	variants := append([]struct {
		name string
		off  func(*Config)
	}{{"all", func(*Config) {}}}, switches...)
	variants = append(variants, struct {
		name string
		off  func(*Config)
	}{"with-singex", func(c *Config) { c.SingularExtensions = true }})
	for _, depth := range depths {
		for _, v := range variants {
			if v.name == "ordering" && !longTests() {
				continue
			}
			if v.name == "with-singex" && depth <= singularMinDepth {
				continue // singular extensions act from depth singularMinDepth+1
			}
			name := v.name
			if name != "all" && name != "with-singex" {
				name = "no-" + name
			}
			b.Run(name+"/depth="+strconv.Itoa(depth), func(b *testing.B) {
				runtime.LockOSThread() // for the thread's CPU time
				defer runtime.UnlockOSThread()
				cfg := AllFeatures()
				v.off(&cfg)
				cfg.Depth, cfg.TableBits = depth, 20
				sr, err := New(g, cfg)
				if err != nil {
					b.Fatal(err)
				}
				var nodes int64
				var elapsed time.Duration
				b.ReportAllocs()
				for b.Loop() {
					for _, s := range states {
						sr.Reset()
						start := cputime.Thread()
						res, err := sr.Search(context.Background(), s)
						if err != nil {
							b.Fatal(err)
						}
						elapsed += cputime.Thread() - start
						nodes += res.Nodes
					}
				}
				n := float64(b.N * len(states))
				b.ReportMetric(float64(elapsed.Microseconds())/1000/n, "cpu-ms/pos")
				b.ReportMetric(float64(nodes)/n, "nodes/pos")
				b.ReportMetric(float64(nodes)/elapsed.Seconds(), "nodes/s")
			})
		}
	}
}

// longTests reports whether TABULA_LONG=1 asks for the long measurements.
func longTests() bool { return os.Getenv("TABULA_LONG") == "1" }
