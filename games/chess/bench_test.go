package chess

import (
	"testing"
	"time"
)

// benchPerft runs perft of depth from fen once per iteration and reports
// leaf nodes per second.
func benchPerft(b *testing.B, fen string, depth int, bulk bool) {
	p := MustParseFEN(fen)
	var nodes uint64
	start := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		nodes += Perft(&p, depth, bulk)
	}
	b.ReportMetric(float64(nodes)/time.Since(start).Seconds(), "nodes/s")
}

// BenchmarkPerft measures move generation and Make. "bulk" counts the last
// ply from the generated list, as Stockfish's perft does; "full" makes every
// leaf move. Deeper runs: TABULA_LONG=1 go test -run TestPerft.
func BenchmarkPerft(b *testing.B) {
	for _, c := range []struct {
		name  string
		fen   string
		depth int
	}{
		{"start-5", StartFEN, 5},
		{"kiwipete-4", perftCases[1].fen, 4},
	} {
		b.Run(c.name+"-bulk", func(b *testing.B) { benchPerft(b, c.fen, c.depth, true) })
		b.Run(c.name+"-full", func(b *testing.B) { benchPerft(b, c.fen, c.depth, false) })
	}
}

// BenchmarkPerftDeep is start position depth 6 and Kiwipete depth 5, with
// bulk counting, the figures compared with Stockfish's `go perft`.
func BenchmarkPerftDeep(b *testing.B) {
	if !long() {
		b.Skip("set TABULA_LONG=1")
	}
	b.Run("start-6", func(b *testing.B) { benchPerft(b, StartFEN, 6, true) })
	b.Run("kiwipete-5", func(b *testing.B) { benchPerft(b, perftCases[1].fen, 5, true) })
}

func BenchmarkLegalMoves(b *testing.B) {
	p := MustParseFEN(perftCases[1].fen)
	var ml MoveList
	b.ReportAllocs()
	for b.Loop() {
		p.LegalMoves(&ml)
	}
}

// BenchmarkApplyAction plays random-looking games through the games API
// (ApplyAction with its status update, LegalActions), as search does.
func BenchmarkApplyAction(b *testing.B) {
	g := Game{}
	s := g.NewInitialState().(*State)
	buf := make([]int, 0, 256)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if s.IsTerminal() || s.MoveNumber() > 200 {
			s = g.NewInitialState().(*State)
		}
		buf = s.LegalActions(buf)
		s.ApplyAction(buf[i%len(buf)])
		i += 7
	}
}
