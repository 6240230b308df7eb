package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
)

// TestAffineOp runs the scale-shift(-ReLU) op inside a gorgonia graph on the
// loss L = sum(y * r) and compares the output and the gradients of x, gamma
// and beta with direct sums.
func TestAffineOp(t *testing.T) {
	const b, c, h, w = 3, 4, 2, 3
	for _, relu := range []bool{false, true} {
		t.Run(fmt.Sprint("relu=", relu), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			xv, gv, bv, rv := normals(rng, b*c*h*w), normals(rng, c), normals(rng, c), normals(rng, b*c*h*w)
			g := G.NewGraph()
			x, gamma, beta, r := valueNode(g, "x", xv, b, c, h, w), valueNode(g, "g", gv, 1, c, 1, 1), valueNode(g, "b", bv, 1, c, 1, 1), valueNode(g, "r", rv, b, c, h, w)
			y, err := G.ApplyOp(&affineOp{b: b, c: c, hw: h * w, relu: relu}, x, gamma, beta)
			if err != nil {
				t.Fatal(err)
			}
			var yv G.Value
			G.Read(y, &yv)
			vm := runLinearLoss(t, y, r, x, gamma, beta)
			defer vm.Close()
			gotY := append([]float32(nil), yv.Data().([]float32)...)
			gx, _ := x.Grad()
			gg, _ := gamma.Grad()
			gb, _ := beta.Grad()

			wantY := make([]float64, len(xv))
			wantGX := make([]float64, len(xv))
			wantGG := make([]float64, c)
			wantGB := make([]float64, c)
			negatives := 0
			for i := range xv {
				ch := (i / (h * w)) % c
				v := float64(xv[i])*float64(gv[ch]) + float64(bv[ch])
				pass := 1.0
				if relu && v < 0 {
					v, pass = 0, 0
					negatives++
				}
				wantY[i] = v
				wantGX[i] = float64(rv[i]) * pass * float64(gv[ch])
				wantGG[ch] += float64(rv[i]) * pass * float64(xv[i])
				wantGB[ch] += float64(rv[i]) * pass
			}
			if relu && (negatives == 0 || negatives == len(xv)) {
				t.Fatalf("%d of %d pre-activations negative: the mask is not exercised", negatives, len(xv))
			}
			for _, cmp := range []struct {
				name string
				got  []float32
				want []float64
			}{{"output", gotY, wantY}, {"x gradient", gx.Data().([]float32), wantGX},
				{"gamma gradient", gg.Data().([]float32), wantGG}, {"beta gradient", gb.Data().([]float32), wantGB}} {
				if len(cmp.got) != len(cmp.want) {
					t.Fatalf("%s: %d values, want %d", cmp.name, len(cmp.got), len(cmp.want))
				}
				for i := range cmp.want {
					if math.Abs(float64(cmp.got[i])-cmp.want[i]) > 1e-5*(1+math.Abs(cmp.want[i])) {
						t.Fatalf("%s[%d] = %v, want %v", cmp.name, i, cmp.got[i], cmp.want[i])
					}
				}
			}
		})
	}
}

func TestPositive(t *testing.T) {
	for _, tc := range []struct {
		v    float32
		want float32
	}{{0, 0}, {1e-45, 1}, {1e-38, 1}, {0.5, 1}, {3e38, 1}, {float32(math.Inf(1)), 1}} {
		if got := positive(tc.v); got != tc.want {
			t.Errorf("positive(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if got := positive(max(float32(math.Copysign(0, -1)), 0)); got != 0 {
		t.Errorf("positive(ReLU(-0)) = %v, want 0", got)
	}
}
