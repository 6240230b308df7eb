package othello

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkPerft runs perft from the start position; leaves/s counts perft
// leaves (the last ply is counted in bulk from the move list), nodes/s the
// positions whose moves were generated.
func BenchmarkPerft(b *testing.B) {
	for _, tc := range []struct {
		spec  string
		depth int
	}{{"othello", 8}, {"othello", 10}, {"othello", 11}, {"othello:size=6", 8}, {"othello:size=6", 10}} {
		b.Run(fmt.Sprintf("%s/depth=%d", tc.spec, tc.depth), func(b *testing.B) {
			want := readPerft(b, map[bool]string{true: "perft_8x8.txt", false: "perft_6x6.txt"}[tc.spec == "othello"])
			g := mustGame(b, tc.spec)
			start := *g.NewInitialState().(*State)
			buf := perftBuffer(tc.depth)
			nodes := perftNodes(start, tc.depth, buf) // counted once, untimed
			b.ResetTimer()
			b.ReportAllocs()
			for b.Loop() {
				if n := perft(start, tc.depth, buf); n != want[tc.depth] {
					b.Fatalf("perft(%d) = %d, want %d", tc.depth, n, want[tc.depth])
				}
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(want[tc.depth])*float64(b.N)/sec, "leaves/s")
			b.ReportMetric(float64(nodes)*float64(b.N)/sec, "nodes/s")
		})
	}
}

// perftNodes counts the interior positions perft generates moves for.
func perftNodes(s State, depth int, buf []int) uint64 {
	if depth <= 1 {
		return 1
	}
	legal := s.LegalActions(buf[:0])
	n := uint64(1)
	for i := range legal {
		c := s
		c.ApplyAction(legal[i])
		n += perftNodes(c, depth-1, buf[len(legal):])
	}
	return n
}

// BenchmarkPlayout plays uniformly random games to the end through the
// State methods search uses.
func BenchmarkPlayout(b *testing.B) {
	for _, spec := range []string{"othello", "othello:size=6"} {
		b.Run(spec, func(b *testing.B) {
			g := mustGame(b, spec)
			start := g.NewInitialState().(*State)
			rng := rand.New(rand.NewPCG(1, 2))
			buf := make([]int, 0, 64)
			b.ReportAllocs()
			var moves int
			for b.Loop() {
				s := *start
				for {
					buf = s.LegalActions(buf)
					if len(buf) == 0 {
						break
					}
					s.ApplyAction(buf[rng.IntN(len(buf))])
					moves++
				}
				_ = s.Returns()
				_ = s.Hash()
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(b.N)/sec, "games/s")
			b.ReportMetric(float64(moves)/sec, "moves/s")
		})
	}
}

// BenchmarkEvaluate measures the heuristic on midgame positions.
func BenchmarkEvaluate(b *testing.B) {
	g := mustGame(b, "othello")
	rng := rand.New(rand.NewPCG(3, 4))
	var pos []*State
	for len(pos) < 64 {
		s := g.NewInitialState().(*State)
		for i := 0; i < 30 && !s.IsTerminal(); i++ {
			l := s.LegalActions(nil)
			s.ApplyAction(l[rng.IntN(len(l))])
		}
		if !s.IsTerminal() {
			pos = append(pos, s)
		}
	}
	b.ReportAllocs()
	var sum float64
	i := 0
	for b.Loop() {
		sum += g.Evaluate(pos[i&63])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
	_ = sum
}

// randomPositions plays n positions of g from random games, k random moves
// in, for k from 0 to 59 round and round (some of them over).
func randomPositions(g *Game, n int, rng *rand.Rand) []*State {
	var pos []*State
	for i := 0; len(pos) < n; i++ {
		s := g.NewInitialState().(*State)
		for range i % 60 {
			l := s.LegalActions(nil)
			if len(l) == 0 {
				break
			}
			s.ApplyAction(l[rng.IntN(len(l))])
		}
		pos = append(pos, s)
	}
	return pos
}

// BenchmarkObservation encodes positions of 8x8 games for the network,
// 4,096 of them in turn, as self-play's leaves come (a few dozen repeated
// let the branch predictor learn their bits): 119 ns on the Zen 5 machine,
// against 393 ns with a branch for each value.
func BenchmarkObservation(b *testing.B) {
	g := mustGame(b, "othello")
	pos := randomPositions(g, 4096, rand.New(rand.NewPCG(5, 6))) // more than a branch predictor learns
	dst := make([]float32, 3*64)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		pos[i&4095].Observation(dst)
		i++
	}
}
