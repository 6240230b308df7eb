package train

import (
	"math"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestPolicyLossOp checks the policy loss op inside a gorgonia graph on rows
// with huge logits, masked moves and a row without legal moves: the loss
// equals a float64 cross-entropy over the legal moves and the gradient
// equals central differences of the op itself.
func TestPolicyLossOp(t *testing.T) {
	const B, A = 4, 3
	logits := []float32{
		500, 0, -3, // would overflow exp without the max shift
		1, 2, 3,
		-400, 7, 1e4, // the huge logit is illegal
		5, 5, 5, // no legal move
	}
	pi := []float32{
		0.5, 0.5, 0,
		0.2, 0.3, 0.5,
		0, 1, 0,
		0, 0, 0,
	}
	legal := []float32{
		1, 1, 1,
		1, 1, 1,
		1, 1, 0,
		0, 0, 0,
	}
	g := G.NewGraph()
	mk := func(name string, v []float32) *G.Node {
		return G.NewMatrix(g, tensor.Float32, G.WithShape(B, A), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(B, A), tensor.WithBacking(append([]float32(nil), v...)))))
	}
	ln, pn, mn := mk("logits", logits), mk("pi", pi), mk("legal", legal)
	loss, err := G.ApplyOp(&policyLossOp{b: B, a: A}, ln, pn, mn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(loss, ln); err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(ln))
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	got, err := scalar(loss)
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	for i := range B {
		mx := math.Inf(-1)
		for a := range A {
			if legal[i*A+a] == 1 {
				mx = math.Max(mx, float64(logits[i*A+a]))
			}
		}
		var z float64
		for a := range A {
			if legal[i*A+a] == 1 {
				z += math.Exp(float64(logits[i*A+a]) - mx)
			}
		}
		for a := range A {
			if legal[i*A+a] == 1 {
				want -= float64(pi[i*A+a]) * (float64(logits[i*A+a]) - mx - math.Log(z))
			}
		}
	}
	want /= B
	if math.IsNaN(got) || math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
		t.Fatalf("loss %v, want %v", got, want)
	}
	gv, err := ln.Grad()
	if err != nil {
		t.Fatal(err)
	}
	grad := gv.Data().([]float32)
	op := &policyLossOp{b: B, a: A}
	eval := func(l []float32) float64 {
		v, err := op.Do(tensor.New(tensor.WithShape(B, A), tensor.WithBacking(l)),
			tensor.New(tensor.WithShape(B, A), tensor.WithBacking(pi)),
			tensor.New(tensor.WithShape(B, A), tensor.WithBacking(legal)))
		if err != nil {
			t.Fatal(err)
		}
		x, err := scalarOf(v)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for k := range logits {
		fd := centralDiff(logits, k, 1e-2, func() float64 { return eval(logits) })
		if math.Abs(float64(grad[k])-fd) > 1e-3 {
			t.Errorf("d loss / d logit %d = %v, finite difference %v", k, grad[k], fd)
		}
		if legal[k] == 0 && grad[k] != 0 {
			t.Errorf("illegal logit %d has gradient %v", k, grad[k])
		}
	}
}
