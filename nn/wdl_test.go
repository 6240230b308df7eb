package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestWDLSoftmax(t *testing.T) {
	for _, tc := range []struct {
		logits []float32
		p      [3]float64
	}{
		{[]float32{0, 0, 0}, [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{[]float32{float32(math.Ln2), 0, 0}, [3]float64{0.5, 0.25, 0.25}},
		{[]float32{0, 0, 200}, [3]float64{0, 0, 1}},      // no overflow at large logits
		{[]float32{-300, -300, 50}, [3]float64{0, 0, 1}}, // nor underflow to 0/0
	} {
		p, lse := WDLSoftmax(tc.logits)
		for k := range p {
			if math.Abs(float64(p[k])-tc.p[k]) > 1e-6 {
				t.Errorf("WDLSoftmax(%v): p = %v, want %v", tc.logits, p, tc.p)
				break
			}
			if want := math.Log(tc.p[k]); tc.p[k] > 0.1 && math.Abs(float64(tc.logits[k])-lse-want) > 1e-6 {
				t.Errorf("WDLSoftmax(%v): log p[%d] = %v, want %v", tc.logits, k, float64(tc.logits[k])-lse, want)
			}
		}
	}
}

func TestWDLTarget(t *testing.T) {
	for _, tc := range []struct {
		z    float32
		want [3]float32
	}{
		{1, [3]float32{1, 0, 0}}, {0, [3]float32{0, 1, 0}}, {-1, [3]float32{0, 0, 1}},
		{0.25, [3]float32{0.25, 0.75, 0}}, {-0.5, [3]float32{0, 0.5, 0.5}},
		{1.5, [3]float32{1, 0, 0}}, {-7, [3]float32{0, 0, 1}}, // clamped
	} {
		got := WDLTarget(tc.z)
		if got != tc.want {
			t.Errorf("WDLTarget(%v) = %v, want %v", tc.z, got, tc.want)
		}
		if z := min(max(tc.z, -1), 1); got[0]-got[2] != z || got[0]+got[1]+got[2] != 1 {
			t.Errorf("WDLTarget(%v) = %v: expectation %v, sum %v", tc.z, got, got[0]-got[2], got[0]+got[1]+got[2])
		}
	}
}

// A win/draw/loss network runs in every precision: the value stays within
// the precision check's tolerance of FP32's on random positions.
func TestWDLLowPrecision(t *testing.T) {
	sh := Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}
	w := randomWeights(t, Config{Filters: 16, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16, WDL: true}, sh, 9)
	const n = 32
	obs := randomObs(sh, n, rand.New(rand.NewPCG(3, 4)))
	m, err := NewModel(w)
	if err != nil {
		t.Fatal(err)
	}
	values := func(m *Model) []float32 {
		net := mustNet(t, m, n)
		logits, v := make([]float32, n*sh.Actions), make([]float32, n)
		if err := net.Forward(obs, n, logits, v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	ref := values(m)
	cells := sh.Planes * sh.Height * sh.Width
	for i, v := range ref {
		if _, want := refForward(w, obs[i*cells:(i+1)*cells]); math.Abs(float64(v)-want) > 1e-4 {
			t.Fatalf("FP32 position %d: value %v, reference %v", i, v, want)
		}
	}
	for _, p := range []Precision{BF16, Int8} {
		mp, err := m.WithPrecision(p, obs, n)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range values(mp) {
			if math.Abs(float64(v-ref[i])) > 0.1 || v < -1 || v > 1 {
				t.Errorf("%v: position %d value %v, FP32 %v", p, i, v, ref[i])
			}
		}
	}
}
