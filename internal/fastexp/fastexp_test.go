package fastexp

import (
	"math"
	"testing"
)

// TestNonPos checks the exponential against math.Exp over the
// whole range it is used on (x <= 0).
func TestNonPos(t *testing.T) {
	if got := NonPos(0); got != 1 {
		t.Errorf("NonPos(0) = %v, want 1", got)
	}
	for _, x := range []float32{-87.4, -100, -1e30, float32(math.Inf(-1)), float32(math.NaN())} {
		if got := NonPos(x); got != 0 {
			t.Errorf("NonPos(%v) = %v, want 0", x, got)
		}
	}
	worst, at := 0.0, float32(0)
	for i := 0; i <= 1_000_000; i++ {
		x := -float32(i) * 87.3 / 1_000_000
		want := math.Exp(float64(x))
		if r := math.Abs(float64(NonPos(x))-want) / want; r > worst {
			worst, at = r, x
		}
	}
	// float32 rounding of x log2(e) costs up to ~3e-6 of relative error at
	// x = -87; near 0 the error is that of float32 itself.
	if worst > 5e-6 {
		t.Errorf("NonPos: relative error %.3g at %v, want <= 5e-6", worst, at)
	}
	for _, x := range []float32{-1e-3, -0.1, -0.5, -1, -2.5, -7} {
		want := math.Exp(float64(x))
		if r := math.Abs(float64(NonPos(x))-want) / want; r > 3e-7 {
			t.Errorf("NonPos(%v): relative error %.3g, want <= 3e-7", x, r)
		}
	}
}
