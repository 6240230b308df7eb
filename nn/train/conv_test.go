package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
)

// TestConvOp runs the convolution ops inside a gorgonia graph on the linear
// loss L = sum(conv(x, f) * r) and compares the output and both gradients
// with direct float64 sums.
func TestConvOp(t *testing.T) {
	for _, s := range []convShape{
		{b: 2, cin: 3, cout: 4, k: 3, h: 6, w: 7},
		{b: 3, cin: 2, cout: 5, k: 1, h: 4, w: 3},
		{b: 1, cin: 1, cout: 2, k: 5, h: 3, w: 4}, // kernel wider than the board
		{b: 2, cin: 2, cout: 3, k: 3, h: 1, w: 1},
	} {
		for _, perChunk := range []int{0, 1, 2} { // examples per im2col pass; 0 = all
			t.Run(fmt.Sprintf("%+v/chunk%d", s, perChunk), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(s.k), uint64(s.h)))
				xv, fv, rv := normals(rng, s.b*s.cin*s.hw()), normals(rng, s.cout*s.kk()), normals(rng, s.b*s.cout*s.hw())
				g := G.NewGraph()
				x := valueNode(g, "x", xv, s.b, s.cin, s.h, s.w)
				f := valueNode(g, "f", fv, s.cout, s.cin, s.k, s.k)
				r := valueNode(g, "r", rv, s.b, s.cout, s.h, s.w)
				y, err := conv2dChunked(x, f, &convScratch{}, perChunk*s.kk()*s.hw())
				if err != nil {
					t.Fatal(err)
				}
				var yv G.Value
				G.Read(y, &yv)
				vm := runLinearLoss(t, y, r, x, f)
				defer vm.Close()
				gotY := append([]float32(nil), yv.Data().([]float32)...)
				gx, _ := x.Grad()
				gf, _ := f.Grad()

				p := s.k / 2
				at := func(e, c, yy, xx int) float64 {
					if yy < 0 || yy >= s.h || xx < 0 || xx >= s.w {
						return 0
					}
					return float64(xv[((e*s.cin+c)*s.h+yy)*s.w+xx])
				}
				wantY := make([]float64, len(rv))
				wantGX := make([]float64, len(xv))
				wantGF := make([]float64, len(fv))
				for e := range s.b {
					for o := range s.cout {
						for yy := range s.h {
							for xx := range s.w {
								oi := ((e*s.cout+o)*s.h+yy)*s.w + xx
								for c := range s.cin {
									for ky := range s.k {
										for kx := range s.k {
											fi := ((o*s.cin+c)*s.k+ky)*s.k + kx
											sy, sx := yy+ky-p, xx+kx-p
											wantY[oi] += float64(fv[fi]) * at(e, c, sy, sx)
											wantGF[fi] += float64(rv[oi]) * at(e, c, sy, sx)
											if sy >= 0 && sy < s.h && sx >= 0 && sx < s.w {
												wantGX[((e*s.cin+c)*s.h+sy)*s.w+sx] += float64(rv[oi]) * float64(fv[fi])
											}
										}
									}
								}
							}
						}
					}
				}
				for _, c := range []struct {
					name string
					got  []float32
					want []float64
				}{{"output", gotY, wantY}, {"input gradient", gx.Data().([]float32), wantGX}, {"filter gradient", gf.Data().([]float32), wantGF}} {
					if len(c.got) != len(c.want) {
						t.Fatalf("%s: %d values, want %d", c.name, len(c.got), len(c.want))
					}
					for i := range c.want {
						if math.Abs(float64(c.got[i])-c.want[i]) > 1e-4*(1+math.Abs(c.want[i])) {
							t.Fatalf("%s[%d] = %v, want %v", c.name, i, c.got[i], c.want[i])
						}
					}
				}
			})
		}
	}
}
