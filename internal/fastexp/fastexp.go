// Package fastexp is the exponential of the hot paths: float32, of
// non-positive arguments (a softmax's logits less their maximum).
package fastexp

import "math"

// NonPos returns e^x for x <= 0 in float32, to within 5e-6 relative
// (3e-7 for x above -7), and 0 below -87.3, where float32 runs out of
// normal numbers. MCTS's Gumbel selection takes one exponential per
// visited child on every descent below the root (math.Exp in float64 was
// a fifth of its time), the evaluator's softmax one per legal move.
func NonPos(x float32) float32 {
	if !(x >= -87.3) {
		return 0
	}
	// e^x = 2^k e^f with k the integer nearest t = x log2(e): k =
	// ceil(t - 1/2), as the conversion truncates towards zero and
	// t - 1/2 < 0, and |f| = |t - k| ln 2 <= ln(2)/2.
	t := x * math.Log2E
	k := int32(t - 0.5)
	f := (t - float32(k)) * math.Ln2
	// e^f by its Taylor series to the 6th power: the error is below
	// (ln(2)/2)^7 / 7! < 1.2e-7.
	p := 1 + f*(1+f*(1.0/2+f*(1.0/6+f*(1.0/24+f*(1.0/120+f*(1.0/720))))))
	return p * math.Float32frombits(uint32(k+127)<<23)
}
