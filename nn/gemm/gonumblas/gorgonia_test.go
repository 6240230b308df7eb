package gonumblas

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// counting counts the Sgemm calls that reach Implementation.
type counting struct {
	Implementation
	calls *int
}

func (c counting) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, cc []float32, ldc int) {
	*c.calls++
	c.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}

// mulAndGrad builds y = x*w, loss = sum(y) and returns y, dloss/dx and
// dloss/dw; the backward pass multiplies by transposed matrices.
func mulAndGrad(t *testing.T, xv, wv []float32, m, k, n int) []float32 {
	t.Helper()
	g := G.NewGraph()
	x := G.NewMatrix(g, tensor.Float32, G.WithShape(m, k), G.WithName("x"),
		G.WithValue(tensor.New(tensor.WithShape(m, k), tensor.WithBacking(append([]float32(nil), xv...)))))
	w := G.NewMatrix(g, tensor.Float32, G.WithShape(k, n), G.WithName("w"),
		G.WithValue(tensor.New(tensor.WithShape(k, n), tensor.WithBacking(append([]float32(nil), wv...)))))
	y := G.Must(G.Mul(x, w))
	loss := G.Must(G.Sum(G.Must(G.Square(y))))
	if _, err := G.Grad(loss, x, w); err != nil {
		t.Fatalf("grad: %v", err)
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatalf("run: %v", err)
	}
	gx, err := x.Grad()
	if err != nil {
		t.Fatalf("x grad: %v", err)
	}
	gw, err := w.Grad()
	if err != nil {
		t.Fatalf("w grad: %v", err)
	}
	out := append([]float32(nil), y.Value().Data().([]float32)...)
	out = append(out, gx.Data().([]float32)...)
	return append(out, gw.Data().([]float32)...)
}

// TestGorgoniaUse trains nothing but runs a forward and backward matrix
// product through gorgonia with gonum's BLAS and with ours, and checks that
// our Sgemm was called and gave the same values.
func TestGorgoniaUse(t *testing.T) {
	const m, k, n = 9, 37, 11
	r := rand.New(rand.NewPCG(3, 3))
	xv, wv := randSlice(r, m*k), randSlice(r, k*n)
	G.Use(gonum.Implementation{})
	want := mulAndGrad(t, xv, wv, m, k, n)
	calls := 0
	G.Use(counting{calls: &calls})
	defer G.Use(gonum.Implementation{})
	got := mulAndGrad(t, xv, wv, m, k, n)
	if calls < 3 {
		t.Fatalf("our Sgemm was called %d times, want at least 3 (forward and two gradients)", calls)
	}
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); d > 1e-4*(1+math.Abs(float64(want[i]))) {
			t.Fatalf("value %d: got %g, gonum %g", i, got[i], want[i])
		}
	}
}
