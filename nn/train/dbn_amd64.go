//go:build amd64 && !noasm

package train

import "golang.org/x/sys/cpu"

// The batch normalisation's passes over a tower's rows in AVX, 8 or 16
// channels at a time: the same operations in the same order as the Go loops
// of dbn, so the same results (sums in float64 per channel, row after row);
// the global-pooling block reuses them for its bias and ReLU and its ReLU
// mask. Channels past the last multiple of 8 stay with the Go loops.

var haveAVX = cpu.X86.HasAVX

// bnAVX switches the AVX passes on; tests turn it off to compare with the Go
// loops.
var bnAVX = haveAVX

// bnStatsAVX adds d = float64(y - k) to s1 and d*d to s2 for channels
// [0, n) of rows rows ld floats apart at y; n is a positive multiple of 8
// and rows positive.
//
//go:noescape
func bnStatsAVX(s1, s2 *float64, k, y *float32, rows, ld, n int)

// bnApplyAVX writes out = y*sc + sh (mode 0), then ReLU (mode 1), or
// ReLU(res + y*sc + sh) (mode 2), for channels [0, n) of rows rows ld floats
// apart; n is a positive multiple of 8 and rows positive.
//
//go:noescape
func bnApplyAVX(y, res, out *float32, rows, ld, n int, sc, sh *float32, mode int)

// bnBackSumsAVX multiplies grad in place by ReLU's derivative read from out
// (out > 0; skipped when out is nil), then adds float64(grad) to s1 and
// float64(grad*(y-mu)*inv) to s2, for channels [0, n) of rows rows ld floats
// apart; n is a positive multiple of 8 and rows positive.
//
//go:noescape
func bnBackSumsAVX(s1, s2 *float64, y, out, grad, mu, inv *float32, rows, ld, n int)

// bnBackApplyAVX writes dy = ga*grad + gb*y + gc for channels [0, n) of rows
// rows ld floats apart; n is a positive multiple of 8 and rows positive.
//
//go:noescape
func bnBackApplyAVX(dy, grad, y, ga, gb, gc *float32, rows, ld, n int)

// reluMaskSumAVX multiplies grad in place by ReLU's derivative read from
// out (out > 0) and adds it to sum (float32, row after row), for channels
// [0, n) of rows rows ld floats apart; n is a positive multiple of 8 and rows
// positive.
//
//go:noescape
func reluMaskSumAVX(grad, out, sum *float32, rows, ld, n int)

// bnFast returns how many leading channels of c the AVX passes take over
// rows rows ld floats apart in buffers of length size (0: none), and panics
// if a buffer is too short, as the Go loops would.
func bnFast(rows, ld, c, size int) int {
	n := c &^ 7
	if !bnAVX || n == 0 || rows <= 0 {
		return 0
	}
	if (rows-1)*ld+c > size {
		panic("train: batch-norm buffer too short")
	}
	return n
}

func bnStatsFast(s1, s2 []float64, k, y []float32, rows, ld, c int) int {
	n := bnFast(rows, ld, c, len(y))
	if n > 0 {
		bnStatsAVX(&s1[0], &s2[0], &k[0], &y[0], rows, ld, n)
	}
	return n
}

func bnApplyFast(y, res, out []float32, rows, ld, c int, sc, sh []float32, relu bool) int {
	n := bnFast(rows, ld, c, min(len(y), len(out)))
	if n == 0 {
		return 0
	}
	mode, rp := 0, &y[0]
	switch {
	case res != nil:
		if bnFast(rows, ld, c, len(res)) == 0 {
			return 0
		}
		mode, rp = 2, &res[0]
	case relu:
		mode = 1
	}
	bnApplyAVX(&y[0], rp, &out[0], rows, ld, n, &sc[0], &sh[0], mode)
	return n
}

func bnBackSumsFast(s1, s2 []float64, y, out, g, mu, inv []float32, rows, ld, c int) int {
	n := bnFast(rows, ld, c, min(len(y), len(g)))
	if n == 0 {
		return 0
	}
	var op *float32
	if out != nil {
		if bnFast(rows, ld, c, len(out)) == 0 {
			return 0
		}
		op = &out[0]
	}
	bnBackSumsAVX(&s1[0], &s2[0], &y[0], op, &g[0], &mu[0], &inv[0], rows, ld, n)
	return n
}

func bnBackApplyFast(dy, g, y, ga, gb, gc []float32, rows, ld, c int) int {
	n := bnFast(rows, ld, c, min(len(dy), len(g), len(y)))
	if n > 0 {
		bnBackApplyAVX(&dy[0], &g[0], &y[0], &ga[0], &gb[0], &gc[0], rows, ld, n)
	}
	return n
}

func reluMaskSumFast(grad, out, sum []float32, rows, ld, c int) int {
	n := bnFast(rows, ld, c, min(len(grad), len(out)))
	if n > 0 {
		reluMaskSumAVX(&grad[0], &out[0], &sum[0], rows, ld, n)
	}
	return n
}
