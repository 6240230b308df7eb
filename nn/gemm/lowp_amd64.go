//go:build amd64 && !noasm

package gemm

import "golang.org/x/sys/cpu"

// The bf16 (bf16Kern*) and int8 (i8Kern*) micro-kernels, generated into
// lowp_amd64.s by internal/asmgen: a 6 x W tile of C from steps 4-byte
// groups of 6 rows of A (row stride lda bytes) and a packed B panel of W
// columns. See lowKernel in internal/asmgen for the layout, flags and mask.

//go:noescape
func bf16Kern64(steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale *float32, bias *float32, flags int, mask int)

//go:noescape
func bf16Kern48(steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale *float32, bias *float32, flags int, mask int)

//go:noescape
func bf16Kern32(steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale *float32, bias *float32, flags int, mask int)

//go:noescape
func bf16Kern16(steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale *float32, bias *float32, flags int, mask int)

//go:noescape
func i8Kern64(steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale *float32, bias *float32, flags int, mask int)

//go:noescape
func i8Kern48(steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale *float32, bias *float32, flags int, mask int)

//go:noescape
func i8Kern32(steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale *float32, bias *float32, flags int, mask int)

//go:noescape
func i8Kern16(steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale *float32, bias *float32, flags int, mask int)

// cvtBF16 converts n (a multiple of 16) float32 to bf16, rounding to
// nearest even.
//
//go:noescape
func cvtBF16(dst *uint16, src *float32, n int)

// quantU8 sets dst[i] = clamp(round(src[i]*inv), 0, 255) for n (a multiple
// of 16) values.
//
//go:noescape
func quantU8(dst *uint8, src *float32, n int, inv float32)

// bf16Peak512 runs n iterations of 12 independent VDPBF16PS.
func bf16Peak512(n int)

// vnniPeak512 runs n iterations of 12 independent VPDPBUSD.
func vnniPeak512(n int)

// u8Kern16 is the AVX2 int8 tile (6 x 16) over the VNNI kernels' operands,
// B's steps ldb bytes apart: see avx2Kernel in internal/asmgen.
//
//go:noescape
func u8Kern16(steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale *float32, bias *float32, flags int, ldb int)

// quantU8AVX2 is quantU8 in AVX2, for n a multiple of 16.
//
//go:noescape
func quantU8AVX2(dst *uint8, src *float32, n int, inv float32)

// maddubsPeak256 runs n iterations of 12 independent VPMADDUBSW, each
// followed by a VPMADDWD (ymm).
func maddubsPeak256(n int)

var (
	hasLowAsm  = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512BF16 && cpu.X86.HasAVX512VNNI
	hasWideAsm = cpu.X86.HasAVX2
)

func init() {
	switch {
	case hasLowAsm:
		lowActive = lowAVX512
	case hasWideAsm:
		lowActive = lowAVX2
	}
}

// lowAvailable reports whether kernel id can run on this CPU.
func lowAvailable(id lowKernel) bool {
	switch id {
	case lowAVX512:
		return hasLowAsm
	case lowAVX2:
		return hasWideAsm
	}
	return true
}

func callAVX2Asm(steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale, bias *float32, flags, ldb int) {
	u8Kern16(steps, a, lda, b, c, ldc, scale, bias, flags, ldb)
}

func callLowAsm(bf16 bool, w, steps int, a *byte, lda int, b *byte, c *float32, ldc int, scale, bias *float32, flags, mask int) {
	switch {
	case bf16 && w == 64:
		bf16Kern64(steps, a, lda, b, c, ldc, scale, bias, flags, mask)
	case bf16 && w == 48:
		bf16Kern48(steps, a, lda, b, c, ldc, scale, bias, flags, mask)
	case bf16 && w == 32:
		bf16Kern32(steps, a, lda, b, c, ldc, scale, bias, flags, mask)
	case bf16:
		bf16Kern16(steps, a, lda, b, c, ldc, scale, bias, flags, mask)
	case w == 64:
		i8Kern64(steps, a, lda, b, c, ldc, scale, bias, flags, mask)
	case w == 48:
		i8Kern48(steps, a, lda, b, c, ldc, scale, bias, flags, mask)
	case w == 32:
		i8Kern32(steps, a, lda, b, c, ldc, scale, bias, flags, mask)
	default:
		i8Kern16(steps, a, lda, b, c, ldc, scale, bias, flags, mask)
	}
}
