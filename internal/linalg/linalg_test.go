package linalg

import (
	"math"
	"testing"
)

// A 3x3 system with a known solution, in place and into a separate factor,
// and a matrix that is not positive definite.
func TestCholeskySolve(t *testing.T) {
	h := []float64{4, 2, 2, 2, 5, 3, 2, 3, 6}
	want := []float64{1, -2, 3}
	b := make([]float64, 3)
	for i := range 3 {
		for j := range 3 {
			b[i] += h[i*3+j] * want[j]
		}
	}
	for _, inPlace := range []bool{false, true} {
		a := append([]float64(nil), h...)
		l := make([]float64, 9)
		if inPlace {
			l = a
		}
		if at := Cholesky(a, l, 3); at != -1 {
			t.Fatalf("not positive definite at %d", at)
		}
		x := append([]float64(nil), b...)
		SolveFactored(l, x, x, 3)
		for i := range want {
			if math.Abs(x[i]-want[i]) > 1e-12 {
				t.Errorf("in place %v: x = %v, want %v", inPlace, x, want)
			}
		}
	}
	if at := Cholesky([]float64{1, 2, 2, 1}, make([]float64, 4), 2); at != 1 {
		t.Errorf("indefinite matrix: first bad pivot %d, want 1", at)
	}
}
