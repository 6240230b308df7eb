package train

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
)

// TestAddReLUOp checks y = max(0, a+b) and its gradients on L = sum(y * r)
// inside a gorgonia graph.
func TestAddReLUOp(t *testing.T) {
	shape := []int{2, 3, 2, 2}
	n := 24
	rng := rand.New(rand.NewPCG(4, 5))
	av, bv, rv := normals(rng, n), normals(rng, n), normals(rng, n)
	g := G.NewGraph()
	a, b, r := valueNode(g, "a", av, shape...), valueNode(g, "b", bv, shape...), valueNode(g, "r", rv, shape...)
	y, err := addReLU(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var yv G.Value
	G.Read(y, &yv)
	vm := runLinearLoss(t, y, r, a, b)
	defer vm.Close()
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
