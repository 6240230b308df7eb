// Package linalg is the small dense linear algebra that tabula's fitting code
// shares (Elo ratings, evaluation weights): Cholesky factorisation and the
// solves with its factor, on row-major float64 matrices.
package linalg

import "math"

// Cholesky writes into l the lower-triangular factor of the symmetric
// positive definite m x m matrix h (l*lᵀ = h); l may be h itself, whose lower
// triangle it then overwrites. It returns -1, or the index of the first
// pivot that is not positive (h is not positive definite).
func Cholesky(h, l []float64, m int) int {
	for i := 0; i < m; i++ {
		for j := 0; j <= i; j++ {
			s := h[i*m+j]
			for k := 0; k < j; k++ {
				s -= l[i*m+k] * l[j*m+k]
			}
			if i == j {
				if !(s > 0) {
					return i
				}
				l[i*m+i] = math.Sqrt(s)
			} else {
				l[i*m+j] = s / l[j*m+j]
			}
		}
	}
	return -1
}

// SolveFactored solves l*lᵀ x = b for the factor l that Cholesky wrote; x
// may be b.
func SolveFactored(l, b, x []float64, m int) {
	for i := 0; i < m; i++ {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= l[i*m+k] * x[k]
		}
		x[i] = s / l[i*m+i]
	}
	for i := m - 1; i >= 0; i-- {
		s := x[i]
		for k := i + 1; k < m; k++ {
			s -= l[k*m+i] * x[k]
		}
		x[i] = s / l[i*m+i]
	}
}
