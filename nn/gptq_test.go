package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"tabula/nn/gemm"
)

func TestInverseCholeskyUpper(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	const k = 23
	a := make([]float64, k*k)
	x := make([]float64, 40*k)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	for i := range k {
		for j := range k {
			for p := range 40 {
				a[i*k+j] += x[p*k+i] * x[p*k+j]
			}
		}
	}
	orig := append([]float64(nil), a...)
	u, ok := inverseCholeskyUpper(a, k)
	if !ok {
		t.Fatal("a positive definite matrix was refused")
	}
	// U^T U A = I, and U is upper triangular.
	for i := range k {
		for j := range i {
			if u[i*k+j] != 0 {
				t.Fatalf("U[%d][%d] = %g below the diagonal", i, j, u[i*k+j])
			}
		}
	}
	for i := range k {
		for j := range k {
			var s float64
			for p := range k {
				var inv float64 // (U^T U)[i][p]
				for q := range k {
					inv += u[q*k+i] * u[q*k+p]
				}
				s += inv * orig[p*k+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 1e-9 {
				t.Fatalf("(U^T U A)[%d][%d] = %g, want %g", i, j, s, want)
			}
		}
	}
	neg := make([]float64, 4)
	neg[0], neg[3] = 1, -1
	if _, ok := inverseCholeskyUpper(neg, 2); ok {
		t.Error("an indefinite matrix was accepted")
	}
}

// gptqCase is a layer's weights and correlated ReLU inputs, as a tower
// convolution sees: rows x k inputs, k x n weights, and their Gram matrix.
func gptqCase(r *rand.Rand, rows, k, n int) (x, w, h []float32) {
	x = make([]float32, rows*k)
	mix := make([]float64, 8*k) // each input a mix of 8 common factors, plus noise
	for i := range mix {
		mix[i] = r.NormFloat64()
	}
	for p := range rows {
		var f [8]float64
		for i := range f {
			f[i] = r.NormFloat64()
		}
		for i := range k {
			v := 0.3 * r.NormFloat64()
			for c := range f {
				v += f[c] * mix[c*k+i]
			}
			x[p*k+i] = float32(max(v, 0))
		}
	}
	w = make([]float32, k*n)
	for i := range w {
		w[i] = float32(0.1 * r.NormFloat64())
	}
	h = make([]float32, k*k)
	for i := range k {
		for j := range k {
			var s float64
			for p := range rows {
				s += float64(x[p*k+i]) * float64(x[p*k+j])
			}
			h[i*k+j] = float32(s)
		}
	}
	return x, w, h
}

// outputError is the squared error of the outputs x*q against x*w.
func outputError(x, w, q []float32, rows, k, n int) float64 {
	var e float64
	for p := range rows {
		for j := range n {
			var d float64
			for i := range k {
				d += float64(x[p*k+i]) * float64(w[i*n+j]-q[i*n+j])
			}
			e += d * d
		}
	}
	return e
}

func TestQuantizeGPTQ(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	const rows, k, n = 1500, 72, 8
	x, w, h := gptqCase(r, rows, k, n)
	q, scale := quantizeGPTQ(w, k, n, h)
	nearest := make([]float32, k*n)
	for j := range n {
		var m float32
		for i := range k {
			m = max(m, float32(math.Abs(float64(w[i*n+j]))))
		}
		if scale[j] != m/127 {
			t.Fatalf("column %d: scale %g, want its largest magnitude / 127 = %g", j, scale[j], m/127)
		}
		for i := range k {
			steps := float64(q[i*n+j]) / float64(scale[j])
			if math.Abs(steps-math.Round(steps)) > 1e-3 || math.Abs(steps) > 127.0001 {
				t.Fatalf("(%d, %d) = %g is %g steps of %g: not on the int8 grid", i, j, q[i*n+j], steps, scale[j])
			}
			nearest[i*n+j] = roundStep(float64(w[i*n+j]), scale[j])
		}
	}
	eg, en := outputError(x, w, q, rows, k, n), outputError(x, w, nearest, rows, k, n)
	t.Logf("output squared error: GPTQ %.4g, nearest %.4g (%.2fx)", eg, en, eg/en)
	if !(eg < 0.6*en) {
		t.Errorf("GPTQ's output error %.4g is not below 0.6x rounding to nearest's %.4g", eg, en)
	}

	// Without correlations to use (a zero Gram matrix: inputs never
	// nonzero), and with a non-finite one, it rounds to nearest.
	for name, hh := range map[string][]float32{"zero": make([]float32, k*k), "NaN": nanMatrix(k)} {
		q, _ := quantizeGPTQ(w, k, n, hh)
		for i := range q {
			if q[i] != nearest[i] {
				t.Fatalf("%s Gram matrix: weight %d rounded to %g, want the nearest %g", name, i, q[i], nearest[i])
			}
		}
	}
}

func nanMatrix(k int) []float32 {
	h := make([]float32, k*k)
	for i := range k {
		h[i*k+i] = 1
	}
	h[1] = float32(math.NaN())
	return h
}

// TestInt8BuildUsesGPTQ pins the int8 build to GPTQ's rounding: every tower
// convolution of WithPrecision(Int8) multiplies exactly as the weights
// quantizeGPTQ gives against the calibration Hessians, and not as the
// weights rounded to nearest.
func TestInt8BuildUsesGPTQ(t *testing.T) {
	g := connect4Game(t)
	const n = 256
	calib, _, err := CalibrationPositions(g, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Filters: 32, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}
	m, err := NewModel(randomWeights(t, cfg, connect4Shape, 9))
	if err != nil {
		t.Fatal(err)
	}
	q8, err := m.WithPrecision(Int8, calib, n)
	if err != nil {
		t.Fatal(err)
	}
	_, hess, err := m.calibrate(calib, n)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 9))
	var ws gemm.Workspace
	product := func(p *gemm.PackedInt8, a []uint8, rows int) []float32 {
		c := make([]float32, rows*p.N())
		ws.GemmInt8(rows, a, p.KPad(), 1, p, false, nil, false, c, p.N())
		return c
	}
	for i, b := range m.blocks {
		for j, l := range []layer{b.conv1, b.conv2} {
			built := q8.low[2*i+j].q
			q, scale := quantizeGPTQ(l.w, l.k, l.n, hess[2*i+j])
			want := gemm.PackInt8Scaled(q, l.k, l.n, l.n, false, scale)
			nearest := gemm.PackInt8(l.w, l.k, l.n, l.n, false)
			const rows = 64
			a := make([]uint8, rows*built.KPad())
			for x := range a {
				a[x] = uint8(r.Uint32())
			}
			got := product(built, a, rows)
			if !slices.Equal(got, product(want, a, rows)) {
				t.Errorf("block %d conv %d: the int8 build's weights are not GPTQ's", i, j+1)
			}
			if slices.Equal(got, product(nearest, a, rows)) {
				t.Errorf("block %d conv %d: the int8 build's weights are rounded to nearest, not by GPTQ", i, j+1)
			}
		}
	}
}
