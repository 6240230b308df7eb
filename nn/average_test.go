package nn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestAverageWeights(t *testing.T) {
	cfg := Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}
	shape := Shape{Planes: 2, Height: 3, Width: 4, Actions: 4}
	var ws []*Weights
	for seed := range uint64(3) {
		w, err := NewWeights(cfg, shape, rand.New(rand.NewPCG(seed, 7)))
		if err != nil {
			t.Fatal(err)
		}
		// Running statistics start at constants; make them differ too.
		for _, tn := range w.Tensors() {
			if isRunningStat(tn.Name) {
				for j := range tn.Data {
					tn.Data[j] = float32(seed) + float32(j)/10
				}
			}
		}
		ws = append(ws, w)
	}
	avg, err := AverageWeights(ws)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c, m := ws[0].Tensors(), ws[1].Tensors(), ws[2].Tensors(), avg.Tensors()
	checked := 0
	for i := range m {
		if m[i].Name != a[i].Name {
			t.Fatalf("tensor %d is %s, want %s", i, m[i].Name, a[i].Name)
		}
		for j, v := range m[i].Data {
			want := (float64(a[i].Data[j]) + float64(b[i].Data[j]) + float64(c[i].Data[j])) / 3
			if math.Abs(float64(v)-want) > 1e-6 {
				t.Fatalf("%s[%d] = %v, want the mean %v", m[i].Name, j, v, want)
			}
			checked++
		}
	}
	if checked < ws[0].NumParams() {
		t.Fatalf("checked %d values, the network has %d parameters", checked, ws[0].NumParams())
	}
	// The mean of one network is the network.
	one, err := AverageWeights(ws[:1])
	if err != nil {
		t.Fatal(err)
	}
	for i, tn := range one.Tensors() {
		for j, v := range tn.Data {
			if v != a[i].Data[j] {
				t.Fatalf("mean of one network differs at %s[%d]", tn.Name, j)
			}
		}
	}
}

func TestAverageWeightsRefusesMismatch(t *testing.T) {
	cfg := Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}
	shape := Shape{Planes: 2, Height: 3, Width: 4, Actions: 4}
	rng := rand.New(rand.NewPCG(1, 2))
	w1, _ := NewWeights(cfg, shape, rng)
	wider := cfg
	wider.Filters = 16
	w2, _ := NewWeights(wider, shape, rng)
	other := shape
	other.Width = 5
	other.Actions = 5
	w3, _ := NewWeights(cfg, other, rng)
	for _, tc := range []struct {
		name string
		ws   []*Weights
		want string
	}{
		{"none", nil, "no networks"},
		{"config", []*Weights{w1, w2}, "network 2 of 2 has config"},
		{"shape", []*Weights{w1, w3}, "network 2 of 2 has"},
		{"nil", []*Weights{w1, nil}, "network 2 of 2 is missing"},
	} {
		if _, err := AverageWeights(tc.ws); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
