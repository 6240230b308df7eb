package elo

import (
	"math"
	"testing"
)

// The p-values were computed exactly with rational arithmetic
// (2 * sum_{i<=k} C(n, i) / 2^n).
func TestSignTest(t *testing.T) {
	for _, c := range []struct {
		a, b int
		p    float64
	}{
		{0, 0, 1},
		{0, 1, 1},
		{1, 0, 1},
		{3, 4, 1},
		{10, 10, 1},
		{0, 5, 0.0625},
		{2, 9, 0.0654296875},
		{17, 33, 0.032839137564268484},
		{33, 17, 0.032839137564268484},
		{40, 70, 0.005447429511444482},
		{200, 260, 0.005883922473103979},
	} {
		if got := SignTest(c.a, c.b); math.Abs(got-c.p) > 1e-9*max(1, c.p) {
			t.Errorf("SignTest(%d, %d) = %.12g, want %.12g", c.a, c.b, got, c.p)
		}
	}
	if !math.IsNaN(SignTest(-1, 3)) {
		t.Error("SignTest(-1, 3) is not NaN")
	}
}
