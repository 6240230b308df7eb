package nn

import (
	"math"

	"tabula/nn/gemm"
)

// gptqDamp is the damping added to the Hessian's diagonal, as a fraction of
// its mean: it keeps the inverse well conditioned when inputs are
// correlated or rarely nonzero (GPTQ's 1%).
const gptqDamp = 0.01

// quantizeGPTQ rounds the k x n weights w (row-major [k][n]: k inputs, n
// output channels) to int8 steps of one scale per output channel (its
// largest magnitude / 127, as gemm.PackInt8 chooses) and returns the
// rounded weights, each exactly q*scale[j] with q in [-127, 127], and the
// scales.
//
// Rounding to nearest makes each output's error the sum of k independent
// rounding errors. GPTQ (Frantar et al., ICLR 2023) rounds the inputs one
// at a time and moves each one's rounding error onto the inputs not yet
// rounded, in the proportions that minimise the output's squared error
// over the calibration inputs, whose Gram matrix (the sum of x^T x over
// the im2col rows x) is h, k x k. With h from the layer's FP32 inputs on
// the calibration positions, the error of the layer's outputs shrinks,
// not the error of the weights.
func quantizeGPTQ(w []float32, k, n int, h []float32) (q, scale []float32) {
	scale = gemm.Int8Scales(w, k, n, n, false)
	// The Hessian in float64, damped. An input that is never nonzero has a
	// zero row and column; a unit diagonal makes it harmless (its weights
	// round to nearest: nothing moves there).
	hd := make([]float64, k*k)
	for i, v := range h[:k*k] {
		hd[i] = float64(v)
	}
	var mean float64
	for i := range k {
		mean += hd[i*k+i]
	}
	mean /= float64(k)
	if !(mean > 0) || math.IsInf(mean, 0) {
		mean = 1
	}
	for i := range k {
		if hd[i*k+i] <= 0 {
			hd[i*k+i] = 1
		}
		hd[i*k+i] += gptqDamp * mean
	}
	u, ok := inverseCholeskyUpper(hd, k)
	q = make([]float32, k*n)
	if !ok { // not positive definite after damping (non-finite inputs): round to nearest
		for l := range k {
			for j := range n {
				q[l*n+j] = roundStep(float64(w[l*n+j]), scale[j])
			}
		}
		return q, scale
	}
	wd := make([]float64, k*n)
	for i, v := range w {
		wd[i] = float64(v)
	}
	e := make([]float64, n)
	for i := range k {
		d := u[i*k+i]
		row := wd[i*n : (i+1)*n]
		for j, v := range row {
			r := roundStep(v, scale[j])
			q[i*n+j] = r
			e[j] = (v - float64(r)) / d
		}
		for r := i + 1; r < k; r++ {
			c := u[i*k+r]
			if c == 0 {
				continue
			}
			dst := wd[r*n : (r+1)*n]
			for j := range dst {
				dst[j] -= e[j] * c
			}
		}
	}
	return q, scale
}

// roundStep rounds v to the nearest multiple of s in [-127s, 127s], ties to
// even, as gemm.PackInt8 rounds.
func roundStep(v float64, s float32) float32 {
	return float32(float64(gemm.RoundInt8(v, s)) * float64(s))
}

// inverseCholeskyUpper returns the upper triangular U with U^T U = A^-1 for
// the symmetric positive definite k x k matrix a (row-major; a is
// overwritten), or false if a is not positive definite.
//
// A = V V^T with V upper triangular (Cholesky from the last row up), so
// A^-1 = V^-T V^-1 and U = V^-1, itself upper triangular.
func inverseCholeskyUpper(a []float64, k int) ([]float64, bool) {
	for j := k - 1; j >= 0; j-- { // V in the upper triangle of a
		rj := a[j*k+j+1 : (j+1)*k]
		s := a[j*k+j]
		for _, v := range rj {
			s -= v * v
		}
		if !(s > 0) {
			return nil, false
		}
		d := math.Sqrt(s)
		a[j*k+j] = d
		for i := range j {
			t := a[i*k+j]
			for p, v := range a[i*k+j+1 : (i+1)*k] {
				t -= v * rj[p]
			}
			a[i*k+j] = t / d
		}
	}
	// U = V^-1 by rows from the last: U[i][c] for c > i is
	// -(sum over i < p <= c of V[i][p] U[p][c]) / V[i][i].
	u := make([]float64, k*k)
	for i := k - 1; i >= 0; i-- {
		d := a[i*k+i]
		ui := u[i*k : (i+1)*k]
		ui[i] = 1 / d
		for p := i + 1; p < k; p++ {
			v := a[i*k+p]
			if v == 0 {
				continue
			}
			for c, w := range u[p*k+p : (p+1)*k] {
				ui[p+c] -= v * w
			}
		}
		for c := i + 1; c < k; c++ {
			ui[c] /= d
		}
	}
	return u, true
}
