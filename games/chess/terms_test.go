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

// TestRookFilesAndKingAttack checks the two fixed terms BasicWeights leave
// out: a rook on an open or half-open file scores more, and a king whose
// zone two enemy pieces attack scores less (one attacker costs nothing).
func TestRookFilesAndKingAttack(t *testing.T) {
	eval := func(fen string, w *Weights) int {
		p, err := ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		return p.Evaluate(w)
	}
	for _, c := range []struct {
		name, fen string
		sign      int // of Evaluate(DefaultWeights) - Evaluate(BasicWeights)
	}{
		{"rook on an open file", "4k3/pp6/8/8/8/8/PP6/3RK3 w - - 0 1", +1},
		{"rook on a half-open file", "4k3/3p4/8/8/8/8/PP6/3RK3 w - - 0 1", +1},
		{"one piece on the black king's zone", "6k1/5ppp/6Q1/8/8/8/5PPP/6RK b - - 0 1", 0},
		{"queen and knight on the black king's zone", "6k1/5ppp/6Q1/5N2/8/8/5PPP/6RK b - - 0 1", -1},
	} {
		d := eval(c.fen, &DefaultWeights) - eval(c.fen, &BasicWeights)
		t.Logf("%s: %+d centipawns", c.name, d)
		if (d > 0) != (c.sign > 0) || (d < 0) != (c.sign < 0) {
			t.Errorf("%s (%s): default minus basic weights = %d, want sign %d", c.name, c.fen, d, c.sign)
		}
	}
	if got := kingDanger(10, 500); got != 20 {
		t.Errorf("kingDanger(10) = %d, want 20", got)
	}
	if got := kingDanger(100, 500); got != 500 {
		t.Errorf("kingDanger(100) = %d, want the cap 500", got)
	}
}
