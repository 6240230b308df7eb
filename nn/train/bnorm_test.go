package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"tabula/nn"
)

// TestBatchNormOp checks the normalisation op in a gorgonia graph: training
// output has zero mean and unit (biased) variance per channel, running
// statistics follow the momentum rule, the gradient of L = sum(xhat * r)
// matches central differences of the op, and an evaluation machine uses the
// running statistics.
func TestBatchNormOp(t *testing.T) {
	const b, c, h, w = 3, 2, 2, 3
	n, hw := b*c*h*w, h*w
	rng := rand.New(rand.NewPCG(7, 8))
	xv, rv := make([]float32, n), make([]float32, n)
	for i := range xv {
		xv[i] = float32(rng.NormFloat64()*2 + 1)
		rv[i] = float32(rng.NormFloat64())
	}
	g := G.NewGraph()
	x, r := valueNode(g, "x", slices.Clone(xv), b, c, h, w), valueNode(g, "r", slices.Clone(rv), b, c, h, w)
	st := &bnState{b: b, c: c, hw: hw, momentum: 0.3, training: true,
		mean: []float32{0.5, -0.5}, vr: []float32{2, 3}, invStd: make([]float64, c)}
	y, err := G.ApplyOp(&bnOp{st: st}, x)
	if err != nil {
		t.Fatal(err)
	}
	var yv G.Value
	G.Read(y, &yv)
	vm := runLinearLoss(t, y, r, x)
	defer vm.Close()
	xhat := append([]float32(nil), yv.Data().([]float32)...)
	for ch := range c {
		var s, ss, raw, rawSS float64
		for e := range b {
			for i := range hw {
				k := (e*c+ch)*hw + i
				s += float64(xhat[k])
				ss += float64(xhat[k]) * float64(xhat[k])
				raw += float64(xv[k])
			}
		}
		cnt := float64(b * hw)
		mean := raw / cnt
		for e := range b {
			for i := range hw {
				d := float64(xv[(e*c+ch)*hw+i]) - mean
				rawSS += d * d
			}
		}
		if math.Abs(s/cnt) > 1e-5 || math.Abs(ss/cnt-rawSS/cnt/(rawSS/cnt+nn.BatchNormEps)) > 1e-4 {
			t.Errorf("channel %d: normalised mean %v, mean square %v", ch, s/cnt, ss/cnt)
		}
		wantMean := 0.3*mean + 0.7*[]float64{0.5, -0.5}[ch]
		wantVar := 0.3*rawSS/(cnt-1) + 0.7*[]float64{2, 3}[ch]
		if math.Abs(float64(st.mean[ch])-wantMean) > 1e-5 || math.Abs(float64(st.vr[ch])-wantVar) > 1e-5 {
			t.Errorf("channel %d: running %v %v, want %v %v", ch, st.mean[ch], st.vr[ch], wantMean, wantVar)
		}
	}
	gx, _ := x.Grad()
	grad := gx.Data().([]float32)
	probe := &bnState{b: b, c: c, hw: hw, momentum: 0.3, training: true,
		mean: make([]float32, c), vr: make([]float32, c), invStd: make([]float64, c)}
	eval := func(v []float32) float64 {
		out, err := (&bnOp{st: probe}).Do(tensor.New(tensor.WithShape(b, c, h, w), tensor.WithBacking(v)))
		if err != nil {
			t.Fatal(err)
		}
		var l float64
		for i, o := range out.Data().([]float32) {
			l += float64(o) * float64(rv[i])
		}
		return l
	}
	for k := range xv {
		fd := centralDiff(xv, k, 1e-2, func() float64 { return eval(xv) })
		if math.Abs(float64(grad[k])-fd) > 2e-3 {
			t.Errorf("d L / d x[%d] = %v, finite difference %v", k, grad[k], fd)
		}
	}

	// Evaluation mode: (x - running mean) / sqrt(running var + eps).
	op := &bnOp{st: st}
	if err := op.SetTraining(false); err != nil {
		t.Fatal(err)
	}
	before := append([]float32(nil), st.mean...)
	out, err := op.Do(tensor.New(tensor.WithShape(b, c, h, w), tensor.WithBacking(xv)))
	if err != nil {
		t.Fatal(err)
	}
	for k, o := range out.Data().([]float32) {
		ch := (k / hw) % c
		want := (float64(xv[k]) - float64(st.mean[ch])) / math.Sqrt(float64(st.vr[ch])+nn.BatchNormEps)
		if math.Abs(float64(o)-want) > 1e-5 {
			t.Fatalf("eval output %d = %v, want %v", k, o, want)
		}
	}
	if st.mean[0] != before[0] {
		t.Error("evaluation changed the running mean")
	}
}
