// Package gonumblas adapts package gemm to gonum's BLAS interfaces, so that
// gorgonia can train with it:
//
//	gorgonia.Use(gonumblas.Implementation{})
//
// Implementation is gonum's pure-Go BLAS with Sgemm replaced by gemm.Sgemm;
// every other routine is gonum's.
package gonumblas

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"tabula/nn/gemm"
)

// Implementation satisfies blas.Float32, blas.Float64, blas.Complex64 and
// blas.Complex128 (gorgonia's and tensor's BLAS interface).
type Implementation struct {
	gonum.Implementation
}

var (
	_ blas.Float32    = Implementation{}
	_ blas.Float64    = Implementation{}
	_ blas.Complex64  = Implementation{}
	_ blas.Complex128 = Implementation{}
)

// Sgemm computes C = alpha*op(A)*op(B) + beta*C with gonum's row-major
// convention and argument checks, using gemm.Sgemm. ConjTrans means Trans.
func (impl Implementation) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	transA, okA := isTrans(tA)
	transB, okB := isTrans(tB)
	if !okA || !okB {
		// Let gonum panic with its own message for a bad transpose flag.
		impl.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gemm.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func isTrans(t blas.Transpose) (trans, ok bool) {
	switch t {
	case blas.NoTrans:
		return false, true
	case blas.Trans, blas.ConjTrans:
		return true, true
	}
	return false, false
}
