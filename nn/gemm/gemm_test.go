package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// refGemm computes the expected C in float64, including bias and ReLU.
func refGemm(tc gemmCase, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32) []float64 {
	out := make([]float64, tc.m*tc.n)
	for i := 0; i < tc.m; i++ {
		for j := 0; j < tc.n; j++ {
			var s float64
			for l := 0; l < tc.k; l++ {
				var av, bv float32
				if tc.transA {
					av = a[l*lda+i]
				} else {
					av = a[i*lda+l]
				}
				if tc.transB {
					bv = b[j*ldb+l]
				} else {
					bv = b[l*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			s *= float64(tc.alpha)
			if tc.beta != 0 {
				s += float64(tc.beta) * float64(c[i*ldc+j])
			}
			if bias != nil {
				s += float64(bias[j])
			}
			if tc.relu && s < 0 {
				s = 0
			}
			out[i*tc.n+j] = s
		}
	}
	return out
}

func randSlice(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.Float64()*2 - 1)
	}
	return x
}

type gemmCase struct {
	transA, transB bool
	m, n, k        int
	pad            int
	alpha, beta    float32
	bias, relu     bool
}

func (tc gemmCase) String() string {
	return fmt.Sprintf("tA=%v,tB=%v,m=%d,n=%d,k=%d,pad=%d,alpha=%g,beta=%g,bias=%v,relu=%v",
		tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.pad, tc.alpha, tc.beta, tc.bias, tc.relu)
}

// runCase runs one case through sgemm with kernel id and scratch from ws
// (nil: the package's pool) and compares the result with refGemm. With a
// Workspace and the active kernel, the case goes through the Workspace's
// exported method that fits it, so those are checked on the same tables.
// C starts as NaN when beta == 0 to prove that C is not read, and the
// padding of C must be left alone.
func runCase(t *testing.T, r *rand.Rand, id kernelID, ws *Workspace, tc gemmCase) {
	t.Helper()
	ar, ac := tc.m, tc.k
	if tc.transA {
		ar, ac = tc.k, tc.m
	}
	br, bc := tc.k, tc.n
	if tc.transB {
		br, bc = tc.n, tc.k
	}
	lda, ldb, ldc := max(ac, 1)+tc.pad, max(bc, 1)+tc.pad, max(tc.n, 1)+tc.pad
	a := randSlice(r, ar*lda)
	b := randSlice(r, br*ldb)
	c := randSlice(r, tc.m*ldc)
	var bias []float32
	if tc.bias {
		bias = randSlice(r, tc.n)
	}
	if tc.beta == 0 {
		for i := range c {
			if i%ldc < tc.n {
				c[i] = float32(math.NaN())
			}
		}
	}
	want := refGemm(tc, a, lda, b, ldb, c, ldc, bias)
	orig := append([]float32(nil), c...)
	switch {
	case ws == nil || id != active:
		checkArgs(tc.transA, tc.transB, tc.m, tc.n, tc.k, a, lda, b, ldb, c, ldc)
		var s *workspace
		if ws != nil {
			s = &ws.ws
		}
		sgemm(id, s, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc, bias, tc.relu)
	case bias == nil && !tc.relu:
		ws.Sgemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
	case tc.alpha == 1 && tc.beta == 0 && !tc.transA && !tc.transB:
		ws.SgemmBiasReLU(tc.m, tc.n, tc.k, a, lda, b, ldb, bias, tc.relu, c, ldc)
	case tc.alpha == 1 && tc.beta == 0 && !tc.transA:
		ws.SgemmNTBiasReLU(tc.m, tc.n, tc.k, a, lda, b, ldb, bias, tc.relu, c, ldc)
	default:
		ws.SgemmFused(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc, bias, tc.relu)
	}
	tol := 1e-6 * float64(tc.k+4)
	for i := 0; i < tc.m; i++ {
		for j := 0; j < ldc; j++ {
			got := c[i*ldc+j]
			if j >= tc.n {
				if math.Float32bits(got) != math.Float32bits(orig[i*ldc+j]) {
					t.Fatalf("%s %v: padding C[%d][%d] changed", kernelNames[id], tc, i, j)
				}
				continue
			}
			w := want[i*tc.n+j]
			if d := math.Abs(float64(got) - w); !(d <= tol*(1+math.Abs(w))) {
				t.Fatalf("%s %v: C[%d][%d] = %g, want %g", kernelNames[id], tc, i, j, got, w)
			}
		}
	}
	census.Ran("sgemm", kernelNames[id])
}

func kernelsToTest(t *testing.T) []kernelID {
	var ids []kernelID
	for _, id := range []kernelID{kernelGeneric, kernelAVX2, kernelAVX512} {
		if available(id) {
			ids = append(ids, id)
		} else {
			t.Logf("kernel %s not available on this CPU/build", kernelNames[id])
		}
	}
	return ids
}

// TestKernelsExhaustiveSmall covers every transpose case and every small
// shape around the tile sizes.
func TestKernelsExhaustiveSmall(t *testing.T) {
	dims := []int{1, 2, 5, 6, 7, 16, 17}
	for _, id := range kernelsToTest(t) {
		t.Run(kernelNames[id], func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(id)))
			for _, tA := range []bool{false, true} {
				for _, tB := range []bool{false, true} {
					for _, m := range dims {
						for _, n := range dims {
							for _, k := range dims {
								tc := gemmCase{transA: tA, transB: tB, m: m, n: n, k: k, pad: (m + n + k) % 3, alpha: 1}
								runCase(t, r, id, nil, tc)
							}
						}
					}
				}
			}
		})
	}
}

// TestKernelsRandomShapes draws odd shapes up to 150 (and a few beyond the
// blocking sizes), strides, alpha, beta, bias and ReLU.
func TestKernelsRandomShapes(t *testing.T) {
	sizes := []int{1, 3, 4, 6, 11, 13, 16, 31, 37, 63, 64, 65, 97, 127, 128, 129, 131, 149, 150}
	alphas := []float32{1, -0.5, 2}
	betas := []float32{0, 1, 0.75}
	for _, id := range kernelsToTest(t) {
		t.Run(kernelNames[id], func(t *testing.T) {
			r := rand.New(rand.NewPCG(2, uint64(id)))
			var ws Workspace // reused across shapes, growing
			for iter := 0; iter < 120; iter++ {
				tc := gemmCase{
					transA: r.IntN(2) == 1, transB: r.IntN(2) == 1,
					m: sizes[r.IntN(len(sizes))], n: sizes[r.IntN(len(sizes))], k: sizes[r.IntN(len(sizes))],
					pad: r.IntN(4), alpha: alphas[r.IntN(3)], beta: betas[r.IntN(3)],
					bias: r.IntN(3) == 0, relu: r.IntN(3) == 0,
				}
				runCase(t, r, id, &ws, tc)
			}
			// Beyond one k block, one A block and one B block.
			big := []gemmCase{
				{m: 200, n: 70, k: 300, alpha: 1, transA: true, bias: true, relu: true},
				{m: 13, n: 600, k: 260, alpha: 1, beta: 1, transB: true},
				{m: 90, n: 530, k: 129, alpha: 0.5, beta: 0.75, transA: true, transB: true, pad: 1},
				{m: 42, n: 64, k: 576, alpha: 1, bias: true, relu: true},
				{m: 5, n: 7, k: 2688, alpha: 1, transB: true, bias: true},
				{m: 33, n: 2, k: 64, alpha: 1, bias: true},
			}
			for _, tc := range big {
				runCase(t, r, id, &ws, tc)
			}
		})
	}
}

// TestSmallNPaths covers the dot-product path, including n values around
// its 4x4 blocks and k around the vector width, in both layouts of B.
func TestSmallNPaths(t *testing.T) {
	for _, id := range kernelsToTest(t) {
		t.Run(kernelNames[id], func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, uint64(id)))
			var ws Workspace
			for _, tB := range []bool{true, false} {
				for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17} {
					for _, k := range []int{1, 15, 16, 17, 84, 129} {
						for _, m := range []int{1, 3, 4, 9, 17} {
							tc := gemmCase{transB: tB, m: m, n: n, k: k, pad: k % 2, alpha: 1.5, beta: float32(m % 2), bias: n%2 == 1, relu: k%2 == 1}
							runCase(t, r, id, &ws, tc)
						}
					}
				}
			}
		})
	}
}

// TestZeroSizes checks k == 0 and alpha == 0 (C = beta*C) and empty C.
func TestZeroSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, id := range kernelsToTest(t) {
		for _, tc := range []gemmCase{
			{m: 3, n: 5, k: 0, alpha: 1, beta: 0.5},
			{m: 3, n: 5, k: 0, alpha: 1, beta: 0, bias: true, relu: true},
			{m: 4, n: 9, k: 7, alpha: 0, beta: 2},
			{m: 0, n: 9, k: 7, alpha: 1},
			{m: 4, n: 0, k: 7, alpha: 1},
		} {
			runCase(t, r, id, nil, tc)
		}
	}
}

// TestExported checks the exported entry points against the reference.
func TestExported(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const m, n, k = 20, 19, 33
	a, b, w := randSlice(r, m*k), randSlice(r, k*n), randSlice(r, n*k)
	bias := randSlice(r, n)
	c1, c2, c3 := make([]float32, m*n), make([]float32, m*n), make([]float32, m*n)
	resid := randSlice(r, m*n)
	c4 := append([]float32(nil), resid...)
	Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, c1, n)
	SgemmBiasReLU(m, n, k, a, k, b, n, bias, true, c2, n)
	// w holds B^T.
	for l := 0; l < k; l++ {
		for j := 0; j < n; j++ {
			w[j*k+l] = b[l*n+j]
		}
	}
	SgemmNTBiasReLU(m, n, k, a, k, w, k, bias, true, c3, n)
	SgemmFused(false, true, m, n, k, 1, a, k, w, k, 1, c4, n, bias, true)
	for i := range c1 {
		if want := max(c1[i]+bias[i%n]+resid[i], 0); math.Abs(float64(c4[i]-want)) > 1e-5 {
			t.Fatalf("SgemmFused[%d] = %g, want %g", i, c4[i], want)
		}
		want := max(c1[i]+bias[i%n], 0)
		if d := math.Abs(float64(c2[i] - want)); d > 1e-5 {
			t.Fatalf("SgemmBiasReLU[%d] = %g, want %g", i, c2[i], want)
		}
		if d := math.Abs(float64(c3[i] - want)); d > 1e-5 {
			t.Fatalf("SgemmNTBiasReLU[%d] = %g, want %g", i, c3[i], want)
		}
	}
	if got := Kernel(); got != kernelNames[active] {
		t.Fatalf("Kernel() = %q", got)
	}
	t.Logf("kernel in use: %s", Kernel())
}

func TestPanicsOnShortSlices(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"short a", func() {
			Sgemm(false, false, 2, 2, 2, 1, make([]float32, 3), 2, make([]float32, 4), 2, 0, make([]float32, 4), 2)
		}},
		{"short c", func() {
			Sgemm(false, false, 2, 2, 2, 1, make([]float32, 4), 2, make([]float32, 4), 2, 0, make([]float32, 3), 2)
		}},
		{"small lda", func() {
			Sgemm(true, false, 3, 2, 2, 1, make([]float32, 6), 2, make([]float32, 4), 2, 0, make([]float32, 6), 2)
		}},
		{"negative", func() { Sgemm(false, false, -1, 2, 2, 1, nil, 2, nil, 2, 0, nil, 2) }},
		{"short bias", func() {
			SgemmBiasReLU(1, 2, 1, make([]float32, 1), 1, make([]float32, 2), 2, make([]float32, 1), false, make([]float32, 2), 2)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.f()
		})
	}
}

// TestConcurrentCalls runs Sgemm from several goroutines at once (each with
// its own output) and checks every result against a sequential run, which
// exercises the shared workspace pool.
func TestConcurrentCalls(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	const workers, m, n, k = 4, 50, 70, 300
	a, b := randSlice(r, m*k), randSlice(r, n*k)
	want := make([]float32, m*n)
	Sgemm(false, true, m, n, k, 1, a, k, b, k, 0, want, n)
	errs := make(chan string, workers)
	for w := 0; w < workers; w++ {
		go func() {
			c := make([]float32, m*n)
			for rep := 0; rep < 20; rep++ {
				Sgemm(false, true, m, n, k, 1, a, k, b, k, 0, c, n)
				for i := range c {
					if c[i] != want[i] {
						errs <- fmt.Sprintf("rep %d: c[%d] = %g, want %g", rep, i, c[i], want[i])
						return
					}
				}
			}
			errs <- ""
		}()
	}
	for w := 0; w < workers; w++ {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}

// TestNoAllocs checks that steady-state calls allocate nothing on the
// network's shapes.
func TestNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under -race")
	}
	if active == kernelGeneric {
		t.Skip("the gonum fallback allocates on large products")
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, sh := range []struct {
		transA, transB bool
		m, n, k        int
	}{
		{false, false, 42 * 8, 64, 576},
		{false, true, 8, 7, 2688},
		{false, true, 42 * 8, 2, 64},
		{true, false, 64, 65, 300},
		{true, true, 37, 70, 130},
	} {
		lda, ldb := sh.k, sh.n
		if sh.transA {
			lda = sh.m
		}
		if sh.transB {
			ldb = sh.k
		}
		a, b, c := randSlice(r, sh.m*sh.k), randSlice(r, sh.k*sh.n), make([]float32, sh.m*sh.n)
		bias := randSlice(r, sh.n)
		allocs := testing.AllocsPerRun(20, func() {
			Sgemm(sh.transA, sh.transB, sh.m, sh.n, sh.k, 0.5, a, lda, b, ldb, 1, c, sh.n)
			if !sh.transA && !sh.transB {
				SgemmBiasReLU(sh.m, sh.n, sh.k, a, lda, b, ldb, bias, true, c, sh.n)
			}
		})
		if allocs != 0 {
			t.Errorf("%+v: %v allocations per call", sh, allocs)
		}
	}
}

// TestWorkspaceReserve checks that a Workspace reserved for a shape
// computes products of that shape, with any m and layout, without growing,
// and that its methods allocate nothing (also under the race detector).
func TestWorkspaceReserve(t *testing.T) {
	if active == kernelGeneric {
		t.Skip("the gonum fallback allocates on large products")
	}
	r := rand.New(rand.NewPCG(9, 9))
	for _, sh := range []struct{ n, k int }{{64, 576}, {48, 432}, {80, 720}, {7, 2688}, {2, 64}, {3, 5000}, {150, 300}} {
		var ws Workspace
		ws.Reserve(sh.n, sh.k)
		b, edge, bt := ws.ws.b, ws.ws.edge, ws.ws.bt
		for _, m := range []int{1, 5, 6, 31, 33, 100} {
			for bits := 0; bits < 4; bits++ {
				tA, tB := bits&1 != 0, bits&2 != 0
				a, w, c := randSlice(r, m*sh.k), randSlice(r, sh.n*sh.k), make([]float32, m*sh.n)
				bias := randSlice(r, sh.n)
				lda, ldb := sh.k, sh.n
				if tA {
					lda = m
				}
				if tB {
					ldb = sh.k
				}
				// Three runs: an allocation by the product shows in each (at
				// least 3/3), while one the runtime makes elsewhere in the
				// process during the count (seen once in CI) rounds down to 0.
				allocs := testing.AllocsPerRun(3, func() {
					ws.SgemmFused(tA, tB, m, sh.n, sh.k, 1, a, lda, w, ldb, 0, c, sh.n, bias, true)
					if !tA && !tB {
						ws.SgemmBiasReLU(m, sh.n, sh.k, a, lda, w, ldb, bias, true, c, sh.n)
					}
					if !tA && tB {
						ws.SgemmNTBiasReLU(m, sh.n, sh.k, a, lda, w, ldb, bias, false, c, sh.n)
					}
					ws.Sgemm(tA, tB, m, sh.n, sh.k, 0.5, a, lda, w, ldb, 1, c, sh.n)
				})
				if allocs != 0 {
					t.Errorf("n=%d k=%d m=%d tA=%v tB=%v: %v allocations", sh.n, sh.k, m, tA, tB, allocs)
				}
				if !sameBuffer(ws.ws.b, b) || !sameBuffer(ws.ws.edge, edge) || !sameBuffer(ws.ws.bt, bt) {
					t.Fatalf("n=%d k=%d m=%d tA=%v tB=%v: the reserved workspace grew", sh.n, sh.k, m, tA, tB)
				}
			}
		}
	}
}

// TestReserveEveryKernel checks reserve's sizes for each vector kernel (the
// AVX2 tiles are narrower, so its column blocks and packed panels differ).
func TestReserveEveryKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	for _, id := range kernelsToTest(t) {
		if id == kernelGeneric {
			continue
		}
		for _, sh := range []struct{ n, k int }{{48, 432}, {81, 243}, {4, 100}, {150, 4100}} {
			var ws workspace
			ws.reserve(id, sh.n, sh.k)
			b, edge, bt := ws.b, ws.edge, ws.bt
			for _, m := range []int{5, 40} {
				for bits := 0; bits < 4; bits++ {
					tA, tB := bits&1 != 0, bits&2 != 0
					a, w, c := randSlice(r, m*sh.k), randSlice(r, sh.n*sh.k), make([]float32, m*sh.n)
					lda, ldb := sh.k, sh.n
					if tA {
						lda = m
					}
					if tB {
						ldb = sh.k
					}
					sgemm(id, &ws, tA, tB, m, sh.n, sh.k, 1, a, lda, w, ldb, 0, c, sh.n, nil, false)
					if !sameBuffer(ws.b, b) || !sameBuffer(ws.edge, edge) || !sameBuffer(ws.bt, bt) {
						t.Fatalf("%s n=%d k=%d m=%d tA=%v tB=%v: the reserved workspace grew", kernelNames[id], sh.n, sh.k, m, tA, tB)
					}
				}
			}
		}
	}
}

// sameBuffer reports whether x is y or a reslice of it (nil matches nil).
func sameBuffer(x, y []float32) bool {
	if cap(x) == 0 || cap(y) == 0 {
		return cap(x) == cap(y)
	}
	return &x[:cap(x)][cap(x)-1] == &y[:cap(y)][cap(y)-1]
}

// TestPanelWidths covers n around the 16-, 32-, 48- and 64-column tiles,
// where the last panels use narrower kernels, read in place or packed, and
// several column blocks (k = 4100 makes them 64 columns wide).
func TestPanelWidths(t *testing.T) {
	for _, id := range kernelsToTest(t) {
		r := rand.New(rand.NewPCG(8, uint64(id)))
		var ws Workspace
		for _, tc := range []gemmCase{
			{m: 13, n: 150, k: 4100, alpha: 1, bias: true, relu: true},
			{m: 7, n: 150, k: 4100, alpha: 1, beta: 1, transA: true, transB: true, pad: 2},
		} {
			runCase(t, r, id, &ws, tc)
		}
		for _, n := range []int{15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 79, 80, 95, 96, 112, 127, 129} {
			for _, m := range []int{6, 13} {
				for _, k := range []int{5, 300} {
					for bits := 0; bits < 4; bits++ {
						tc := gemmCase{transA: bits&1 != 0, transB: bits&2 != 0, m: m, n: n, k: k, pad: n % 3,
							alpha: 1, beta: float32(k%2) / 2, bias: n%2 == 0, relu: m%2 == 0}
						runCase(t, r, id, &ws, tc)
					}
				}
			}
		}
	}
}
