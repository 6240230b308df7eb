package gemm

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// sgemmGeneric is the portable implementation of Sgemm: gonum's pure-Go
// Sgemm, which uses the same row-major convention. Arguments are already
// checked, m, n > 0, and gonum does not read C when beta == 0.
func sgemmGeneric(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	tA, tB := blas.NoTrans, blas.NoTrans
	if transA {
		tA = blas.Trans
	}
	if transB {
		tB = blas.Trans
	}
	gonum.Implementation{}.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// scaleRow sets x = beta*x, writing zeros without reading x when beta == 0.
func scaleRow(x []float32, beta float32) {
	switch beta {
	case 0:
		clear(x)
	case 1:
	default:
		for j := range x {
			x[j] *= beta
		}
	}
}
