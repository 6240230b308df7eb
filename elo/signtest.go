package elo

import "math"

// SignTest returns the exact two-sided p-value of the sign test on a and b
// discordant pairs (McNemar's exact test: of the cases where two players
// disagree, a went one way and b the other), under the null hypothesis
// that either way is equally likely: twice the probability of a split at
// least as uneven as min(a, b) against max(a, b) in a+b fair coin tosses,
// capped at 1. No discordant pair gives 1.
func SignTest(a, b int) float64 {
	if a < 0 || b < 0 {
		return math.NaN()
	}
	n, k := a+b, min(a, b)
	if n == 0 || 2*k == n {
		return 1
	}
	// P(X <= k) for X ~ Binomial(n, 1/2), summed in log space so that
	// large n neither overflows nor underflows term by term.
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	logHalfN := float64(n) * math.Log(0.5)
	tail := 0.0
	for i := 0; i <= k; i++ {
		tail += math.Exp(lg(n) - lg(i) - lg(n-i) + logHalfN)
	}
	return min(1, 2*tail)
}
