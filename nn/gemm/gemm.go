// Package gemm provides single-precision matrix multiplication (SGEMM) on
// row-major matrices, with AVX-512 and AVX2+FMA kernels written in Go assembly
// and a pure-Go fallback.
package gemm

// Sgemm computes C = alpha*op(A)*op(B) + beta*C on row-major matrices, where
// op(X) is X or X^T. C is m x n, op(A) is m x k and op(B) is k x n; lda, ldb
// and ldc are the row strides of the stored A, B and C. When beta == 0, C is
// not read (NaNs in C are overwritten). Sgemm panics, like gonum's BLAS, if a
// slice is too short for its dimensions and stride.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	sgemmGeneric(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Kernel names the kernel in use: "avx512", "avx2" or "generic".
func Kernel() string { return "generic" }
