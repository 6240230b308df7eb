//go:build amd64 && !noasm

package nn

import "testing"

// TestIm2colFastTaken checks that every plan with runs of a multiple of 16
// bytes is copied in assembly on amd64: int8 towers of 32 and 48 filters
// (runs of 32 and 48 bytes) fell back to a copy call per run before.
func TestIm2colFastTaken(t *testing.T) {
	for _, c := range []int{16, 32, 48, 64} {
		plan := im2colPlan(8, 8, c)
		per, in := 64*9*c, 64*c
		dst, src := make([]uint8, 2*per), make([]uint8, 2*in)
		if !im2colFast(dst, src, 2, plan, per, in, planAlign(plan, 1)) {
			t.Errorf("int8, %d filters (planAlign %d): im2col not in assembly", c, planAlign(plan, 1))
		}
	}
	plan := im2colPlan(8, 8, 3)
	if planAlign(plan, 4) != 0 || im2colFast(make([]float32, 64*27), make([]float32, 64*3), 1, plan, 64*27, 64*3, 0) {
		t.Error("3 float32 channels (runs of 12-36 bytes) taken by the assembly")
	}
}
