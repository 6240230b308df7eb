//go:build !amd64 || noasm

package gemm

func available(id kernelID) bool { return id == kernelGeneric }

func callKernel(id kernelID, w int, aT bool, kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags, mask int) {
	panic("gemm: no assembly kernels in this build")
}

func callDot(id kernelID, nW, k int, ap *[8]*float32, wp *[4]*float32, out *[16]float32) {
	panic("gemm: no assembly kernels in this build")
}

func fmaPeak(id kernelID, n int) int { return 0 }
