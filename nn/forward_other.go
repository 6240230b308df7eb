//go:build !amd64 || noasm

package nn

// biasReLU adds bias to every row of x and clamps negatives to zero.
func biasReLU(x, bias []float32) { biasReLUGeneric(x, bias) }

// colSum writes into sum the column sums of x, rows of len(sum) floats.
func colSum(sum, x []float32) { colSumGeneric(sum, x) }

// seApply is SEApply's kernel.
func seApply(x, v, scale, bias []float32) { seApplyGeneric(x, v, scale, bias) }

func im2colFast[T float32 | uint16 | uint8](dst, src []T, nb int, plan []copyOp, per, stride int, align int) bool {
	return false
}

// sigmoid is SigmoidInPlace's kernel.
func sigmoid(x []float32) { sigmoidGeneric(x) }
