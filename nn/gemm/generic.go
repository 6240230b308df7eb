package gemm

// sgemmGeneric is the portable implementation of Sgemm. Arguments are already
// checked and m, n > 0.
func sgemmGeneric(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		scaleRow(ci, beta)
		if alpha == 0 || k == 0 {
			continue
		}
		for l := 0; l < k; l++ {
			var av float32
			if transA {
				av = a[l*lda+i]
			} else {
				av = a[i*lda+l]
			}
			av *= alpha
			if transB {
				for j := range ci {
					ci[j] += av * b[j*ldb+l]
				}
			} else {
				bl := b[l*ldb : l*ldb+n]
				for j, bv := range bl {
					ci[j] += av * bv
				}
			}
		}
	}
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
