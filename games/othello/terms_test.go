package othello

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFeaturesReproduceEvaluate checks that an Evaluator with the hand
// weights equals Evaluate on positions from random games, on two board sizes.
func TestFeaturesReproduceEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, size := range []int{6, 8} {
		g, err := New(size)
		if err != nil {
			t.Fatal(err)
		}
		var buf []int
		n := 0
		for range 60 {
			s := g.NewInitialState()
			for !s.IsTerminal() {
				want := g.Evaluate(s)
				got := Evaluator{G: g, W: &HandWeights}.Evaluate(s)
				if math.Abs(got-want) > 1e-12 {
					t.Fatalf("size %d: %s: Evaluator %v, Evaluate %v", size, s, got, want)
				}
				n++
				buf = s.LegalActions(buf)
				s.ApplyAction(buf[rng.IntN(len(buf))])
			}
		}
		if n < 1000 {
			t.Fatalf("size %d: only %d positions", size, n)
		}
	}
}
