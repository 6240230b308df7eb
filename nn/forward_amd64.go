//go:build amd64 && !noasm

package nn

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// biasReLURowsAVX adds bias[0:n] to each of rows rows of n floats at x and
// clamps negatives to zero, 8 lanes at a time; n must be a positive multiple
// of 8.
//
//go:noescape
func biasReLURowsAVX(x *float32, rows int, bias *float32, n int)

var haveAVX = cpu.X86.HasAVX

// seApplyRowsAVX writes x = max(x + scale*v + bias, 0) for rows rows of n
// floats at x and v, 8 lanes at a time; n must be a positive multiple of 8.
//
//go:noescape
func seApplyRowsAVX(x, v *float32, rows int, scale, bias *float32, n int)

// sigmoidAVX2 replaces the n floats at x by their sigmoids, 8 lanes at a
// time, as sigmoidGeneric computes them (with fused multiply-adds); n must
// be a positive multiple of 8.
//
//go:noescape
func sigmoidAVX2(x *float32, n int)

var haveAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// colSumRowsAVX writes into sum[0:n] the column sums of rows rows of n
// floats at x, 8 columns at a time; n must be a positive multiple of 8 and
// rows positive.
//
//go:noescape
func colSumRowsAVX(sum, x *float32, rows, n int)

// im2colRuns copies the runs of ops (offsets and lengths in elements of
// 1<<shift bytes) from src to dst in moves of width bytes: 64 (AVX-512), 32
// (AVX) or 16 (SSE2, which every amd64 CPU has); every run must be a
// positive multiple of width.
//
//go:noescape
func im2colRuns(dst, src *byte, ops *copyOp, nops int, shift int, width int)

var haveAVX512 = cpu.X86.HasAVX512F

// im2colFast runs im2col's copies of nb positions in assembly, in the
// widest moves that both the CPU and align (planAlign of plan) allow, and
// reports whether it did (not when align is 0).
func im2colFast[T float32 | uint16 | uint8](dst, src []T, nb int, plan []copyOp, per, stride int, align int) bool {
	width := 16
	switch {
	case align < 16 || len(plan) == 0 || nb < 1:
		return false
	case align >= 64 && haveAVX512:
		width = 64
	case align >= 32 && haveAVX:
		width = 32
	}
	if len(dst) < nb*per || len(src) < nb*stride {
		panic("nn: im2col buffers too short")
	}
	var z T
	shift := 0
	switch unsafe.Sizeof(z) {
	case 2:
		shift = 1
	case 4:
		shift = 2
	}
	for b := 0; b < nb; b++ {
		im2colRuns((*byte)(unsafe.Pointer(&dst[b*per])), (*byte)(unsafe.Pointer(&src[b*stride])), &plan[0], len(plan), shift, width)
	}
	return true
}

// biasReLU adds bias to every row of x and clamps negatives to zero.
func biasReLU(x, bias []float32) {
	n := len(bias)
	if haveAVX && n > 0 && n%8 == 0 && len(x) >= n {
		biasReLURowsAVX(&x[0], len(x)/n, &bias[0], n)
		return
	}
	biasReLUGeneric(x, bias)
}

// colSum writes into sum the column sums of x, rows of len(sum) floats.
func colSum(sum, x []float32) {
	n := len(sum)
	if haveAVX && n > 0 && n%8 == 0 && len(x) >= n {
		colSumRowsAVX(&sum[0], &x[0], len(x)/n, n)
		return
	}
	colSumGeneric(sum, x)
}

// seApply is SEApply's kernel.
func seApply(x, v, scale, bias []float32) {
	n := len(scale)
	if haveAVX && n > 0 && n%8 == 0 && len(x) >= n && len(v) >= len(x)/n*n && len(bias) >= n {
		seApplyRowsAVX(&x[0], &v[0], len(x)/n, &scale[0], &bias[0], n)
		return
	}
	seApplyGeneric(x, v, scale, bias)
}

// sigmoid is SigmoidInPlace's kernel.
func sigmoid(x []float32) {
	n := len(x) &^ 7
	if haveAVX2FMA && n > 0 {
		sigmoidAVX2(&x[0], n)
		x = x[n:]
	}
	sigmoidGeneric(x)
}
