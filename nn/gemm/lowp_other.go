//go:build !amd64 || noasm

package gemm

func lowAvailable(id lowKernel) bool { return id == lowGeneric }

func callAVX2Asm(steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale, bias *float32, flags, ldb int) {
	panic("gemm: no assembly kernels in this build")
}

func quantU8AVX2(dst *uint8, src *float32, n int, inv float32) {
	panic("gemm: no assembly kernels in this build")
}

func maddubsPeak256(n int) {}

func callLowAsm(bf16 bool, w, steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale, bias *float32, flags, mask int) {
	panic("gemm: no assembly kernels in this build")
}

func cvtBF16(dst *uint16, src *float32, n int) { panic("gemm: no assembly kernels in this build") }

func quantU8(dst *uint8, src *float32, n int, inv float32) {
	panic("gemm: no assembly kernels in this build")
}

func bf16Peak512(n int) {}

func vnniPeak512(n int) {}
