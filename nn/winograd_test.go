package nn

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"tabula/games"
	_ "tabula/games/chess"
	_ "tabula/games/gogame"
	_ "tabula/games/othello"
)

// This file measures whether the Winograd F(2x2, 3x3) convolution (Lavin
// and Gray, "Fast Algorithms for Convolutional Neural Networks", 2016) could
// replace the int8 tower's direct convolution: it does 16 products a 2x2
// output tile in place of 36, but its transformed inputs B^T d B span four
// times the range of d, which VPDPBUSD's 8-bit operand does not hold. The
// tower here runs the transforms in float64 with each quantisation a kernel
// would need simulated, so that the accuracy check of precision auto judges
// it (TestWinogradReport); TestWinogradExact shows the transforms themselves
// are the convolution.

// The F(2x2, 3x3) matrices: Y = A^T [(G g G^T) . (B^T d B)] A for a 4x4
// input tile d and a 3x3 filter g (correlation, as the tower computes).
// Each is stored row-major.
var (
	wgBT = []float64{1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1} // 4x4
	wgG  = []float64{1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1}   // 4x3
	wgAT = []float64{1, 1, 1, 0, 0, 1, -1, -1}                          // 2x4
)

// sandwich writes L X L^T into out (m x m) for L m x k and X k x k, all
// row-major.
func sandwich(l []float64, m, k int, x, out []float64) {
	var tmp [16]float64 // m x k <= 4 x 4
	product(tmp[:], l, x, m, k, k, false)
	product(out, tmp[:], l, m, k, m, true)
}

// product writes A B (m x n) into out for A m x k and B k x n, or B^T for B
// n x k when bT, all row-major.
func product(out, a, b []float64, m, k, n int, bT bool) {
	for i := range m {
		for j := range n {
			var s float64
			for x := range k {
				if bT {
					s += a[i*k+x] * b[j*k+x]
				} else {
					s += a[i*k+x] * b[x*n+j]
				}
			}
			out[i*n+j] = s
		}
	}
}

// wgQuant says which quantisations the simulated Winograd tower applies:
// the input to uint8 at the int8 model's calibrated scales (inScales nil:
// none), the transformed inputs to vBits bits over the range each of the 16
// tile elements took on the calibration positions (0: exact), and the
// transformed weights to uBits-bit symmetric integers per tile element and
// output channel (0: exact).
type wgQuant struct {
	inScales    []float32
	vBits       int
	uBits       int
	clip        float64 // the fraction of calibration values clipped at each end of a V range
	perChannel  bool    // a V range for each input channel too (its scale folded into U before U's rounding)
	description string
}

// wgLayer is one tower convolution in the Winograd domain: u[p] holds the
// transformed weights of tile element p, [out][in], uq[p] the same rounded
// as the kernel would hold them, and lowSum[p] the products of the V
// ranges' low ends with uq, [out], which a kernel adds as a bias (the V
// values are stored as steps above lo).
type wgLayer struct {
	cin, cout int
	u, uq     [16][]float64
	lowSum    [16][]float64
	bias      []float32
	inScale   float64 // 0: the input is not quantised
	// The range of V for each tile element (and input channel, when
	// perChannel), [p*cin+c], from hist: V/inScale is an integer in
	// [-wgVMax, wgVMax] (the input is uint8), counted by calibration.
	lo, hi []float64
	hist   [][]int32
}

// wgVMax bounds |V| in uint8 input steps: four inputs of at most 255 with
// coefficients +-1.
const wgVMax = 4 * 255

// wgTower is the simulated tower of one model.
type wgTower struct {
	m           *Model
	q           wgQuant
	layers      []wgLayer // conv1, conv2 of each block
	calibrating bool      // record each layer's V ranges instead of quantising

	ty, tx int       // tiles down and across
	v      []float64 // [p][tile][in]
	mm     []float64 // [p][tile][out]
}

func newWGTower(m *Model, q wgQuant) *wgTower {
	f := m.cfg.Filters
	t := &wgTower{m: m, q: q, ty: (m.shape.Height + 1) / 2, tx: (m.shape.Width + 1) / 2}
	tiles := t.ty * t.tx
	t.v, t.mm = make([]float64, 16*tiles*f), make([]float64, 16*tiles*f)
	for i, b := range m.blocks {
		for j, l := range []layer{b.conv1, b.conv2} {
			wl := wgLayer{cin: f, cout: l.n, bias: l.bias}
			if q.inScales != nil {
				wl.inScale = float64(q.inScales[2*i+j])
			}
			wl.lo, wl.hi = make([]float64, 16*f), make([]float64, 16*f)
			if q.vBits > 0 {
				wl.hist = make([][]int32, 16*f)
				for i := range wl.hist {
					wl.hist[i] = make([]int32, 2*wgVMax+1)
				}
			}
			for p := range 16 {
				wl.u[p], wl.lowSum[p] = make([]float64, l.n*f), make([]float64, l.n)
			}
			for o := 0; o < l.n; o++ {
				for c := 0; c < f; c++ {
					var g [9]float64
					for i := range g {
						g[i] = float64(l.w[(i*f+c)*l.n+o])
					}
					var u [16]float64
					sandwich(wgG, 4, 3, g[:], u[:])
					for p, v := range u {
						wl.u[p][o*f+c] = v
					}
				}
			}
			for p := range 16 {
				wl.uq[p] = roundRows(wl.u[p], nil, f, q.uBits)
			}
			t.layers = append(t.layers, wl)
		}
	}
	return t
}

// roundRows returns u, rows of n, with each row times steps (nil: ones)
// rounded to bits-bit symmetric integers of the row's own scale, then
// divided by steps again (bits 0: u unchanged).
func roundRows(u, steps []float64, n, bits int) []float64 {
	if bits == 0 {
		return u
	}
	levels := float64(int(1)<<(bits-1) - 1)
	out := make([]float64, len(u))
	for o := 0; o < len(u)/n; o++ {
		row, dst := u[o*n:(o+1)*n], out[o*n:(o+1)*n]
		var mx float64
		for c, v := range row {
			if steps != nil {
				v *= steps[c]
			}
			mx = max(mx, math.Abs(v))
		}
		if mx == 0 {
			continue
		}
		s := mx / levels
		for c, v := range row {
			st := 1.0
			if steps != nil {
				st = steps[c]
			}
			dst[c] = math.Round(v*st/s) * s / st
		}
	}
	return out
}

// setRanges turns the calibration histograms into V ranges, clipping the
// fraction q.clip of the values at each end, and, with perChannel, folds
// each input channel's V scale into U before U is rounded again.
func (t *wgTower) setRanges() {
	for li := range t.layers {
		l := &t.layers[li]
		for r, h := range l.hist {
			var total int64
			for _, n := range h {
				total += int64(n)
			}
			if total == 0 {
				continue
			}
			cut := int64(t.q.clip * float64(total))
			lo, hi := 0, len(h)-1
			for s := int64(h[lo]); s <= cut && lo < hi; s += int64(h[lo]) {
				lo++
			}
			for s := int64(h[hi]); s <= cut && hi > lo; s += int64(h[hi]) {
				hi--
			}
			l.lo[r], l.hi[r] = float64(lo-wgVMax)*l.inScale, float64(hi-wgVMax)*l.inScale
		}
		levels := float64(int(1)<<t.q.vBits - 1)
		f := l.cin
		for p := range 16 {
			lo := make([]float64, f)
			steps := make([]float64, f)
			for c := range f {
				r := p * f
				if t.q.perChannel {
					r += c
				}
				lo[c], steps[c] = l.lo[r], max(l.hi[r]-l.lo[r], 1e-30)/levels
			}
			if t.q.perChannel {
				l.uq[p] = roundRows(l.u[p], steps, f, t.q.uBits)
			}
			for o := range l.cout {
				var s float64
				for c, u := range l.uq[p][o*f : (o+1)*f] {
					s += lo[c] * u
				}
				l.lowSum[p][o] = s
			}
		}
	}
}

// conv computes out = conv(in) + bias (+ out if acc), then ReLU if relu, for
// nb positions channels-last, through the Winograd domain of layer li.
func (t *wgTower) conv(li, nb int, in, out []float32, acc, relu bool) {
	l := &t.layers[li]
	h, w := t.m.shape.Height, t.m.shape.Width
	hw, f := h*w, l.cin
	tiles := t.ty * t.tx
	levels := float64(int(1)<<t.q.vBits - 1)
	for b := 0; b < nb; b++ {
		x := in[b*hw*f : (b+1)*hw*f]
		// V = B^T d B for every tile and input channel.
		for ty := 0; ty < t.ty; ty++ {
			for tx := 0; tx < t.tx; tx++ {
				tile := ty*t.tx + tx
				for c := 0; c < f; c++ {
					var d, vt [16]float64
					for r := range 4 {
						y := 2*ty - 1 + r
						if y < 0 || y >= h {
							continue
						}
						for s := range 4 {
							xx := 2*tx - 1 + s
							if xx < 0 || xx >= w {
								continue
							}
							v := float64(x[(y*w+xx)*f+c])
							if l.inScale > 0 {
								v = math.Min(math.Max(math.Round(v/l.inScale), 0), 255) * l.inScale
							}
							d[r*4+s] = v
						}
					}
					sandwich(wgBT, 4, 4, d[:], vt[:])
					for p, v := range vt {
						r := p * f
						if t.q.perChannel {
							r += c
						}
						switch {
						case t.calibrating:
							l.hist[r][int(math.Round(v/l.inScale))+wgVMax]++
						case t.q.vBits > 0:
							step := max(l.hi[r]-l.lo[r], 1e-30) / levels
							v = math.Min(math.Max(math.Round((v-l.lo[r])/step), 0), levels) * step
						}
						t.v[(p*tiles+tile)*f+c] = v
					}
				}
			}
		}
		// M[p] = V[p] U[p]^T: 16 products of tiles x in by in x out.
		for p := range 16 {
			for tile := 0; tile < tiles; tile++ {
				vr := t.v[(p*tiles+tile)*f : (p*tiles+tile+1)*f]
				for o := 0; o < l.cout; o++ {
					ur := l.uq[p][o*f : (o+1)*f]
					s := l.lowSum[p][o]
					for c, v := range vr {
						s += v * ur[c]
					}
					t.mm[(p*tiles+tile)*l.cout+o] = s
				}
			}
		}
		// Y = A^T M A, then bias, the residual and ReLU.
		y := out[b*hw*l.cout : (b+1)*hw*l.cout]
		for ty := 0; ty < t.ty; ty++ {
			for tx := 0; tx < t.tx; tx++ {
				tile := ty*t.tx + tx
				for o := 0; o < l.cout; o++ {
					var mt [16]float64
					var yt [4]float64
					for p := range mt {
						mt[p] = t.mm[(p*tiles+tile)*l.cout+o]
					}
					sandwich(wgAT, 2, 4, mt[:], yt[:])
					for i := range 2 {
						yy := 2*ty + i
						if yy >= h {
							continue
						}
						for j := range 2 {
							xx := 2*tx + j
							if xx >= w {
								continue
							}
							s := yt[i*2+j]
							k := (yy*w+xx)*l.cout + o
							v := float32(s) + l.bias[o]
							if acc {
								v += y[k]
							}
							if relu {
								v = max(v, 0)
							}
							y[k] = v
						}
					}
				}
			}
		}
	}
}

// run evaluates n positions of obs through FP32 stem and heads around the
// simulated Winograd tower, returning logits and values.
func (t *wgTower) run(obs []float32, n int) ([]float32, []float32) {
	m := t.m
	const batch = 64
	net := m.newNet(batch, batch)
	hw, p, f := m.hw, m.shape.Planes, m.cfg.Filters
	per, na := p*hw, m.shape.Actions
	logits, values := make([]float32, n*na), make([]float32, n)
	for s := 0; s < n; s += batch {
		nb := min(batch, n-s)
		o := obs[s*per : (s+nb)*per]
		rows := nb * hw
		in := net.in[:rows*p]
		for b := 0; b < nb; b++ {
			ob, d := o[b*per:(b+1)*per], in[b*per:(b+1)*per]
			for c := 0; c < p; c++ {
				for i, v := range ob[c*hw : (c+1)*hw] {
					d[i*p+c] = v
				}
			}
		}
		x, h := net.x[:rows*f], net.h[:rows*f]
		im2col(net.colStem, in, nb, m.stemCopies, hw*9*p, hw*p, 0)
		net.conv(rows, m.stem, net.colStem, x)
		for i, b := range m.blocks {
			pool := b.pool.k > 0
			t.conv(2*i, nb, x, h, false, !pool)
			if pool {
				net.globalPool(nb, b.pool, h)
			}
			t.conv(2*i+1, nb, h, x, true, true)
		}
		net.dense(rows, m.head, x, net.hd[:rows*m.heads], true)
		net.heads(nb, logits[s*na:(s+nb)*na], values[s:s+nb])
	}
	return logits, values
}

// TestWinogradExact checks the simulated tower without quantisation against
// the direct FP32 forward pass, on boards of even and odd sides (whose last
// tiles hang over the edge), with and without global pooling.
func TestWinogradExact(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape Shape
		pool  bool
	}{
		{"connect4-shape", connect4Shape, false},
		{"8x8-pooled", Shape{Planes: 3, Height: 8, Width: 8, Actions: 65}, true},
		{"9x9", Shape{Planes: 4, Height: 9, Width: 9, Actions: 82}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Filters, cfg.Blocks = 16, 2
			cfg.GlobalPooling = tc.pool
			w, err := NewWeights(cfg, tc.shape, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewModel(w)
			if err != nil {
				t.Fatal(err)
			}
			const n = 7
			obs := make([]float32, n*tc.shape.Planes*tc.shape.Height*tc.shape.Width)
			r := rand.New(rand.NewPCG(5, 6))
			for i := range obs {
				obs[i] = float32(r.IntN(2))
			}
			la, va, err := m.run(obs, n)
			if err != nil {
				t.Fatal(err)
			}
			lb, vb := newWGTower(m, wgQuant{}).run(obs, n)
			var worst float64
			for i := range la {
				worst = max(worst, math.Abs(float64(la[i]-lb[i])))
			}
			for i := range va {
				worst = max(worst, math.Abs(float64(va[i]-vb[i])))
			}
			if !(worst < 1e-4) {
				t.Fatalf("Winograd tower differs from the direct one by %g", worst)
			}
		})
	}
}

// TestWinogradReport runs the shipped networks' towers through int8
// Winograd, as a VPDPBUSD kernel would have to (8-bit transformed inputs),
// and through the direct int8 tower, and reports each against FP32 on
// precision auto's check positions, with the check's verdict.
// TABULA_WINOGRAD_REPORT=1 runs it.
func TestWinogradReport(t *testing.T) {
	if os.Getenv("TABULA_WINOGRAD_REPORT") != "1" {
		t.Skip("set TABULA_WINOGRAD_REPORT=1 to measure int8 Winograd on the shipped networks")
	}
	for _, tc := range []struct{ model, game string }{
		{"connect4", "connect4"}, {"othello8", "othello:size=8"}, {"go9", "go:size=9,komi=7"},
		{"go7", "go:size=7,komi=9"}, {"othello6", "othello:size=6"}, {"chess", "chess:maxplies=200"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			g, err := games.New(tc.game)
			if err != nil {
				t.Fatal(err)
			}
			ck, err := LoadCheckpoint(filepath.Join("..", "models", tc.model+".tbn"))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := NewModelFor(ck.Weights, g, "fp32")
			if err != nil {
				t.Fatal(err)
			}
			mq, err := NewModelFor(ck.Weights, g, "int8")
			if err != nil {
				t.Fatal(err)
			}
			calib, calibLegal, err := CalibrationPositions(g, calibPositions, calibSeed)
			if err != nil {
				t.Fatal(err)
			}
			obs, legal, err := CalibrationPositions(g, checkPositions, checkSeed)
			if err != nil {
				t.Fatal(err)
			}
			la, va, err := ref.run(obs, len(legal))
			if err != nil {
				t.Fatal(err)
			}
			verdict := func(a Agreement) string {
				if f := autoFailures(a); len(f) > 0 {
					return "fails: " + f[0]
				}
				return "passes"
			}
			na := ref.shape.Actions
			lq, vq, err := mq.run(obs, len(legal))
			if err != nil {
				t.Fatal(err)
			}
			a := compareOutputs(la, va, lq, vq, legal, na)
			h, w := ref.shape.Height, ref.shape.Width
			tiles := ((h + 1) / 2) * ((w + 1) / 2)
			t.Logf("%s (%dx%d, %d filters): multiplies a channel pair, direct %d, Winograd %d (%.2fx fewer)",
				tc.model, h, w, ref.cfg.Filters, 9*h*w, 16*tiles, float64(9*h*w)/float64(16*tiles))
			t.Logf("direct int8 (GPTQ): %v; %s", a, verdict(a))
			for _, q := range []wgQuant{
				{inScales: mq.InputScales(), description: "Winograd, uint8 input, exact transforms"},
				{inScales: mq.InputScales(), uBits: 8, description: "Winograd, uint8 input, 8-bit U"},
				{inScales: mq.InputScales(), uBits: 8, vBits: 10, description: "Winograd, uint8 input, 8-bit U, 10-bit V"},
				{inScales: mq.InputScales(), uBits: 8, vBits: 8, description: "8-bit U, 8-bit V (VPDPBUSD), V range per tile element"},
				{inScales: mq.InputScales(), uBits: 8, vBits: 8, clip: 1e-4, description: "the same, 1e-4 clipped at each end"},
				{inScales: mq.InputScales(), uBits: 8, vBits: 8, perChannel: true, description: "8-bit U, 8-bit V, V range per tile element and channel"},
			} {
				wt := newWGTower(ref, q)
				if q.vBits > 0 {
					wt.calibrating = true
					wt.run(calib, len(calibLegal))
					wt.calibrating = false
					wt.setRanges()
				}
				lb, vb := wt.run(obs, len(legal))
				a := compareOutputs(la, va, lb, vb, legal, na)
				t.Logf("%s: %v; %s", q.description, a, verdict(a))
			}
		})
	}
}
