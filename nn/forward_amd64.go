//go:build amd64 && !noasm

package nn

import "golang.org/x/sys/cpu"

// biasReLURowsAVX adds bias[0:n] to each of rows rows of n floats at x and
// clamps negatives to zero, 8 lanes at a time; n must be a positive multiple
// of 8.
//
//go:noescape
func biasReLURowsAVX(x *float32, rows int, bias *float32, n int)

var haveAVX = cpu.X86.HasAVX

// biasReLU adds bias to every row of x and clamps negatives to zero.
func biasReLU(x, bias []float32) {
	n := len(bias)
	if haveAVX && n > 0 && n%8 == 0 && len(x) >= n {
		biasReLURowsAVX(&x[0], len(x)/n, &bias[0], n)
		return
	}
	biasReLUGeneric(x, bias)
}
