//go:build !amd64 || noasm

package nn

// biasReLU adds bias to every row of x and clamps negatives to zero.
func biasReLU(x, bias []float32) { biasReLUGeneric(x, bias) }
