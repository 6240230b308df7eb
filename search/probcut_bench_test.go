package search

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkOthelloProbCut searches 20 Othello middle-game positions (20..39
// random plies from the start) to depth 7 without ProbCut, with it and with
// Multi-ProbCut (the shipped fits, t = 1.5), and reports the nodes per
// search and how often the move differs from the plain search's.
func BenchmarkOthelloProbCut(b *testing.B) {
	g := newGame(b, "othello")
	m, err := LoadProbCut(filepath.Join("..", "data", "othello", "probcut.json"))
	if err != nil {
		b.Fatal(err)
	}
	pos := randomPositions(b, g, 20, 20, 40, 21)
	cfg := Config{Depth: 7, TableBits: 16, Ordering: true, Killers: true, History: true, PVS: true}
	plainMoves := make([]int, len(pos))
	for i, s := range pos {
		plainMoves[i] = searchOnce(b, g, cfg, s).Move
	}
	for _, v := range []struct {
		name string
		pc   ProbCut
	}{{"plain", ProbCut{}}, {"probcut", m.ProbCut}, {"mpc", m.MPC}} {
		b.Run(v.name, func(b *testing.B) {
			var nodes, differ int64
			for b.Loop() {
				for i, s := range pos {
					sr, err := New(g, cfg)
					if err != nil {
						b.Fatal(err)
					}
					if err := sr.SetProbCut(v.pc, 1.5); err != nil {
						b.Fatal(err)
					}
					res, err := sr.Search(context.Background(), s)
					if err != nil {
						b.Fatal(err)
					}
					nodes += res.Nodes
					if res.Move != plainMoves[i] {
						differ++
					}
				}
			}
			n := float64(b.N) * float64(len(pos))
			b.ReportMetric(float64(nodes)/n, "nodes/search")
			b.ReportMetric(float64(differ)/n, "moves-differ/search")
		})
	}
}
