package train

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestAddReLUOp checks y = max(0, a+b) and its gradients on L = sum(y * r)
// inside a gorgonia graph.
func TestAddReLUOp(t *testing.T) {
	shape := []int{2, 3, 2, 2}
	n := 24
	rng := rand.New(rand.NewPCG(4, 5))
	rnd := func() []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	av, bv, rv := rnd(), rnd(), rnd()
	g := G.NewGraph()
	mk := func(name string, v []float32) *G.Node {
		return G.NewTensor(g, tensor.Float32, 4, G.WithShape(shape...), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))))
	}
	a, b, r := mk("a", av), mk("b", bv), mk("r", rv)
	y, err := addReLU(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var yv G.Value
	G.Read(y, &yv)
	loss := G.Must(G.Sum(G.Must(G.HadamardProd(y, r))))
	if _, err := G.Grad(loss, a, b); err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(a, b))
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	gotY := yv.Data().([]float32)
	ga, _ := a.Grad()
	gb, _ := b.Grad()
	clipped := 0
	for i := range n {
		s := float64(av[i]) + float64(bv[i])
		wantY, wantG := math.Max(s, 0), float64(rv[i])
		if s <= 0 {
			wantG = 0
			clipped++
		}
		if math.Abs(float64(gotY[i])-wantY) > 1e-6 {
			t.Errorf("y[%d] = %v, want %v", i, gotY[i], wantY)
		}
		for _, gr := range []G.Value{ga, gb} {
			if got := float64(gr.Data().([]float32)[i]); math.Abs(got-wantG) > 1e-6 {
				t.Errorf("gradient[%d] = %v, want %v", i, got, wantG)
			}
		}
	}
	if clipped == 0 || clipped == n {
		t.Fatalf("%d of %d sums clipped: the mask is not exercised", clipped, n)
	}
}
