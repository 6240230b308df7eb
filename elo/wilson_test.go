package elo

import (
	"math"
	"testing"
)

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		// Values of the closed form worked out by hand.
		{81, 263, 0.2553, 0.3662},
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
		{150, 300, 0.4438, 0.5562},
	} {
		lo, hi := Wilson(tc.k, tc.n, 1.96)
		if math.Abs(lo-tc.lo) > 1e-4 || math.Abs(hi-tc.hi) > 1e-4 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
	if lo, hi := Wilson(0, 0, 1.96); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = [%v, %v], want [0, 1]", lo, hi)
	}
}
