//go:build amd64 && !noasm

package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"tabula/nn"
)

// TestBatchNormAVXMatchesGo runs each pass of dbn with the AVX kernels and
// with the Go loops alone, on channel counts below, at and past multiples of
// 8, with the channels at an offset inside wider rows, and requires the same
// outputs, gradients and sums (to rounding: a build with fused multiply-adds
// may round the Go loops differently).
func TestBatchNormAVXMatchesGo(t *testing.T) {
	if !haveAVX {
		t.Skip("no AVX on this CPU")
	}
	defer func(v bool) { bnAVX = v }(bnAVX)
	for _, tc := range []struct{ c, off, ld, rows int }{
		{8, 0, 8, 1}, {32, 0, 32, 81}, {13, 0, 13, 7}, {24, 3, 40, 33}, {5, 2, 9, 10}, {40, 0, 40, 200},
	} {
		t.Run(fmt.Sprintf("c=%d/off=%d/ld=%d/rows=%d", tc.c, tc.off, tc.ld, tc.rows), func(t *testing.T) {
			var got [2][][]float64
			for k, avx := range []bool{true, false} {
				bnAVX = avx
				got[k] = runBatchNorm(tc.c, tc.off, tc.ld, tc.rows)
			}
			for i := range got[0] {
				for j := range got[0][i] {
					a, b := got[0][i][j], got[1][i][j]
					if !(math.Abs(a-b) <= 1e-5*(math.Abs(a)+math.Abs(b))+1e-6) {
						t.Fatalf("output %d, value %d: AVX %v, Go %v", i, j, a, b)
					}
				}
			}
		})
	}
}

// runBatchNorm runs stats, apply (plain, ReLU, residual) and backward (with
// and without ReLU's mask) of one dbn on random rows and returns everything
// they wrote.
func runBatchNorm(c, off, ld, rows int) [][]float64 {
	r := rand.New(rand.NewPCG(uint64(c), uint64(rows)))
	vec := func(n int, scale, shift float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64()*scale + shift)
		}
		return v
	}
	n := rows * ld
	bn := nn.BatchNorm{C: c, Gamma: vec(c, 0.5, 1), Beta: vec(c, 0.3, 0), Mean: make([]float32, c), Var: make([]float32, c)}
	for i := range bn.Var {
		bn.Var[i] = 1
	}
	b := newDbn(bn, make([]float32, c), make([]float32, c), off, ld, 0.1)
	y, res := vec(n, 2, 5), vec(n, 1, 0)
	var outs [][]float64
	keep := func(vs ...[]float32) {
		for _, v := range vs {
			f := make([]float64, len(v))
			for i, x := range v {
				f[i] = float64(x)
			}
			outs = append(outs, f)
		}
	}
	b.stats(y, rows)
	outs = append(outs, append([]float64(nil), b.s1...), append([]float64(nil), b.s2...))
	keep(b.mu, b.inv, b.scale, b.shift)
	plain, relu, resid := make([]float32, n), make([]float32, n), make([]float32, n)
	b.apply(y, nil, plain, rows, false)
	b.apply(y, nil, relu, rows, true)
	b.apply(y, res, resid, rows, true)
	keep(plain, relu, resid)
	for _, out := range [][]float32{nil, relu} {
		g, dy := vec(n, 1, 0), make([]float32, n)
		b.backward(y, out, g, dy, rows)
		outs = append(outs, append([]float64(nil), b.s1...), append([]float64(nil), b.s2...))
		keep(g, dy, b.dgamma, b.dbeta)
	}
	return outs
}

// TestReLUMaskSumAVXMatchesGo compares reluMaskSumAVX with its Go loop on
// rows of mixed zero and positive outputs.
func TestReLUMaskSumAVXMatchesGo(t *testing.T) {
	if !haveAVX {
		t.Skip("no AVX on this CPU")
	}
	r := rand.New(rand.NewPCG(9, 9))
	for _, tc := range []struct{ c, ld, rows int }{{8, 8, 1}, {32, 32, 81}, {40, 48, 49}, {13, 13, 9}} {
		n := tc.rows * tc.ld
		g, out := make([]float32, n), make([]float32, n)
		for i := range g {
			g[i] = float32(r.NormFloat64())
			out[i] = max(0, float32(r.NormFloat64()))
		}
		want, wantSum := append([]float32(nil), g...), make([]float32, tc.c)
		for j := range tc.rows {
			for c := range tc.c {
				want[j*tc.ld+c] *= positive(out[j*tc.ld+c])
				wantSum[c] += want[j*tc.ld+c]
			}
		}
		sum := make([]float32, tc.c)
		c0 := reluMaskSumFast(g, out, sum, tc.rows, tc.ld, tc.c)
		if c0 != tc.c&^7 {
			t.Fatalf("c=%d: the AVX pass took %d channels", tc.c, c0)
		}
		for j := range tc.rows {
			for c := range c0 {
				if g[j*tc.ld+c] != want[j*tc.ld+c] {
					t.Fatalf("c=%d row %d channel %d: gradient %v, want %v", tc.c, j, c, g[j*tc.ld+c], want[j*tc.ld+c])
				}
			}
		}
		for c := range c0 {
			if sum[c] != wantSum[c] {
				t.Fatalf("c=%d channel %d: sum %v, want %v", tc.c, c, sum[c], wantSum[c])
			}
		}
	}
}
