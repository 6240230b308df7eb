// Package gemm provides single-precision matrix multiplication (SGEMM) on
// row-major matrices for the network's convolutions and fully connected
// layers, with AVX-512 and AVX2+FMA micro-kernels in Go assembly chosen at run
// time, and a pure-Go fallback on other CPUs or under the build tag noasm.
//
// All functions work on one goroutine: callers that want both cores run one
// worker per core. Scratch buffers come from a sync.Pool, so calls allocate
// nothing in steady state and are safe for concurrent use.
package gemm

//go:generate go run ./internal/asmgen -out kernels_amd64.s

// kernelID names one implementation of the micro-kernels.
type kernelID int

const (
	kernelGeneric kernelID = iota
	kernelAVX2
	kernelAVX512
)

var kernelNames = [...]string{kernelGeneric: "generic", kernelAVX2: "avx2", kernelAVX512: "avx512"}

// active is the kernel in use, chosen once at start-up (tests may change it).
var active = kernelGeneric

// Sgemm computes C = alpha*op(A)*op(B) + beta*C on row-major matrices, where
// op(X) is X or X^T. C is m x n, op(A) is m x k and op(B) is k x n; lda, ldb
// and ldc are the row strides of the stored A, B and C (A is stored k x m when
// transA). When beta == 0, C is not read, so it may hold garbage or NaNs.
// Like gonum's BLAS, Sgemm panics if a dimension is negative or a slice is too
// short for its dimensions and stride.
//
// When transB is true, n is small (at most 16) and transA is false, as in a
// fully connected layer C = A * W^T with weights W stored n x k, Sgemm uses
// dot-product kernels instead of the tiled ones.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	sgemm(active, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil, false)
}

// SgemmBiasReLU computes C = A*B + bias, adding bias[j] to every element of
// column j, and then, if relu, C = max(C, 0). A is m x k, B is k x n and C is
// m x n, all row-major with row strides lda, ldb and ldc; C is not read. bias
// may be nil (no bias); otherwise it must hold at least n values. The bias
// and ReLU are applied while the result is in registers, which is how the
// inference pass applies a convolution's folded batch norm.
func SgemmBiasReLU(m, n, k int, a []float32, lda int, b []float32, ldb int, bias []float32, relu bool, c []float32, ldc int) {
	checkArgs(false, false, m, n, k, a, lda, b, ldb, c, ldc)
	checkBias(bias, n)
	sgemm(active, false, false, m, n, k, 1, a, lda, b, ldb, 0, c, ldc, bias, relu)
}

// SgemmNTBiasReLU is SgemmBiasReLU with B stored transposed, as n x k rows
// (C = A*W^T + bias, weights W[n][k] as in a fully connected layer or a
// convolution whose weights are stored out x in). For small n it uses
// dot-product kernels.
func SgemmNTBiasReLU(m, n, k int, a []float32, lda int, w []float32, ldw int, bias []float32, relu bool, c []float32, ldc int) {
	checkArgs(false, true, m, n, k, a, lda, w, ldw, c, ldc)
	checkBias(bias, n)
	sgemm(active, false, true, m, n, k, 1, a, lda, w, ldw, 0, c, ldc, bias, relu)
}

// SgemmFused computes C = alpha*op(A)*op(B) + beta*C + bias, adding bias[j]
// to every element of column j, and then, if relu, C = max(C, 0); the bias
// and ReLU are applied while the result is in registers. With beta = 1 and C
// holding a residual input, it computes a residual block's second
// convolution, folded batch norm, skip connection and ReLU in one pass.
// bias may be nil. Arguments are as for Sgemm.
func SgemmFused(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, bias []float32, relu bool) {
	checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	checkBias(bias, n)
	sgemm(active, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias, relu)
}

// Kernel names the kernel in use: "avx512", "avx2" or "generic".
func Kernel() string { return kernelNames[active] }
