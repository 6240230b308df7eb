package chess

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFeaturesReproduceEvaluate checks that the linear form (offset plus
// terms times features) equals Evaluate on positions from random games, for
// the default weights and for weights with every term changed, so that a
// feature counted wrongly, or with the wrong sign or phase, fails.
func TestFeaturesReproduceEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	other := DefaultWeights.Terms()
	for i := range other {
		other[i] = float64(rng.IntN(200) - 50)
	}
	alt, err := DefaultWeights.WithTerms(other)
	if err != nil {
		t.Fatal(err)
	}
	f := make([]float64, NumTerms)
	checked := 0
	for game := 0; game < 40; game++ {
		s := Game{}.NewInitialState().(*State)
		var buf []int
		for ply := 0; ply < 200 && !s.IsTerminal(); ply++ {
			for _, w := range []*Weights{&DefaultWeights, &alt} {
				off := s.Features(w, f)
				lin := off
				for i, x := range w.Terms() {
					lin += x * f[i]
				}
				if got := float64(s.pos.Evaluate(w)); math.Abs(got-lin) > 1 {
					t.Fatalf("%s: Evaluate = %v, linear form = %.2f", s.pos.FEN(), got, lin)
				}
				checked++
			}
			buf = s.LegalActions(buf)
			s.ApplyAction(buf[rng.IntN(len(buf))])
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d positions checked", checked)
	}
}

func TestTermsRoundTrip(t *testing.T) {
	if n := len(TermNames()); n != NumTerms {
		t.Fatalf("%d names for %d terms", n, NumTerms)
	}
	w, err := DefaultWeights.WithTerms(DefaultWeights.Terms())
	if err != nil {
		t.Fatal(err)
	}
	if w != DefaultWeights {
		t.Error("WithTerms(Terms()) changed the weights")
	}
	if _, err := DefaultWeights.WithTerms(make([]float64, 3)); err == nil {
		t.Error("WithTerms of 3 terms: no error")
	}
}
