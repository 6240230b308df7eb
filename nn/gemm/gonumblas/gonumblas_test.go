package gonumblas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func randSlice(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.Float64()*2 - 1)
	}
	return x
}

// TestSgemmMatchesGonum compares a call through the gonum interface with
// gonum's own Sgemm for every transpose flag, on odd shapes and strides.
func TestSgemmMatchesGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	var ours blas.Float32 = Implementation{}
	var ref gonum.Implementation
	flags := []blas.Transpose{blas.NoTrans, blas.Trans, blas.ConjTrans}
	shapes := [][3]int{{1, 1, 1}, {7, 5, 3}, {13, 70, 31}, {42, 64, 576}, {65, 2, 64}, {3, 130, 129}, {0, 4, 2}, {5, 3, 0}}
	for _, tA := range flags {
		for _, tB := range flags {
			for si, sh := range shapes {
				m, n, k := sh[0], sh[1], sh[2]
				pad := si % 3
				ar, ac := m, k
				if tA != blas.NoTrans {
					ar, ac = k, m
				}
				br, bc := k, n
				if tB != blas.NoTrans {
					br, bc = n, k
				}
				lda, ldb, ldc := max(ac, 1)+pad, max(bc, 1)+pad, max(n, 1)+pad
				a, b := randSlice(r, ar*lda), randSlice(r, br*ldb)
				c1 := randSlice(r, m*ldc)
				c2 := append([]float32(nil), c1...)
				alpha, beta := float32(1.5), float32(-0.5)
				ours.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c1, ldc)
				ref.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c2, ldc)
				name := fmt.Sprintf("tA=%c tB=%c m=%d n=%d k=%d", tA, tB, m, n, k)
				for i := range c1 {
					if d := math.Abs(float64(c1[i] - c2[i])); d > 1e-5*float64(k+1) {
						t.Fatalf("%s: c[%d] = %g, gonum %g", name, i, c1[i], c2[i])
					}
				}
			}
		}
	}
}

func TestBadTransposePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a bad transpose flag")
		}
	}()
	Implementation{}.Sgemm('x', blas.NoTrans, 1, 1, 1, 1, []float32{1}, 1, []float32{1}, 1, 0, []float32{0}, 1)
}
