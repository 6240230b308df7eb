package gemm_test

import (
	"fmt"

	"tabula/nn/gemm"
)

func ExampleSgemm() {
	// C (2x2) = A (2x3) * B (3x2), all row-major.
	a := []float32{
		1, 2, 3,
		4, 5, 6,
	}
	b := []float32{
		1, 0,
		0, 1,
		1, 1,
	}
	c := make([]float32, 4)
	gemm.Sgemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
	fmt.Println(c)
	// Output: [4 5 10 11]
}

func ExampleSgemmNTBiasReLU() {
	// A fully connected layer: out = relu(x * W^T + bias), with the weights
	// W stored as 2 rows (outputs) of 3 inputs.
	x := []float32{
		1, 2, 3, // first input in the batch
		-1, 0, 1, // second
	}
	w := []float32{
		1, 1, 1,
		0, 0, -1,
	}
	bias := []float32{0.5, 1}
	out := make([]float32, 4)
	gemm.SgemmNTBiasReLU(2, 2, 3, x, 3, w, 3, bias, true, out, 2)
	fmt.Println(out)
	// Output: [6.5 0 0.5 0]
}
