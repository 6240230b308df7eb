package gemm

import "fmt"

// checkArgs panics with a descriptive message when the dimensions, strides or
// slice lengths are inconsistent.
func checkArgs(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("gemm: negative dimension m=%d n=%d k=%d", m, n, k))
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	checkMatrix("a", ar, ac, a, lda)
	checkMatrix("b", br, bc, b, ldb)
	checkMatrix("c", m, n, c, ldc)
}

func checkMatrix(name string, rows, cols int, x []float32, ld int) {
	if ld < max(1, cols) {
		panic(fmt.Sprintf("gemm: ld%s=%d < max(1, %d)", name, ld, cols))
	}
	if rows == 0 || cols == 0 {
		return
	}
	if need := (rows-1)*ld + cols; len(x) < need {
		panic(fmt.Sprintf("gemm: len(%s)=%d < %d for %dx%d with stride %d", name, len(x), need, rows, cols, ld))
	}
}

func checkBias(bias []float32, n int) {
	if bias != nil && len(bias) < n {
		panic(fmt.Sprintf("gemm: len(bias)=%d < n=%d", len(bias), n))
	}
}
