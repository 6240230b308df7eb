package train

import (
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// centralDiff returns the central finite difference (f(x+h) - f(x-h)) / 2h
// of f at x = v[k]: f is called with v[k] moved up, then down, and v[k] is
// restored.
func centralDiff(v []float32, k int, h float32, f func() float64) float64 {
	old := v[k]
	v[k] = old + h
	up := f()
	v[k] = old - h
	down := f()
	v[k] = old
	return (up - down) / (2 * float64(h))
}

// normals returns n standard normal values drawn from rng.
func normals(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// valueNode returns a float32 tensor node of g of the given shape holding v
// (not a copy).
func valueNode(g *G.ExprGraph, name string, v []float32, shape ...int) *G.Node {
	return G.NewTensor(g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithName(name),
		G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))))
}

// runLinearLoss adds the loss L = sum(y * r) and its gradient with respect
// to wrt to y's graph and runs the graph once, so that each of wrt holds
// dL/d itself, which is the op's backward pass applied to r. The caller
// closes the machine after reading the values.
func runLinearLoss(t *testing.T, y, r *G.Node, wrt ...*G.Node) G.VM {
	t.Helper()
	loss := G.Must(G.Sum(G.Must(G.HadamardProd(y, r))))
	if _, err := G.Grad(loss, wrt...); err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(y.Graph(), G.BindDualValues(wrt...))
	if err := vm.RunAll(); err != nil {
		_ = vm.Close()
		t.Fatal(err)
	}
	return vm
}
