package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// lowKernelsToTest returns the reduced-precision kernels this machine runs,
// restoring the active one when the test ends.
func lowKernelsToTest(t *testing.T) []string {
	t.Helper()
	prev := LowPrecisionKernel()
	t.Cleanup(func() {
		if _, err := ForceLowPrecision(prev); err != nil {
			t.Fatal(err)
		}
	})
	ks := []string{"generic"}
	if HasLowPrecisionKernels() {
		ks = append(ks, "avx512")
	} else {
		t.Log("no AVX512_BF16/VNNI kernels on this CPU or build")
	}
	if HasAVX2Int8Kernel() {
		ks = append(ks, "avx2")
	} else {
		t.Log("no AVX2 int8 kernel on this CPU or build")
	}
	return ks
}

// useLow selects the reduced-precision kernel name for the products the
// test then checks, and records it in the census.
func useLow(t *testing.T, name string) {
	t.Helper()
	if _, err := ForceLowPrecision(name); err != nil {
		t.Fatal(err)
	}
	census.Ran("lowp", name)
}

func TestToBF16(t *testing.T) {
	for _, tc := range []struct {
		in   uint32
		want uint16
	}{
		{0x3f800000, 0x3f80}, // 1
		{0x3f808000, 0x3f80}, // tie, even below
		{0x3f818000, 0x3f82}, // tie, odd below: up
		{0x3f808001, 0x3f81}, // above the tie
		{0x3f807fff, 0x3f80}, // below the tie
		{0xbf808001, 0xbf81}, // negative
		{0x7f7fffff, 0x7f80}, // largest float rounds to +Inf
		{0x7f800000, 0x7f80}, // +Inf
		{0x00000001, 0x0000}, // denormal: flushed to zero
		{0x807fffff, 0x8000}, // negative denormal
	} {
		if got := ToBF16(math.Float32frombits(tc.in)); got != tc.want {
			t.Errorf("ToBF16(%#08x) = %#04x, want %#04x", tc.in, got, tc.want)
		}
	}
	if nan := ToBF16(float32(math.NaN())); nan&0x7f80 != 0x7f80 || nan&0x7f == 0 {
		t.Errorf("ToBF16(NaN) = %#04x, not a NaN", nan)
	}
}

// TestConvertBF16 checks the vector conversion against ToBF16 on random
// values, ties and odd lengths.
func TestConvertBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	src := make([]float32, 1000)
	for i := range src {
		switch i % 4 {
		case 0:
			src[i] = float32(r.NormFloat64() * 10)
		case 1:
			src[i] = math.Float32frombits(r.Uint32()&0xffff0000 | 0x8000) // ties
		default:
			src[i] = math.Float32frombits(r.Uint32() &^ 0x40000000) // no NaN or Inf
		}
	}
	for _, k := range lowKernelsToTest(t) {
		useLow(t, k)
		for _, n := range []int{0, 1, 15, 16, 17, 100, 1000} {
			dst := make([]uint16, n)
			ConvertBF16(dst, src[:n])
			for i := range dst {
				if want := ToBF16(src[i]); dst[i] != want {
					t.Fatalf("%s: n=%d: bf16(%#08x) = %#04x, want %#04x", k, n, math.Float32bits(src[i]), dst[i], want)
				}
			}
		}
	}
}

func TestQuantizeU8(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	src := make([]float32, 333)
	for i := range src {
		src[i] = float32(r.NormFloat64() * 3)
	}
	src[3], src[4], src[5], src[6] = float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e30
	src[7], src[8] = 0.5*0.02, 1.5*0.02 // ties at scale 0.02 (not exact in binary, so no tie test here)
	want := func(x, scale float32) uint8 {
		v := float64(x * (1 / scale))
		switch {
		case math.IsNaN(v) || v >= 255:
			return 255
		case v <= 0:
			return 0
		}
		return uint8(math.RoundToEven(v))
	}
	for _, k := range lowKernelsToTest(t) {
		useLow(t, k)
		for _, n := range []int{1, 16, 31, 333} {
			dst := make([]uint8, n)
			QuantizeU8(dst, src[:n], 0.02)
			for i := range dst {
				if w := want(src[i], 0.02); dst[i] != w {
					t.Fatalf("%s: quantize %g = %d, want %d", k, src[i], dst[i], w)
				}
			}
		}
	}
}

type lowCase struct {
	m, n, k    int
	acc, relu  bool
	bias, padA bool
}

func (c lowCase) String() string {
	return fmt.Sprintf("m%d_n%d_k%d_acc%v_relu%v_bias%v_pad%v", c.m, c.n, c.k, c.acc, c.relu, c.bias, c.padA)
}

func lowCases() []lowCase {
	var cs []lowCase
	for i, m := range []int{1, 5, 6, 7, 13, 48, 49, 100} {
		for j, n := range []int{1, 7, 16, 17, 33, 48, 63, 64, 65, 80, 130} {
			for l, k := range []int{1, 2, 3, 5, 8, 17, 64, 255, 576, 1290} {
				if (i+j+l)%3 != 0 { // a third of the grid, every size seen
					continue
				}
				s := i + 2*j + 3*l
				cs = append(cs, lowCase{m: m, n: n, k: k, acc: s%2 == 0, relu: s%3 == 0, bias: s%5 != 0, padA: s%7 == 0})
			}
		}
	}
	return cs
}

// lowOperands returns A (m x k, stride lda >= kp, zero past k), B (k x n),
// C, bias for case c.
func lowOperands(r *rand.Rand, c lowCase, kp int, nonNeg bool) (a []float32, lda int, b, cm, bias []float32) {
	lda = kp
	if c.padA {
		lda += 5
	}
	a = make([]float32, c.m*lda)
	for i := 0; i < c.m; i++ {
		for l := 0; l < c.k; l++ {
			v := float32(r.NormFloat64())
			if nonNeg {
				v = float32(r.Float64() * 3)
			}
			a[i*lda+l] = v
		}
	}
	b = randSlice(r, c.k*c.n)
	cm = randSlice(r, c.m*c.n)
	if c.bias {
		bias = randSlice(r, c.n)
	}
	return
}

// lowRef computes the expected C in float64 from the values the kernels
// multiply (af, bf: A and B as the low-precision values mean them).
func lowRef(c lowCase, af func(i, l int) float64, bf func(l, j int) float64, c0, bias []float32) []float64 {
	out := make([]float64, c.m*c.n)
	for i := 0; i < c.m; i++ {
		for j := 0; j < c.n; j++ {
			var s float64
			for l := 0; l < c.k; l++ {
				s += af(i, l) * bf(l, j)
			}
			out[i*c.n+j] = lowFinish(c, i, j, s, c0, bias)
		}
	}
	return out
}

// lowFinish applies case c's epilogue to the product s at C[i][j]: + C (acc),
// + bias, then ReLU.
func lowFinish(c lowCase, i, j int, s float64, c0, bias []float32) float64 {
	if c.acc {
		s += float64(c0[i*c.n+j])
	}
	if bias != nil {
		s += float64(bias[j])
	}
	if c.relu && s < 0 {
		s = 0
	}
	return s
}

// lowRefInt8 computes the expected C of an int8 product from A's uint8 and
// B's int8 values (af, bf) as integer sums, each pair of products (k = 4s,
// 4s+1 and 4s+2, 4s+3) clamped to the int16 range if clamp.
func lowRefInt8(c lowCase, af func(i, l int) float64, bf func(l, j int) float64, aScale float32, sc []float32, clamp bool, c0, bias []float32) []float64 {
	out := make([]float64, c.m*c.n)
	for i := 0; i < c.m; i++ {
		for j := 0; j < c.n; j++ {
			var sum float64
			for l := 0; l < c.k; l += 2 {
				p := af(i, l) * bf(l, j)
				if l+1 < c.k {
					p += af(i, l+1) * bf(l+1, j)
				}
				if clamp {
					p = max(-32768, min(32767, p))
				}
				sum += p
			}
			s := float64(float32(sum) * (aScale * sc[j]))
			out[i*c.n+j] = lowFinish(c, i, j, s, c0, bias)
		}
	}
	return out
}

func TestGemmBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	var ws Workspace
	for _, kern := range lowKernelsToTest(t) {
		useLow(t, kern)
		for _, c := range lowCases() {
			pb := PackBF16Check(t, r, c)
			a, lda, b, c0, bias := lowOperands(r, c, pb.KPad(), false)
			pb = PackBF16(b, c.k, c.n, c.n, false)
			ab := make([]uint16, len(a))
			ConvertBF16(ab, a)
			buf, ldc := guardedC(c0, c.m, c.n)
			ws.GemmBF16(c.m, ab, lda, pb, c.acc, bias, c.relu, buf[:len(buf)-guardLen], ldc)
			got := unguardC(t, kern, c, buf, ldc)
			want := lowRef(c, func(i, l int) float64 { return float64(FromBF16(ab[i*lda+l])) },
				func(l, j int) float64 { return float64(FromBF16(ToBF16(b[l*c.n+j]))) }, c0, bias)
			for i, w := range want {
				// fp32 sums of k exact products of magnitude ~1.
				if d := math.Abs(float64(got[i]) - w); d > 1e-5*float64(c.k+4) {
					t.Fatalf("%s %v: C[%d][%d] = %g, want %g", kern, c, i/c.n, i%c.n, got[i], w)
				}
			}
			// The real product: bf16 keeps 8 bits, so each product is
			// within ~2^-8 relative.
			exact := lowRef(c, func(i, l int) float64 { return float64(a[i*lda+l]) },
				func(l, j int) float64 { return float64(b[l*c.n+j]) }, c0, bias)
			for i, w := range exact {
				if d := math.Abs(float64(got[i]) - w); d > 0.03*math.Sqrt(float64(c.k))+1e-3 {
					t.Fatalf("%s %v: C[%d][%d] = %g, exact %g: too far", kern, c, i/c.n, i%c.n, got[i], w)
				}
			}
		}
	}
}

// guardLen is how many guard values guardedC puts after the last row of C
// and between its rows.
const guardLen = 16

// guardValue marks the guard values: a kernel that writes past the columns
// of C changes them.
const guardValue = float32(-1234.5)

// guardedC returns C (m x n, the values of c0) stored with row stride n +
// guardLen, the gaps and guardLen values past the last row set to
// guardValue. The product gets buf without its last guardLen values, so a
// write past the end of C lands in the guard, not outside the slice.
func guardedC(c0 []float32, m, n int) (buf []float32, ldc int) {
	ldc = n + guardLen
	buf = make([]float32, (m-1)*ldc+n+guardLen)
	for i := range buf {
		buf[i] = guardValue
	}
	for i := 0; i < m; i++ {
		copy(buf[i*ldc:i*ldc+n], c0[i*n:(i+1)*n])
	}
	return buf, ldc
}

// unguardC checks that the guard values of buf (from guardedC) are
// untouched and returns C packed m x n.
func unguardC(t *testing.T, kern string, c lowCase, buf []float32, ldc int) []float32 {
	t.Helper()
	got := make([]float32, c.m*c.n)
	for i := 0; i < c.m; i++ {
		copy(got[i*c.n:(i+1)*c.n], buf[i*ldc:i*ldc+c.n])
		end := min(len(buf), (i+1)*ldc)
		for j := i*ldc + c.n; j < end; j++ {
			if buf[j] != guardValue {
				t.Fatalf("%s %v: wrote %g past the %d columns of C, in row %d at column %d", kern, c, buf[j], c.n, i, j-i*ldc)
			}
		}
	}
	return got
}

// PackBF16Check packs a transposed copy of a random B both ways and checks
// the two packings agree, returning one.
func PackBF16Check(t *testing.T, r *rand.Rand, c lowCase) *PackedBF16 {
	t.Helper()
	b := randSlice(r, c.k*c.n)
	bt := make([]float32, len(b))
	for l := 0; l < c.k; l++ {
		for j := 0; j < c.n; j++ {
			bt[j*c.k+l] = b[l*c.n+j]
		}
	}
	p, q := PackBF16(b, c.k, c.n, c.n, false), PackBF16(bt, c.k, c.n, c.k, true)
	for i := range p.data {
		if p.data[i] != q.data[i] {
			t.Fatalf("%v: packing of B and of B^T differ at %d", c, i)
		}
	}
	return p
}

func TestGemmInt8(t *testing.T) {
	var ws Workspace
	results := map[string][][]float32{}
	kerns := lowKernelsToTest(t)
	for _, kern := range kerns {
		useLow(t, kern)
		r := rand.New(rand.NewPCG(5, 5))
		for _, c := range lowCases() {
			pb := PackInt8(randSlice(r, c.k*c.n), c.k, c.n, c.n, false)
			a, lda, b, c0, bias := lowOperands(r, c, pb.KPad(), true)
			pb = PackInt8(b, c.k, c.n, c.n, false)
			const aScale = 3.0 / 255
			aq := make([]uint8, len(a))
			QuantizeU8(aq, a, aScale)
			// Garbage past k must not matter: B is zero there.
			for i := 0; i < c.m; i++ {
				for l := c.k; l < pb.KPad(); l++ {
					aq[i*lda+l] = uint8(r.Uint32())
				}
			}
			buf, ldc := guardedC(c0, c.m, c.n)
			ws.GemmInt8(c.m, aq, lda, aScale, pb, c.acc, bias, c.relu, buf[:len(buf)-guardLen], ldc)
			got := unguardC(t, kern, c, buf, ldc)
			results[kern] = append(results[kern], got)
			// The AVX2 kernel's pair sums are clamped to int16: the portable
			// tile doing the same must give the same floats.
			if kern == "avx2" {
				useLow(t, "generic")
				genericSat = true
				sat := append([]float32(nil), c0...)
				ws.GemmInt8(c.m, aq, lda, aScale, pb, c.acc, bias, c.relu, sat, c.n)
				genericSat = false
				useLow(t, kern)
				for i := range sat {
					if sat[i] != got[i] {
						t.Fatalf("avx2 %v: C[%d][%d] = %g, generic with int16 pair sums %g", c, i/c.n, i%c.n, got[i], sat[i])
					}
				}
			}
			sc := pb.Scales()
			q := func(l, j int) float64 { return math.RoundToEven(float64(b[l*c.n+j]) / float64(sc[j])) }
			// The exact int32 sums, or the AVX2 kernel's clamped pair sums.
			want := lowRefInt8(c, func(i, l int) float64 { return float64(aq[i*lda+l]) }, q,
				aScale, sc, kern == "avx2", c0, bias)
			for i, w := range want {
				if d := math.Abs(float64(got[i]) - w); d > 1e-5*(math.Abs(w)+float64(c.k)) {
					t.Fatalf("%s %v: C[%d][%d] = %g, want %g", kern, c, i/c.n, i%c.n, got[i], w)
				}
			}
			// The real product: half a step of A (3/510) and of B (1/254
			// of the column's largest) per term, where no pair sum was
			// clamped.
			exact := lowRef(c, func(i, l int) float64 { return float64(a[i*lda+l]) },
				func(l, j int) float64 { return float64(b[l*c.n+j]) }, c0, bias)
			unclamped := lowRefInt8(c, func(i, l int) float64 { return float64(aq[i*lda+l]) }, q,
				aScale, sc, false, c0, bias)
			for i, w := range exact {
				if unclamped[i] != want[i] {
					continue
				}
				if d := math.Abs(float64(got[i]) - w); d > 0.04*math.Sqrt(float64(c.k))+1e-3 {
					t.Fatalf("%s %v: C[%d][%d] = %g, exact %g: too far", kern, c, i/c.n, i%c.n, got[i], w)
				}
			}
		}
	}
	// The int32 sums are exact, so the VNNI and the portable tiles give the
	// same floats (the AVX2 kernel's, whose pair sums are clamped, were
	// compared with the clamping portable tile above).
	g := results["generic"]
	for name, a := range results {
		if name == "avx2" {
			continue
		}
		for i := range g {
			for j := range g[i] {
				if g[i][j] != a[i][j] {
					t.Fatalf("case %v: %s %g, generic %g", lowCases()[i], name, a[i][j], g[i][j])
				}
			}
		}
	}
	if len(results) != len(kerns) {
		t.Fatalf("%d results for %d kernels", len(results), len(kerns))
	}
}

func TestLowPanicsOnBadArgs(t *testing.T) {
	pb := PackBF16(make([]float32, 10*16), 10, 16, 16, false)
	pi := PackInt8(make([]float32, 10*16), 10, 16, 16, false)
	var ws Workspace
	for name, f := range map[string]func(){
		"short a":   func() { ws.GemmBF16(2, make([]uint16, 15), 10, pb, false, nil, false, make([]float32, 32), 16) },
		"small lda": func() { ws.GemmInt8(2, make([]uint8, 40), 9, 1, pi, false, nil, false, make([]float32, 32), 16) },
		"short c":   func() { ws.GemmBF16(2, make([]uint16, 20), 10, pb, false, nil, false, make([]float32, 31), 16) },
		"short bias": func() {
			ws.GemmInt8(2, make([]uint8, 24), 12, 1, pi, false, make([]float32, 15), false, make([]float32, 32), 16)
		},
		"zero scale":   func() { QuantizeU8(make([]uint8, 4), make([]float32, 4), 0) },
		"short int8 a": func() { ws.GemmInt8(2, make([]uint8, 23), 12, 1, pi, false, nil, false, make([]float32, 32), 16) },
		"empty pack":   func() { PackBF16(nil, 0, 4, 4, false) },
		"short pack b": func() { PackInt8(make([]float32, 10), 4, 4, 4, false) },
		"scales short": func() { PackInt8Scaled(make([]float32, 16), 4, 4, 4, false, make([]float32, 3)) },
		"scale zero":   func() { PackInt8Scaled(make([]float32, 16), 4, 4, 4, false, []float32{1, 1, 0, 1}) },
		"scale NaN": func() {
			PackInt8Scaled(make([]float32, 16), 4, 4, 4, false, []float32{1, 1, float32(math.NaN()), 1})
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestLowNoAllocs(t *testing.T) {
	const m, n, k = 84, 64, 576
	pb := PackBF16(make([]float32, k*n), k, n, n, false)
	pi := PackInt8(make([]float32, k*n), k, n, n, false)
	ab, aq := make([]uint16, m*k), make([]uint8, m*k)
	c := make([]float32, m*n)
	var ws Workspace
	ws.ReserveLow(n, k)
	if a := testing.AllocsPerRun(5, func() {
		ws.GemmBF16(m-1, ab, k, pb, false, nil, true, c, n)
		ws.GemmInt8(m-1, aq, k, 0.1, pi, true, nil, true, c, n)
	}); a != 0 {
		t.Errorf("%g allocations per call, want 0", a)
	}
}

func TestForceLowPrecision(t *testing.T) {
	lowKernelsToTest(t) // restores the kernel
	if _, err := ForceLowPrecision("nonsense"); err == nil {
		t.Error("unknown kernel accepted")
	}
	if !HasLowPrecisionKernels() {
		if _, err := ForceLowPrecision("avx512"); err == nil {
			t.Error("avx512 accepted on a CPU without it")
		}
	}
	if !HasAVX2Int8Kernel() {
		if _, err := ForceLowPrecision("avx2"); err == nil {
			t.Error("avx2 accepted on a CPU without it")
		}
	}
	if _, err := ForceLowPrecision("generic"); err != nil || LowPrecisionKernel() != "generic" {
		t.Errorf("generic: %v, kernel %s", err, LowPrecisionKernel())
	}
}

// TestGemmInt8AVX2Clamps pins the one difference of the AVX2 kernel: a pair
// sum a0*b0 + a1*b1 beyond the int16 range is clamped there (VPMADDUBSW),
// where the VNNI and portable tiles sum exactly.
func TestGemmInt8AVX2Clamps(t *testing.T) {
	if !HasAVX2Int8Kernel() {
		t.Skip("no AVX2 int8 kernel on this CPU or build")
	}
	const m, n, k = 6, 16, 8
	b := make([]float32, k*n)
	for l := range b {
		b[l] = 1 // every weight the column's largest: int8 127
		if l%n == 1 {
			b[l] = -1
		}
	}
	b[3*n+2] = 0.5 // column 2: pair (2, 3) sums 255*127 + 255*64 = 48705
	pb := PackInt8(b, k, n, n, false)
	a := make([]uint8, m*k)
	for i := range a {
		a[i] = 255
	}
	var ws Workspace
	run := func(kern string) []float32 {
		useLow(t, kern)
		c := make([]float32, m*n)
		ws.GemmInt8(m, a, k, 1, pb, false, nil, false, c, n)
		return c
	}
	lowKernelsToTest(t) // restores the kernel
	exact, clamped := run("generic"), run("avx2")
	sc := pb.Scales()
	for j, want := range map[int][2]float64{
		0: {4 * 2 * 255 * 127, 4 * 32767},
		1: {-4 * 2 * 255 * 127, -4 * 32768},
		2: {3*2*255*127 + 255*127 + 255*64, 3*32767 + 32767},
	} {
		for i := 0; i < m; i++ {
			if g, w := exact[i*n+j], float32(want[0])*sc[j]; g != w {
				t.Errorf("generic C[%d][%d] = %g, want the exact %g", i, j, g, w)
			}
			if g, w := clamped[i*n+j], float32(want[1])*sc[j]; g != w {
				t.Errorf("avx2 C[%d][%d] = %g, want the clamped %g", i, j, g, w)
			}
		}
	}
}

// TestPackInt8Scaled: with PackInt8's own scales it packs the same bytes
// as PackInt8; values already on their column's grid are packed exactly,
// whatever the column's largest magnitude; off-grid values round to the
// nearest step and clamp at 127 steps.
func TestPackInt8Scaled(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const k, n = 37, 40 // neither a multiple of the packing
	b := randSlice(r, k*n)
	ref := PackInt8(b, k, n, n, false)
	got := PackInt8Scaled(b, k, n, n, false, ref.Scales())
	if !slices.Equal(ref.data, got.data) || !slices.Equal(ref.scale, got.scale) {
		t.Fatal("PackInt8Scaled with PackInt8's scales packs other values")
	}
	scale := make([]float32, n)
	q := make([]int8, k*n)
	grid := make([]float32, k*n)
	for j := range scale {
		scale[j] = 0.01 * float32(1+j)
	}
	for i := range q {
		q[i] = int8(r.IntN(201) - 100) // at most 100 steps: the column's largest is not 127 steps
		grid[i] = float32(q[i]) * scale[i%n]
	}
	p := PackInt8Scaled(grid, k, n, n, false, scale)
	if !slices.Equal(p.Scales(), scale) {
		t.Fatalf("scales %v, want %v", p.Scales(), scale)
	}
	for l := range k {
		for j := range n {
			if v := p.elem(l, j); v != q[l*n+j] {
				t.Fatalf("(%d, %d) packed %d, want %d", l, j, v, q[l*n+j])
			}
		}
	}
	off := []float32{0.26, -0.26, 0.24, 50, -50} // steps of 0.1: 3, -3, 2, then clamped
	want := []int8{3, -3, 2, 127, -127}
	p = PackInt8Scaled(off, 5, 1, 1, false, []float32{0.1})
	for l, w := range want {
		if v := p.elem(l, 0); v != w {
			t.Errorf("%g at scale 0.1 packed %d, want %d", off[l], v, w)
		}
	}
}

// elem returns the int8 value packed for row l, column j of B.
func (p *PackedInt8) elem(l, j int) int8 {
	j0 := j / 64 * 64
	w := lowPanel(j0, p.np)
	return p.data[j0*p.kp+((l/4)*w+j-j0)*4+l%4]
}
