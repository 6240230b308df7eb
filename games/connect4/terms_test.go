package connect4

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFeaturesReproduceEvaluate checks that the hand weights times the
// features, squashed as Evaluate squashes its sum, give Evaluate's value on
// positions from random games.
func TestFeaturesReproduceEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := Game{}
	var f [NumFeatures]float64
	var buf []int
	sums := 0
	for range 300 {
		s := g.NewInitialState()
		for !s.IsTerminal() {
			want := g.Evaluate(s)
			got, decided := s.(*State).Features(&f)
			if !decided {
				var x float64
				for i, w := range HandWeights {
					x += w * f[i]
				}
				got = squashMax * x / (math.Abs(x) + squashScale)
				sums++
			}
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("%s: from the features %v, Evaluate %v (features %v)", s, got, want, f)
			}
			tuned := Evaluator{W: &HandWeights}.Evaluate(s)
			if !(tuned > -1 && tuned < 1) || (tuned > 0) != (want > 0) {
				t.Fatalf("%s: Evaluator %v, Evaluate %v: want the same sign, inside (-1, 1)", s, tuned, want)
			}
			buf = s.LegalActions(buf)
			s.ApplyAction(buf[rng.IntN(len(buf))])
		}
	}
	if sums < 1000 {
		t.Fatalf("only %d undecided positions", sums)
	}
}
