package connect4

import (
	"math/rand/v2"
	"testing"

	"tabula/games"
)

// BenchmarkPerft6 runs perft to depth 6 from the empty board through the
// concrete type (copy-make) and reports nodes/s.
func BenchmarkPerft6(b *testing.B) {
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		nodes += perftNodes(State{}, 6)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// perftNodes counts every node visited by a depth-limited search. The
// state is passed by value, so that the search allocates nothing.
func perftNodes(s State, depth int) uint64 {
	if depth == 0 || s.IsTerminal() {
		return 1
	}
	n := uint64(1)
	for c := 0; c < Width; c++ {
		if s.IsLegal(c) {
			child := s
			child.ApplyAction(c)
			n += perftNodes(child, depth-1)
		}
	}
	return n
}

// BenchmarkRandomPlayout plays random games to the end through the State
// interface methods (LegalActions, ApplyAction, IsTerminal, Returns) and
// reports playouts/s.
func BenchmarkRandomPlayout(b *testing.B) {
	b.ReportAllocs()
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]int, 0, Width)
	var s State
	var sum float64
	n := 0
	for b.Loop() {
		s = State{}
		for !s.IsTerminal() {
			legal := s.LegalActions(buf)
			s.ApplyAction(legal[r.IntN(len(legal))])
		}
		sum += s.Returns()[0]
		n++
	}
	_ = sum
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "playouts/s")
}

// BenchmarkRandomPlayoutInterface is BenchmarkRandomPlayout through the
// games.State interface, as MCTS rollouts call it.
func BenchmarkRandomPlayoutInterface(b *testing.B) {
	b.ReportAllocs()
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]int, 0, Width)
	var cs State
	var s games.State = &cs
	n := 0
	for b.Loop() {
		cs = State{}
		for !s.IsTerminal() {
			legal := s.LegalActions(buf)
			s.ApplyAction(legal[r.IntN(len(legal))])
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "playouts/s")
}

// BenchmarkEvaluate scores positions from random games with the heuristic.
func BenchmarkEvaluate(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var states []games.State
	buf := make([]int, 0, Width)
	for len(states) < 1000 {
		s := NewState()
		for !s.IsTerminal() {
			states = append(states, s.Clone())
			legal := s.LegalActions(buf)
			s.ApplyAction(legal[r.IntN(len(legal))])
		}
	}
	g := Game{}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	var sum float64
	for b.Loop() {
		sum += g.Evaluate(states[n%len(states)])
		n++
	}
	_ = sum
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "evals/s")
}
