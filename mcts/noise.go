package mcts

import (
	"math"
	"math/rand/v2"
)

// gamma draws from the Gamma(alpha, 1) distribution (Marsaglia and Tsang's
// method; for alpha < 1 the boost Gamma(alpha+1) * U^(1/alpha)).
func gamma(rng *rand.Rand, alpha float64) float64 {
	if alpha < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return gamma(rng, alpha+1) * math.Pow(u, 1/alpha)
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v
		}
		if u > 0 && math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// dirichlet draws n values from the symmetric Dirichlet(alpha) distribution
// into *buf (reused) and returns them.
func dirichlet(rng *rand.Rand, alpha float64, n int, buf *[]float64) []float64 {
	x := (*buf)[:0]
	var sum float64
	for range n {
		g := gamma(rng, alpha)
		x = append(x, g)
		sum += g
	}
	*buf = x
	if !(sum > 0) {
		// Every draw underflowed (tiny alpha): put all mass on one entry.
		clear(x)
		x[rng.IntN(n)] = 1
		return x
	}
	for i := range x {
		x[i] /= sum
	}
	return x
}
