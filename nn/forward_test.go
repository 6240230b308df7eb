package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"tabula/nn/gemm"
)

// randomWeights returns a network with random weights and random batch-norm
// parameters and running statistics, so that folding is exercised.
func randomWeights(t testing.TB, cfg Config, sh Shape, seed uint64) *Weights {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	w, err := NewWeights(cfg, sh, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range w.Tensors() {
		name := ts.Name
		switch {
		case strings.HasSuffix(name, ".gamma"):
			for i := range ts.Data {
				ts.Data[i] = float32(0.5 + rng.Float64())
			}
		case strings.HasSuffix(name, ".var"):
			for i := range ts.Data {
				ts.Data[i] = float32(0.2 + 2*rng.Float64())
			}
		case strings.HasSuffix(name, ".beta"), strings.HasSuffix(name, ".mean"), strings.HasSuffix(name, ".b"):
			for i := range ts.Data {
				ts.Data[i] = float32(0.3 * rng.NormFloat64())
			}
		}
	}
	return w
}

// randomObs returns n random observations: mostly 0/1 planes like the games
// write, with a few fractional values.
func randomObs(sh Shape, n int, rng *rand.Rand) []float32 {
	obs := make([]float32, n*sh.Planes*sh.Height*sh.Width)
	for i := range obs {
		switch rng.IntN(4) {
		case 0:
			obs[i] = 1
		case 1:
			obs[i] = float32(rng.Float64())
		}
	}
	return obs
}

// refForward is the network of the Weights doc comment written out directly in
// float64: direct convolutions over [channel][row][col] tensors with zero
// padding, batch normalisation with running statistics, no folding. The
// tower (global pooling included) is refTower's.
func refForward(w *Weights, obs []float32) (logits []float64, value float64) {
	h, wd := w.Shape.Height, w.Shape.Width
	x, hidden := refTower(w, obs)
	p := refConv(w.PolicyConv, x, h, wd)
	refBN(w.PolicyBN, p)
	refReLU(p)
	logits = refDense(w.PolicyFC, p)
	out := refDense(w.ValueFC2, hidden)
	if w.Config.WDL {
		// p(win) - p(loss) of the softmax, in float64.
		m := max(out[0], out[1], out[2])
		e0, e1, e2 := math.Exp(out[0]-m), math.Exp(out[1]-m), math.Exp(out[2]-m)
		return logits, (e0 - e2) / (e0 + e1 + e2)
	}
	return logits, math.Tanh(out[0])
}

// refConv is a direct convolution of in ([channel][row][col], h x wd) with
// zero padding, in float64.
func refConv(c Conv, in []float64, h, wd int) []float64 {
	out := make([]float64, c.Out*h*wd)
	pad := c.K / 2
	for o := 0; o < c.Out; o++ {
		for r := 0; r < h; r++ {
			for col := 0; col < wd; col++ {
				var s float64
				for i := 0; i < c.In; i++ {
					for ky := 0; ky < c.K; ky++ {
						for kx := 0; kx < c.K; kx++ {
							rr, cc := r+ky-pad, col+kx-pad
							if rr < 0 || rr >= h || cc < 0 || cc >= wd {
								continue
							}
							s += float64(c.W[((o*c.In+i)*c.K+ky)*c.K+kx]) * in[(i*h+rr)*wd+cc]
						}
					}
				}
				out[(o*h+r)*wd+col] = s
			}
		}
	}
	return out
}

// refBN applies batch normalisation with running statistics to x in place.
func refBN(b BatchNorm, x []float64) {
	n := len(x) / b.C
	for c := 0; c < b.C; c++ {
		for i := 0; i < n; i++ {
			v := &x[c*n+i]
			*v = float64(b.Gamma[c])*(*v-float64(b.Mean[c]))/math.Sqrt(float64(b.Var[c])+BatchNormEps) + float64(b.Beta[c])
		}
	}
}

func refReLU(x []float64) {
	for i, v := range x {
		x[i] = math.Max(v, 0)
	}
}

func refDense(d Dense, in []float64) []float64 {
	out := make([]float64, d.Out)
	for o := range out {
		s := float64(d.B[o])
		for i := 0; i < d.In; i++ {
			s += float64(d.W[o*d.In+i]) * in[i]
		}
		out[o] = s
	}
	return out
}

func TestForwardMatchesReference(t *testing.T) {
	shapes := []struct {
		name string
		sh   Shape
		cfg  Config
	}{
		{"connect4", Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}, Config{Filters: 16, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16}},
		{"othello8", Shape{Planes: 3, Height: 8, Width: 8, Actions: 65}, Config{Filters: 8, PolicyFilters: 2, ValueFilters: 2, ValueHidden: 8}},
		{"go9", Shape{Planes: 9, Height: 9, Width: 9, Actions: 82}, Config{Filters: 12, PolicyFilters: 3, ValueFilters: 1, ValueHidden: 10}},
		{"tiny5", Shape{Planes: 1, Height: 5, Width: 5, Actions: 25}, Config{Filters: 5, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 3}},
		{"strip1x4", Shape{Planes: 2, Height: 1, Width: 4, Actions: 4}, Config{Filters: 3, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 2}},
		{"connect4-wdl", Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}, Config{Filters: 16, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16, WDL: true}},
		{"go5-wdl", Shape{Planes: 3, Height: 5, Width: 5, Actions: 26}, Config{Filters: 8, PolicyFilters: 2, ValueFilters: 2, ValueHidden: 5, WDL: true}},
		{"go9-se", Shape{Planes: 9, Height: 9, Width: 9, Actions: 82}, Config{Filters: 12, PolicyFilters: 3, ValueFilters: 1, ValueHidden: 10, SqueezeExcite: true}},
		{"connect4-se-pool", Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}, Config{Filters: 16, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16, SqueezeExcite: true, GlobalPooling: true}},
	}
	seed := uint64(1)
	for _, s := range shapes {
		for blocks := 0; blocks <= 3; blocks++ {
			for _, batch := range []int{1, 13} {
				seed++
				t.Run(fmt.Sprintf("%s/blocks=%d/batch=%d", s.name, blocks, batch), func(t *testing.T) {
					cfg := s.cfg
					cfg.Blocks = blocks
					if cfg.GlobalPooling && blocks < 2 {
						t.Skip("global pooling needs 2 blocks")
					}
					w := randomWeights(t, cfg, s.sh, seed)
					rng := rand.New(rand.NewPCG(seed, 7))
					obs := randomObs(s.sh, batch, rng)
					// A max batch that is not a multiple of the chunk, and a
					// chunk of 4 positions, to exercise partial chunks.
					m, err := NewModel(w)
					if err != nil {
						t.Fatal(err)
					}
					for _, net := range []*Net{mustNet(t, m, batch+2), m.newNet(batch, 4)} {
						checkForward(t, w, net, obs, batch)
					}
				})
			}
		}
	}
}

func mustNet(t testing.TB, m *Model, maxBatch int) *Net {
	t.Helper()
	n, err := m.NewNet(maxBatch)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func checkForward(t *testing.T, w *Weights, net *Net, obs []float32, batch int) {
	t.Helper()
	sh := w.Shape
	per := sh.Planes * sh.Height * sh.Width
	logits := make([]float32, batch*sh.Actions+1)
	values := make([]float32, batch+1)
	logits[len(logits)-1], values[batch] = 42, 42 // must stay untouched
	if err := net.Forward(obs, batch, logits[:batch*sh.Actions], values[:batch]); err != nil {
		t.Fatal(err)
	}
	if logits[len(logits)-1] != 42 || values[batch] != 42 {
		t.Fatal("Forward wrote past the batch")
	}
	for b := 0; b < batch; b++ {
		wantL, wantV := refForward(w, obs[b*per:(b+1)*per])
		for a, want := range wantL {
			if got := logits[b*sh.Actions+a]; math.Abs(float64(got)-want) > 1e-4*(1+math.Abs(want)) {
				t.Fatalf("position %d: logit[%d] = %g, want %g", b, a, got, want)
			}
		}
		if got := values[b]; math.Abs(float64(got)-wantV) > 1e-4 {
			t.Fatalf("position %d: value = %g, want %g", b, got, wantV)
		}
	}
}

func TestForwardDefaultConnect4(t *testing.T) {
	sh := Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}
	w := randomWeights(t, DefaultConfig(), sh, 5)
	net, err := NewNet(w, 20)
	if err != nil {
		t.Fatal(err)
	}
	obs := randomObs(sh, 20, rand.New(rand.NewPCG(3, 4)))
	checkForward(t, w, net, obs, 20)
	// A worker shares the model and gives the same results.
	checkForward(t, w, net.NewWorker(), obs, 11)
}

func TestForwardErrors(t *testing.T) {
	sh := Shape{Planes: 2, Height: 3, Width: 3, Actions: 9}
	cfg := Config{Filters: 4, Blocks: 1, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 4}
	w := randomWeights(t, cfg, sh, 1)
	net, err := NewNet(w, 4)
	if err != nil {
		t.Fatal(err)
	}
	obs, logits, values := make([]float32, 4*18), make([]float32, 4*9), make([]float32, 4)
	cases := []struct {
		name    string
		obs     []float32
		batch   int
		logits  []float32
		values  []float32
		wantErr string
	}{
		{"zero batch", obs, 0, logits, values, "batch = 0"},
		{"batch over max", obs, 5, logits, values, "batch = 5"},
		{"short obs", obs[:35], 2, logits, values, "observation"},
		{"short logits", obs, 2, logits[:17], values, "logits"},
		{"short values", obs, 2, logits, values[:1], "values"},
	}
	for _, c := range cases {
		err := net.Forward(c.obs, c.batch, c.logits, c.values)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.wantErr)
		}
	}
	if err := net.Forward(obs, 4, logits, values); err != nil {
		t.Errorf("good call: %v", err)
	}
}

func TestNewModelRejectsBadWeights(t *testing.T) {
	sh := Shape{Planes: 2, Height: 3, Width: 3, Actions: 9}
	cfg := Config{Filters: 4, Blocks: 2, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 4}
	cases := []struct {
		name    string
		mutate  func(w *Weights)
		wantErr string
	}{
		{"missing block", func(w *Weights) { w.Blocks = w.Blocks[:1] }, "blocks"},
		{"short conv", func(w *Weights) { w.Blocks[1].Conv2.W = w.Blocks[1].Conv2.W[1:] }, "block1.conv2.w"},
		{"wrong conv kernel", func(w *Weights) { w.Stem.K = 1 }, "stem.w"},
		{"short dense bias", func(w *Weights) { w.PolicyFC.B = nil }, "policy.fc.b"},
		{"negative variance", func(w *Weights) { w.ValueBN.Var[0] = -1 }, "value.bn.var"},
		{"NaN variance", func(w *Weights) { w.StemBN.Var[2] = float32(math.NaN()) }, "stem.bn.var"},
		{"bad config", func(w *Weights) { w.Config.Filters = 0 }, "filters"},
		{"bad shape", func(w *Weights) { w.Shape.Actions = 0 }, "shape"},
	}
	for _, c := range cases {
		w := randomWeights(t, cfg, sh, 1)
		c.mutate(w)
		_, err := NewModel(w)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.wantErr)
		}
	}
	if _, err := NewModel(nil); err == nil {
		t.Error("NewModel(nil) succeeded")
	}
	m, err := NewModel(randomWeights(t, cfg, sh, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, mb := range []int{0, -1} {
		if _, err := m.NewNet(mb); err == nil {
			t.Errorf("NewNet(%d) succeeded", mb)
		}
	}
}

// TestForwardModelIndependentOfWeights checks that a Model keeps its values
// when the Weights it came from are changed afterwards (training goes on).
func TestForwardModelIndependentOfWeights(t *testing.T) {
	sh := Shape{Planes: 2, Height: 4, Width: 4, Actions: 16}
	cfg := Config{Filters: 4, Blocks: 1, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 4}
	w := randomWeights(t, cfg, sh, 2)
	snapshot := w.Clone()
	net, err := NewNet(w, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range w.Tensors() {
		for i := range ts.Data {
			ts.Data[i] *= 1.5
		}
	}
	obs := randomObs(sh, 3, rand.New(rand.NewPCG(1, 1)))
	checkForward(t, snapshot, net, obs, 3)
}

// TestForwardAllocatesNothing checks that Forward allocates nothing, from
// the first call of a new Net on and after garbage collections (which empty
// any sync.Pool): its SGEMM scratch is its own, reserved when it is made. The
// second net's odd widths and wide policy need packed B panels and edge
// strips.
func TestForwardAllocatesNothing(t *testing.T) {
	if gemm.Kernel() == "generic" {
		t.Skip("the portable gemm fallback allocates; the assembly kernels do not")
	}
	for _, tc := range []struct {
		sh       Shape
		cfg      Config
		maxBatch int
	}{
		{Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}, Config{Filters: 16, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}, 32},
		{Shape{Planes: 3, Height: 5, Width: 5, Actions: 26}, Config{Filters: 20, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 20}, 40},
		{Shape{Planes: 9, Height: 7, Width: 7, Actions: 50}, Config{Filters: 16, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8,
			Ownership: true, Score: true, GlobalPooling: true}, 24},
		{Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}, Config{Filters: 16, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8, WDL: true}, 16},
		{Shape{Planes: 9, Height: 9, Width: 9, Actions: 82}, Config{Filters: 16, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8, SqueezeExcite: true}, 24},
	} {
		w := randomWeights(t, tc.cfg, tc.sh, 3)
		net, err := NewNet(w, tc.maxBatch)
		if err != nil {
			t.Fatal(err)
		}
		obs := randomObs(tc.sh, tc.maxBatch, rand.New(rand.NewPCG(1, 2)))
		logits, values := make([]float32, tc.maxBatch*tc.sh.Actions), make([]float32, tc.maxBatch)
		forward := func(batch int) {
			if err := net.Forward(obs, batch, logits, values); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		runtime.GC()
		if n := mallocs(func() { forward(tc.maxBatch) }); n != 0 {
			t.Errorf("%+v: first Forward made %d allocations, want 0", tc.cfg, n)
		}
		for _, batch := range []int{1, tc.maxBatch} {
			allocs := testing.AllocsPerRun(3, func() {
				runtime.GC()
				runtime.GC()
				forward(batch)
			})
			if allocs != 0 {
				t.Errorf("%+v batch %d: %v allocations per Forward, want 0", tc.cfg, batch, allocs)
			}
		}
	}
}

// mallocs returns the number of heap allocations f makes, counted as
// testing.AllocsPerRun does but without a warm-up call.
func mallocs(f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

func TestFLOPsPerPosition(t *testing.T) {
	// The Connect Four net counted by hand: stem 2*42*18*64, 10 convs of
	// 2*42*576*64, heads 2*42*64*3, policy FC 2*84*7, value FCs 2*42*64 + 2*64.
	sh := Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}
	w := randomWeights(t, DefaultConfig(), sh, 1)
	m, err := NewModel(w)
	if err != nil {
		t.Fatal(err)
	}
	want := int64(2*42*18*64 + 10*2*42*576*64 + 2*42*64*3 + 2*84*7 + 2*42*64 + 2*64)
	if got := m.FLOPsPerPosition(); got != want {
		t.Errorf("FLOPsPerPosition = %d, want %d", got, want)
	}
}

func TestBiasReLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{1, 3, 8, 16, 24, 64} {
		for _, rows := range []int{0, 1, 5} {
			x := make([]float32, rows*n)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			bias := make([]float32, n)
			for i := range bias {
				bias[i] = float32(rng.NormFloat64())
			}
			got := append([]float32(nil), x...)
			biasReLU(got, bias)
			for i, v := range x {
				want := float32(math.Max(float64(v+bias[i%n]), 0))
				if got[i] != want {
					t.Fatalf("n=%d rows=%d: x[%d] = %g, want %g", n, rows, i, got[i], want)
				}
			}
		}
	}
}

// TestSEKernels checks the squeeze-and-excitation kernels (assembly where
// the CPU has it) against float64 sums: column sums over 0 to 81 rows and
// x = ReLU(x + scale*v + bias), for widths that take the vector path and
// widths that do not.
func TestSEKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	normal := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	for _, n := range []int{1, 3, 8, 16, 24, 32, 64} {
		for _, rows := range []int{0, 1, 2, 3, 49, 81} {
			x, v, scale, bias := normal(rows*n), normal(rows*n), normal(n), normal(n)
			sum := normal(n) // overwritten
			ColumnSums(sum, x)
			for c := range n {
				var want float64
				for r := range rows {
					want += float64(x[r*n+c])
				}
				if math.Abs(float64(sum[c])-want) > 1e-5*(1+float64(rows)) {
					t.Fatalf("n=%d rows=%d: column %d sums to %g, want %g", n, rows, c, sum[c], want)
				}
			}
			got := append([]float32(nil), x...)
			SEApply(got, v, scale, bias)
			for i := range x {
				c := i % n
				want := math.Max(float64(x[i])+float64(scale[c])*float64(v[i])+float64(bias[c]), 0)
				if math.Abs(float64(got[i])-want) > 1e-6*(1+math.Abs(want)) {
					t.Fatalf("n=%d rows=%d: x[%d] = %g, want %g", n, rows, i, got[i], want)
				}
			}
		}
	}
}

// TestSigmoid checks SigmoidInPlace (the assembly kernel on lengths of 8,
// the generic code on the rest) and sigmoidGeneric against float64's
// 1/(1 + e^-x) from -100 to 100: within 3e-7 of the value (1e-30 where
// the float32 inputs saturate).
func TestSigmoid(t *testing.T) {
	var xs []float32
	for v := float32(-100); v <= 100; v += 0.00731 {
		xs = append(xs, v)
	}
	xs = append(xs, 0, -0, 87, -87, 88, -88, 1e-9, -1e-9)
	for _, tc := range []struct {
		name string
		f    func([]float32)
	}{{"SigmoidInPlace", SigmoidInPlace}, {"sigmoidGeneric", sigmoidGeneric}} {
		got := append([]float32(nil), xs...)
		tc.f(got)
		for i, v := range xs {
			want := 1 / (1 + math.Exp(-float64(v)))
			if d := math.Abs(float64(got[i]) - want); d > 3e-7*want && d > 1e-30 {
				t.Fatalf("%s(%g) = %g, want %g", tc.name, v, got[i], want)
			}
		}
	}
}
