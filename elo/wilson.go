package elo

import "math"

// Wilson returns the Wilson score interval of a proportion: k successes in
// n trials, at the normal quantile z (1.96 for 95%). It stays inside [0, 1]
// and is sound for small n and for k near 0 or n, where the normal
// approximation is not. With n = 0 it is [0, 1].
func Wilson(k, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return max(centre-half, 0), min(centre+half, 1)
}
