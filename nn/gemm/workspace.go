package gemm

// Workspace is the scratch memory (packed panels of B, padded edge strips of
// A, a partial tile) of the products one goroutine computes. Its methods
// are the package-level functions with the scratch taken from the
// Workspace instead of the shared pool, so once the Workspace has grown to
// the caller's shapes (on the first call, or at once with Reserve) they
// allocate nothing, whatever the garbage collector does.
//
// The zero value is ready to use. A Workspace is not safe for concurrent
// use: give each goroutine its own, and do not copy one after first use.
type Workspace struct {
	ws workspace
}

// Reserve grows w so that later products whose op(B) is k x n (any m, any
// transposition of A and B, with or without bias and ReLU) allocate nothing.
// Call it once per shape when setting up; it never shrinks w.
func (w *Workspace) Reserve(n, k int) { w.ws.reserve(active, n, k) }

// Sgemm is the package-level Sgemm using w's scratch.
func (w *Workspace) Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	fused(&w.ws, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil, false)
}

// SgemmBiasReLU is the package-level SgemmBiasReLU using w's scratch.
func (w *Workspace) SgemmBiasReLU(m, n, k int, a []float32, lda int, b []float32, ldb int, bias []float32, relu bool, c []float32, ldc int) {
	fused(&w.ws, false, false, m, n, k, 1, a, lda, b, ldb, 0, c, ldc, bias, relu)
}

// SgemmNTBiasReLU is the package-level SgemmNTBiasReLU using w's scratch.
func (w *Workspace) SgemmNTBiasReLU(m, n, k int, a []float32, lda int, wt []float32, ldw int, bias []float32, relu bool, c []float32, ldc int) {
	fused(&w.ws, false, true, m, n, k, 1, a, lda, wt, ldw, 0, c, ldc, bias, relu)
}

// SgemmFused is the package-level SgemmFused using w's scratch.
func (w *Workspace) SgemmFused(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, bias []float32, relu bool) {
	fused(&w.ws, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias, relu)
}
