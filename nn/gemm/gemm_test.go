package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// refGemm computes the expected result in float64.
func refGemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for l := 0; l < k; l++ {
				var av, bv float32
				if transA {
					av = a[l*lda+i]
				} else {
					av = a[i*lda+l]
				}
				if transB {
					bv = b[j*ldb+l]
				} else {
					bv = b[l*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			s *= float64(alpha)
			if beta != 0 {
				s += float64(beta) * float64(c[i*ldc+j])
			}
			out[i*n+j] = s
		}
	}
	return out
}

func randSlice(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.Float64()*2 - 1)
	}
	return x
}

type gemmCase struct {
	transA, transB bool
	m, n, k        int
	pad            int
	alpha, beta    float32
}

func (tc gemmCase) String() string {
	return fmt.Sprintf("tA=%v,tB=%v,m=%d,n=%d,k=%d,pad=%d,alpha=%g,beta=%g", tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.pad, tc.alpha, tc.beta)
}

// runCase runs one case through f and compares it with refGemm. C starts as
// NaN when beta == 0 to prove that C is not read.
func runCase(t *testing.T, r *rand.Rand, tc gemmCase, f func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)) {
	t.Helper()
	ar, ac := tc.m, tc.k
	if tc.transA {
		ar, ac = tc.k, tc.m
	}
	br, bc := tc.k, tc.n
	if tc.transB {
		br, bc = tc.n, tc.k
	}
	lda, ldb, ldc := max(ac, 1)+tc.pad, max(bc, 1)+tc.pad, max(tc.n, 1)+tc.pad
	a := randSlice(r, ar*lda)
	b := randSlice(r, br*ldb)
	c := randSlice(r, tc.m*ldc)
	if tc.beta == 0 {
		for i := range c {
			c[i] = float32(math.NaN())
		}
	}
	want := refGemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
	orig := append([]float32(nil), c...)
	f(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
	tol := 1e-5 * float64(tc.k+2)
	for i := 0; i < tc.m; i++ {
		for j := 0; j < ldc; j++ {
			got := c[i*ldc+j]
			if j >= tc.n {
				if math.Float32bits(got) != math.Float32bits(orig[i*ldc+j]) {
					t.Fatalf("%v: padding C[%d][%d] changed", tc, i, j)
				}
				continue
			}
			w := want[i*tc.n+j]
			if d := math.Abs(float64(got) - w); !(d <= tol*(1+math.Abs(w))) {
				t.Fatalf("%v: C[%d][%d] = %g, want %g", tc, i, j, got, w)
			}
		}
	}
}

func TestSgemmSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dims := []int{1, 2, 3, 7, 16, 17}
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			for _, m := range dims {
				for _, n := range dims {
					for _, k := range dims {
						tc := gemmCase{transA: tA, transB: tB, m: m, n: n, k: k, pad: (m + n + k) % 3, alpha: 1, beta: 0}
						runCase(t, r, tc, Sgemm)
					}
				}
			}
		}
	}
}
