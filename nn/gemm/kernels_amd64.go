//go:build amd64 && !noasm

package gemm

import "golang.org/x/sys/cpu"

// The micro-kernels below are generated into kernels_amd64.s by
// internal/asmgen. Strides are in elements.

// kern512 computes a 6x64 tile with AVX-512: acc = A[0:6][0:kc]*B[0:kc][0:64],
// then acc *= alpha if flags&flagScale; acc += C if flags&flagAcc; acc += bias[0:64] if
// flags&flagBias; acc = max(acc, 0) if flags&flagReLU; C = acc. The low 16
// bits of mask choose the lanes of the tile's last 16 columns that C and bias
// hold (the others are neither read nor written).
//
//go:noescape
func kern512(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags int, mask int)

// kern512w48 is kern512 for a 6x48 tile, for narrow last panels.
//
//go:noescape
func kern512w48(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags int, mask int)

// kern512w48T is kern512w48 with A read transposed.
//
//go:noescape
func kern512w48T(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags int, mask int)

// kern512w32 is kern512 for a 6x32 tile, for narrow last panels.
//
//go:noescape
func kern512w32(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags int, mask int)

// kern512w32T is kern512w32 with A read transposed.
//
//go:noescape
func kern512w32T(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags int, mask int)

// kern512w16 is kern512 for a 6x16 tile, for narrow last panels.
//
//go:noescape
func kern512w16(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags int, mask int)

// kern512w16T is kern512w16 with A read transposed.
//
//go:noescape
func kern512w16T(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags int, mask int)

// kern256 is kern512 for a 6x16 tile with AVX2 and FMA.
//
//go:noescape
func kern256(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags int)

// kern512T is kern512 with A read transposed: element (i, l) of the tile's
// A is a[l*lda+i].
//
//go:noescape
func kern512T(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags int, mask int)

// kern256T is kern256 with A read transposed, like kern512T.
//
//go:noescape
func kern256T(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags int)

// dot512 computes out[4*i+j] = sum over l < k of ap[i][l]*wp[j][l] for
// i, j < 4 with AVX-512.
//
//go:noescape
func dot512(k int, ap *[8]*float32, wp *[4]*float32, out *[16]float32)

// dot512x8x2 computes out[2*i+j] = sum over l < k of ap[i][l]*wp[j][l] for
// i < 8, j < 2 with AVX-512.
//
//go:noescape
func dot512x8x2(k int, ap *[8]*float32, wp *[4]*float32, out *[16]float32)

// fmaPeak512 runs n iterations of 12 independent 16-lane FMAs.
func fmaPeak512(n int)

// fmaPeak256 runs n iterations of 12 independent 8-lane FMAs.
func fmaPeak256(n int)

var (
	hasAVX512 = cpu.X86.HasAVX512F
	hasAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA
)

func init() {
	switch {
	case hasAVX512:
		active = kernelAVX512
	case hasAVX2:
		active = kernelAVX2
	}
}

// available reports whether kernel id can run on this CPU.
func available(id kernelID) bool {
	switch id {
	case kernelAVX512:
		return hasAVX512
	case kernelAVX2:
		return hasAVX2
	}
	return id == kernelGeneric
}

// callKernel runs the micro-kernel of id for a 6 x w tile (w is 64, 48, 32
// or 16 for AVX-512 and 16 for AVX2), reading A transposed if aT. mask is
// the AVX-512 kernels' lane mask of the last 16 columns (fullMask when all
// w columns lie in C); the AVX2 kernel writes all 16 and ignores it.
func callKernel(id kernelID, w int, aT bool, kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha float32, bias *float32, flags, mask int) {
	if id == kernelAVX2 {
		if aT {
			kern256T(kc, a, lda, b, ldb, c, ldc, alpha, bias, flags)
		} else {
			kern256(kc, a, lda, b, ldb, c, ldc, alpha, bias, flags)
		}
		return
	}
	switch {
	case w == 64 && !aT:
		kern512(kc, a, lda, b, ldb, c, ldc, alpha, bias, flags, mask)
	case w == 64:
		kern512T(kc, a, lda, b, ldb, c, ldc, alpha, bias, flags, mask)
	case w == 48 && !aT:
		kern512w48(kc, a, lda, b, ldb, c, ldc, alpha, bias, flags, mask)
	case w == 48:
		kern512w48T(kc, a, lda, b, ldb, c, ldc, alpha, bias, flags, mask)
	case w == 32 && !aT:
		kern512w32(kc, a, lda, b, ldb, c, ldc, alpha, bias, flags, mask)
	case w == 32:
		kern512w32T(kc, a, lda, b, ldb, c, ldc, alpha, bias, flags, mask)
	case !aT:
		kern512w16(kc, a, lda, b, ldb, c, ldc, alpha, bias, flags, mask)
	default:
		kern512w16T(kc, a, lda, b, ldb, c, ldc, alpha, bias, flags, mask)
	}
}

// callDot runs the dot-product kernel for blocks of nW columns (4 or 2) on
// one block.
func callDot(id kernelID, nW, k int, ap *[8]*float32, wp *[4]*float32, out *[16]float32) {
	if nW == 2 {
		dot512x8x2(k, ap, wp, out)
	} else {
		dot512(k, ap, wp, out)
	}
}

// fmaPeak runs n iterations of 12 independent FMAs with the vectors of
// kernel id and returns the number of floating-point operations done, or 0
// when id has no FMA loop.
func fmaPeak(id kernelID, n int) int {
	switch id {
	case kernelAVX512:
		fmaPeak512(n)
		return n * 12 * 16 * 2
	case kernelAVX2:
		fmaPeak256(n)
		return n * 12 * 8 * 2
	}
	return 0
}
