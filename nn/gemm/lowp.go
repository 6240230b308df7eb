package gemm

import (
	"fmt"
	"math"
	"unsafe"
)

// Reduced-precision products for inference: C (float32) = A * B with A and B
// in bfloat16 (fp32 accumulation, AVX512_BF16's VDPBF16PS), or A in uint8
// and B in int8 with a scale per column of B (int32 accumulation,
// AVX512_VNNI's VPDPBUSD, then C = scale[j]*acc). B is a weight matrix
// packed once (PackBF16, PackInt8); A is an activation matrix converted per
// layer (ConvertBF16, QuantizeU8). Like the FP32 tiles, the kernels compute
// 6x64 tiles (6x48, 6x32, 6x16 for the last columns) and apply the
// residual add, bias and ReLU in their epilogue.
//
// A row of A is read in steps of 4 bytes: 2 bf16 or 4 uint8 values of k. So
// every row of A must hold KPad() readable values, and the values past K
// must be zero (any uint8 for int8, since the packed B is zero there; a
// non-finite bf16 would turn the product into NaN).
//
// CPUs with AVX2 but not AVX-512 run int8 through an AVX2 kernel over the
// same operands (VPMADDUBSW, see u8Kern16): the same int32 sums, except that
// the sum of each pair of products a0*b0 + a1*b1 (k = 4s, 4s+1 and 4s+2,
// 4s+3) is clamped to the int16 range, which takes two large activations
// meeting two large weights of one sign (on a trained Connect Four network,
// about 5 in 10^8 pair sums, and no change in its values' agreement with
// FP32); they run no bf16.
//
// Without the instructions (other CPUs, the noasm tag, or ForceLowPrecision
// with "generic") portable Go computes the same tiles: exactly the same
// integers for int8 (as the VNNI kernel), and the same products in another
// summation order for bf16.

// PackedBF16 is a K x N weight matrix in bf16, packed for GemmBF16.
type PackedBF16 struct {
	k, n, kp, np int
	data         []uint16 // panel at column j0: kp*w values at j0*kp
}

// PackedInt8 is a K x N weight matrix quantised to int8 with one scale per
// column (the column's largest magnitude / 127), packed for GemmInt8.
type PackedInt8 struct {
	k, n, kp, np int
	data         []int8    // panel at column j0: kp*w values at j0*kp
	scale        []float32 // per column, len np (zero past n)
}

// K returns the depth of the product, the rows of B.
func (p *PackedBF16) K() int { return p.k }

// N returns the columns of B.
func (p *PackedBF16) N() int { return p.n }

// KPad returns K rounded up to 2: the values every row of A must hold.
func (p *PackedBF16) KPad() int { return p.kp }

// K returns the depth of the product, the rows of B.
func (p *PackedInt8) K() int { return p.k }

// N returns the columns of B.
func (p *PackedInt8) N() int { return p.n }

// KPad returns K rounded up to 4: the values every row of A must hold.
func (p *PackedInt8) KPad() int { return p.kp }

// Scales returns the scale of each column of B: column j of B is
// approximately Scales()[j] times its int8 values.
func (p *PackedInt8) Scales() []float32 { return p.scale[:p.n] }

// lowPanel returns the width of the packed panel at column j0 of np.
func lowPanel(j0, np int) int { return min(64, np-j0) }

// bElem returns element (l, j) of B stored k x n (or n x k when transB) with
// stride ldb, or 0 outside k x n.
func bElem(b []float32, ldb int, transB bool, k, n, l, j int) float32 {
	if l >= k || j >= n {
		return 0
	}
	if transB {
		return b[j*ldb+l]
	}
	return b[l*ldb+j]
}

// PackBF16 converts B (k x n, or n x k stored when transB, row stride ldb)
// to bf16, rounding to nearest even, and packs it.
func PackBF16(b []float32, k, n, ldb int, transB bool) *PackedBF16 {
	checkPackArgs(b, k, n, ldb, transB)
	p := &PackedBF16{k: k, n: n, kp: (k + 1) &^ 1, np: (n + 15) &^ 15}
	p.data = make([]uint16, p.kp*p.np)
	for j0 := 0; j0 < p.np; j0 += 64 {
		w := lowPanel(j0, p.np)
		d := p.data[j0*p.kp : (j0+w)*p.kp]
		for s := 0; s < p.kp/2; s++ {
			for j := 0; j < w; j++ {
				for t := 0; t < 2; t++ {
					d[(s*w+j)*2+t] = ToBF16(bElem(b, ldb, transB, k, n, 2*s+t, j0+j))
				}
			}
		}
	}
	return p
}

// PackInt8 quantises B (k x n, or n x k stored when transB, row stride ldb)
// to int8 with a scale per column, round to nearest even, and packs it.
func PackInt8(b []float32, k, n, ldb int, transB bool) *PackedInt8 {
	return packInt8(b, k, n, ldb, transB, Int8Scales(b, k, n, ldb, transB))
}

// Int8Scales returns PackInt8's scale of each column of B (k x n, or n x k
// stored when transB, row stride ldb): the column's largest magnitude /
// 127, or 1 for a column of zeros.
func Int8Scales(b []float32, k, n, ldb int, transB bool) []float32 {
	checkPackArgs(b, k, n, ldb, transB)
	scale := make([]float32, n)
	for j := 0; j < n; j++ {
		var m float32
		for l := 0; l < k; l++ {
			m = max(m, float32(math.Abs(float64(bElem(b, ldb, transB, k, n, l, j)))))
		}
		scale[j] = 1
		if m > 0 {
			scale[j] = m / 127
		}
	}
	return scale
}

// RoundInt8 returns v in steps of scale as PackInt8 packs it: rounded to
// nearest, ties to even, and clamped to [-127, 127].
func RoundInt8(v float64, scale float32) int8 {
	return int8(max(-127, min(127, math.RoundToEven(v/float64(scale)))))
}

// PackInt8Scaled quantises B as PackInt8 does but with the given scale of
// each column (len n, each positive and finite): values round to the
// nearest multiple of their column's scale, ties to even, clamped to
// [-127, 127] steps. B's values that are already such multiples (a
// quantiser's output) are packed exactly.
func PackInt8Scaled(b []float32, k, n, ldb int, transB bool, scale []float32) *PackedInt8 {
	checkPackArgs(b, k, n, ldb, transB)
	if len(scale) != n {
		panic(fmt.Sprintf("gemm: PackInt8Scaled: %d scales for %d columns", len(scale), n))
	}
	for j, s := range scale {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			panic(fmt.Sprintf("gemm: PackInt8Scaled: scale %d is %g, want positive and finite", j, s))
		}
	}
	return packInt8(b, k, n, ldb, transB, scale)
}

func packInt8(b []float32, k, n, ldb int, transB bool, scale []float32) *PackedInt8 {
	p := &PackedInt8{k: k, n: n, kp: (k + 3) &^ 3, np: (n + 15) &^ 15}
	p.data = make([]int8, p.kp*p.np)
	p.scale = make([]float32, p.np)
	copy(p.scale, scale)
	for j0 := 0; j0 < p.np; j0 += 64 {
		w := lowPanel(j0, p.np)
		d := p.data[j0*p.kp : (j0+w)*p.kp]
		for s := 0; s < p.kp/4; s++ {
			for j := 0; j < w; j++ {
				if j0+j >= n {
					continue
				}
				for t := 0; t < 4; t++ {
					d[(s*w+j)*4+t] = RoundInt8(float64(bElem(b, ldb, transB, k, n, 4*s+t, j0+j)), p.scale[j0+j])
				}
			}
		}
	}
	return p
}

func checkPackArgs(b []float32, k, n, ldb int, transB bool) {
	if k < 1 || n < 1 {
		panic(fmt.Sprintf("gemm: pack: k=%d n=%d, want both >= 1", k, n))
	}
	r, c := k, n
	if transB {
		r, c = n, k
	}
	checkMatrix("b", r, c, b, ldb)
}

// ToBF16 returns x rounded to the nearest bfloat16, ties to even, as
// VCVTNEPS2BF16 does: a NaN stays a NaN and denormals become zero (of the
// same sign).
func ToBF16(x float32) uint16 {
	u := math.Float32bits(x)
	switch {
	case u&0x7fffffff > 0x7f800000:
		return uint16(u>>16) | 0x40 // quiet NaN
	case u&0x7f800000 == 0:
		return uint16(u>>16) & 0x8000
	}
	return uint16((u + 0x7fff + (u>>16)&1) >> 16)
}

// FromBF16 returns the float32 value of the bfloat16 h.
func FromBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// ConvertBF16 sets dst[i] = ToBF16(src[i]) for i < len(src).
func ConvertBF16(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	n := 0
	if lowActive == lowAVX512 {
		n = len(src) &^ 15
		if n > 0 {
			cvtBF16(&dst[0], &src[0], n)
		}
	}
	for i := n; i < len(src); i++ {
		dst[i] = ToBF16(src[i])
	}
}

// QuantizeU8 sets dst[i] = src[i]/scale rounded to nearest even and
// clamped to 0..255 (a NaN gives 255), computing src[i]*(1/scale) in float32.
// scale must be positive.
func QuantizeU8(dst []uint8, src []float32, scale float32) {
	if !(scale > 0) {
		panic(fmt.Sprintf("gemm: quantize: scale %g, want > 0", scale))
	}
	dst = dst[:len(src)]
	inv := 1 / scale
	n := len(src) &^ 15 // the assembly's share: whole blocks of 16
	switch {
	case n > 0 && lowActive == lowAVX512:
		quantU8(&dst[0], &src[0], n, inv)
	case n > 0 && lowActive == lowAVX2:
		quantU8AVX2(&dst[0], &src[0], n, inv)
	default:
		n = 0 // the portable loop below quantizes everything
	}
	for i := n; i < len(src); i++ {
		dst[i] = quantizeOne(src[i], inv)
	}
}

func quantizeOne(x, inv float32) uint8 {
	v := x * inv
	if !(v < 255) {
		return 255
	}
	return uint8(max(0, math.RoundToEven(float64(v))))
}

// lowKernel names an implementation of the reduced-precision kernels.
type lowKernel int

const (
	lowGeneric lowKernel = iota
	lowAVX512            // AVX512_BF16 and AVX512_VNNI
	lowAVX2              // AVX2: int8 only (VPMADDUBSW), pair sums clamped to int16
)

var lowNames = [...]string{lowGeneric: "generic", lowAVX512: "avx512", lowAVX2: "avx2"}

// lowActive is the kernel in use, chosen once at start-up (see
// ForceLowPrecision).
var lowActive = lowGeneric

// LowPrecisionKernel names the kernel the bf16 and int8 products use:
// "avx512" (AVX512_BF16 and AVX512_VNNI: GemmBF16 and GemmInt8), "avx2"
// (GemmInt8 only; GemmBF16 runs portable Go) or "generic".
func LowPrecisionKernel() string { return lowNames[lowActive] }

// HasLowPrecisionKernels reports whether this CPU and build have the
// assembly bf16 and int8 kernels of AVX-512.
func HasLowPrecisionKernels() bool { return lowAvailable(lowAVX512) }

// HasAVX2Int8Kernel reports whether this CPU and build have the AVX2 int8
// kernel.
func HasAVX2Int8Kernel() bool { return lowAvailable(lowAVX2) }

// ForceLowPrecision selects the kernel of the bf16 and int8 products by name
// ("avx512", "avx2" or "generic") and returns the previous one, for tests
// and benchmarks; it is not safe to call while products run.
func ForceLowPrecision(name string) (prev string, err error) {
	prev = LowPrecisionKernel()
	for id, n := range lowNames {
		if n != name {
			continue
		}
		if !lowAvailable(lowKernel(id)) {
			return prev, fmt.Errorf("gemm: kernel %q not available on this CPU or build", name)
		}
		lowActive = lowKernel(id)
		return prev, nil
	}
	return prev, fmt.Errorf("gemm: unknown kernel %q, want avx512, avx2 or generic", name)
}

// lowKcSteps is the most k steps (4 bytes of an A row each) per k block: a
// 64-column panel block of 128 steps is 32 KiB, which stays in L1.
var lowKcSteps = 160

// GemmBF16 computes C = A*B (+ C if acc) + bias, then max(C, 0) if relu. A
// is m x b.KPad() bf16 values (row stride lda >= b.KPad(), values past K
// zero), C is m x b.N() (stride ldc); bias may be nil or hold b.N() values.
// It panics on inconsistent arguments, like Sgemm.
func (w *Workspace) GemmBF16(m int, a []uint16, lda int, b *PackedBF16, acc bool, bias []float32, relu bool, c []float32, ldc int) {
	if m < 0 || lda < b.kp || (m > 0 && len(a) < (m-1)*lda+b.kp) {
		panic(fmt.Sprintf("gemm: bf16: m=%d lda=%d len(a)=%d for kpad=%d", m, lda, len(a), b.kp))
	}
	checkMatrix("c", m, b.n, c, ldc)
	checkBias(bias, b.n)
	if m == 0 {
		return
	}
	lowGemm(&w.ws, productBF16, m, unsafe.Pointer(&a[0]), 2*lda, b.kp/2, b.n, b.np,
		unsafe.Pointer(&b.data[0]), b.kp*2, nil, acc, bias, relu, c, ldc)
}

// GemmInt8 computes C = aScale*A*B (+ C if acc) + bias, then max(C, 0) if
// relu, where the uint8 matrix A times aScale approximates the activations
// (see QuantizeU8) and B is quantised with a scale per column. A is m x
// b.KPad() (row stride lda >= b.KPad()), C is m x b.N() (stride ldc); bias
// may be nil or hold b.N() values. It panics on inconsistent arguments.
func (w *Workspace) GemmInt8(m int, a []uint8, lda int, aScale float32, b *PackedInt8, acc bool, bias []float32, relu bool, c []float32, ldc int) {
	if m < 0 || lda < b.kp || (m > 0 && len(a) < (m-1)*lda+b.kp) {
		panic(fmt.Sprintf("gemm: int8: m=%d lda=%d len(a)=%d for kpad=%d", m, lda, len(a), b.kp))
	}
	checkMatrix("c", m, b.n, c, ldc)
	checkBias(bias, b.n)
	if m == 0 {
		return
	}
	ws := &w.ws
	ws.scale = grow(ws.scale, b.np)
	for j, s := range b.scale {
		ws.scale[j] = aScale * s
	}
	lowGemm(ws, productInt8, m, unsafe.Pointer(&a[0]), lda, b.kp/4, b.n, b.np, unsafe.Pointer(&b.data[0]), b.kp, ws.scale, acc, bias, relu, c, ldc)
}

// ReserveLow grows w so that GemmBF16 and GemmInt8 with a B of k x n
// allocate nothing.
func (w *Workspace) ReserveLow(n, k int) {
	w.ws.edgeLow = growBytes(w.ws.edgeLow, mr*((k+3)&^3)*2)
	w.ws.scale = grow(w.ws.scale, max(len(w.ws.scale), (n+15)&^15))
}

func growBytes(s []byte, n int) []byte {
	if cap(s) < n {
		return make([]byte, n)
	}
	return s[:max(len(s), n)]
}

// lowProduct names the operands of a reduced-precision product.
type lowProduct int

const (
	productBF16 lowProduct = iota // bf16 pairs, panels of up to 64 columns
	productInt8                   // uint8 x int8 quadruples, panels of up to 64 columns
)

// lowGemm runs the tiles of product p over C. A rows start at a + i*ldaB
// (bytes) and hold steps 4-byte groups; the panel of B at column j0 starts
// at b + j0*panelB bytes and holds w 4-byte groups per step. scale (int8)
// holds np values.
func lowGemm(ws *workspace, p lowProduct, m int, a unsafe.Pointer, ldaB, steps, n, np int,
	b unsafe.Pointer, panelB int, scale []float32, acc bool, bias []float32, relu bool, c []float32, ldc int) {
	kcStep := steps
	if nblk := (steps + lowKcSteps - 1) / lowKcSteps; nblk > 1 {
		kcStep = (steps + nblk - 1) / nblk
	}
	var sp *float32
	for ic := 0; ic < m; ic += mcBlk {
		mc := min(mcBlk, m-ic)
		for s0 := 0; s0 < steps; s0 += kcStep {
			kc := min(kcStep, steps-s0)
			flags := 0
			if s0 > 0 || acc {
				flags |= flagAcc
			}
			if s0+kc == steps {
				if bias != nil {
					flags |= flagBias
				}
				if relu {
					flags |= flagReLU
				}
			}
			for j0 := 0; j0 < np; {
				w := lowPanel(j0, np)
				cols := min(w, n-j0)
				bp := unsafe.Add(b, j0*panelB+s0*w*4)
				if scale != nil {
					sp = &scale[j0]
				}
				if p == productInt8 && lowActive == lowAVX2 {
					avx2Panel(ws, a, ldaB, ic, mc, s0, kc, bp, w, cols, sp, bias, j0, flags, c, ldc)
					j0 += w
					continue
				}
				// A whole strip of rows writes C in place: every column when
				// the panel lies inside C, and with AVX-512 also the last
				// panel of a width that is not a multiple of 16, whose last
				// 16 columns the kernel reads and writes under a lane mask.
				inPlace := cols == w || lowActive == lowAVX512
				mask := 1<<(cols-(w-16)) - 1
				var bb *float32
				if bias != nil && inPlace {
					bb = &bias[j0]
				}
				for ir := 0; ir < mc; ir += mr {
					rows := min(mr, mc-ir)
					ap, as := unsafe.Add(a, (ic+ir)*ldaB+s0*4), ldaB
					if rows < mr {
						ap, as = edgeLow(ws, ap, ldaB, rows, kc)
					}
					crow := (ic+ir)*ldc + j0
					if rows == mr && inPlace {
						callLow(p, w, kc, ap, as, bp, &c[crow], ldc, sp, bb, flags, mask)
						continue
					}
					callLow(p, w, kc, ap, as, bp, &ws.tile[0], w, sp, nil, 0, fullMask)
					mergeTile(ws.tile[:], w, rows, cols, c[crow:], ldc, flags, bias, j0)
				}
				j0 += w
			}
		}
	}
}

// edgeLow copies the rows < mr rows of A at ap (stride ldaB bytes), kc
// steps each, into ws.edgeLow padded with zero rows to a whole strip, and
// returns the copy and its stride.
func edgeLow(ws *workspace, ap unsafe.Pointer, ldaB, rows, kc int) (unsafe.Pointer, int) {
	e := growBytes(ws.edgeLow, mr*kc*4)
	ws.edgeLow = e
	for i := 0; i < mr; i++ {
		dst := e[i*kc*4 : (i+1)*kc*4]
		if i < rows {
			copy(dst, unsafe.Slice((*byte)(unsafe.Add(ap, i*ldaB)), kc*4))
		} else {
			clear(dst)
		}
	}
	return unsafe.Pointer(&e[0]), kc * 4
}

// avx2Panel runs the AVX2 int8 tiles (6 x 16) of one panel of B, w columns
// of which cols are in C, over rows ic..ic+mc of A and C for the k block of
// kc steps from s0. It goes 16 columns at a time, each slice over all the
// row tiles (one slice of the panel, kc*64 bytes, stays in L1). Slices
// wholly inside C are written in place; only the last slice of a panel with
// cols < w goes through the scratch tile, and slices past cols are not
// computed, so a width that is not a multiple of 16 costs about the next
// multiple's time, not more (a scalar merge of the whole panel would cost
// far more).
func avx2Panel(ws *workspace, a unsafe.Pointer, ldaB, ic, mc, s0, kc int, bp unsafe.Pointer, w, cols int,
	scale *float32, bias []float32, j0, flags int, c []float32, ldc int) {
	for j := 0; j < cols; j += 16 {
		sc := min(16, cols-j)
		bj := (*byte)(unsafe.Add(bp, 4*j))
		sj := (*float32)(unsafe.Add(unsafe.Pointer(scale), 4*j))
		var bb *float32
		if bias != nil && sc == 16 {
			bb = &bias[j0+j]
		}
		for ir := 0; ir < mc; ir += mr {
			rows := min(mr, mc-ir)
			ap, as := unsafe.Add(a, (ic+ir)*ldaB+s0*4), ldaB
			if rows < mr {
				ap, as = edgeLow(ws, ap, ldaB, rows, kc)
			}
			crow := (ic+ir)*ldc + j0 + j
			if rows == mr && sc == 16 {
				callAVX2Asm(kc, (*byte)(ap), as, bj, &c[crow], ldc, sj, bb, flags, 4*w)
				continue
			}
			callAVX2Asm(kc, (*byte)(ap), as, bj, &ws.tile[0], 16, sj, nil, 0, 4*w)
			mergeTile(ws.tile[:], 16, rows, sc, c[crow:], ldc, flags, bias, j0+j)
		}
	}
}

// fullMask is the lane mask of a tile whose columns all lie in C.
const fullMask = 1<<16 - 1

// callLow runs one 6 x w tile of product p with the kernel in use (the AVX2
// int8 product goes through avx2Panel instead; AVX2 bf16 is portable). mask
// holds the lanes of the tile's last 16 columns that C and bias hold; only
// the AVX-512 kernels take a mask other than fullMask.
func callLow(p lowProduct, w, steps int, a unsafe.Pointer, lda int, b unsafe.Pointer, c *float32, ldc int, scale, bias *float32, flags, mask int) {
	bf16 := p == productBF16
	switch {
	case lowActive == lowAVX512:
		callLowAsm(bf16, w, steps, (*byte)(a), lda, (*byte)(b), c, ldc, scale, bias, flags, mask)
	default:
		lowTileGeneric(bf16, genericSat, w, steps, a, lda, b, c, ldc, scale, bias, flags)
	}
}

// genericSat makes the portable int8 tile clamp each pair sum to int16 as the
// AVX2 kernel does, for the tests that compare the two.
var genericSat = false

// lowTileGeneric is the portable 6 x w tile: the same arithmetic as the
// kernels (int8: exact int32 sums, or with sat each pair sum clamped to
// int16 as the AVX2 kernel's; bf16: fp32 sums of exact products, in another
// order).
func lowTileGeneric(bf16, sat bool, w, steps int, a unsafe.Pointer, lda int, b unsafe.Pointer, c *float32, ldc int, scale, bias *float32, flags int) {
	bs := unsafe.Slice((*byte)(b), steps*w*4)
	cs := unsafe.Slice(c, 5*ldc+w)
	var sc, bi []float32
	if scale != nil {
		sc = unsafe.Slice(scale, w)
	}
	if bias != nil {
		bi = unsafe.Slice(bias, w)
	}
	var out [mr][64]float32
	if bf16 {
		var acc [mr][64]float32
		for s := 0; s < steps; s++ {
			brow := bs[s*w*4 : (s+1)*w*4]
			for i := 0; i < mr; i++ {
				ap := unsafe.Slice((*byte)(unsafe.Add(a, i*lda+4*s)), 4)
				a0 := FromBF16(uint16(ap[0]) | uint16(ap[1])<<8)
				a1 := FromBF16(uint16(ap[2]) | uint16(ap[3])<<8)
				if a0 == 0 && a1 == 0 {
					continue
				}
				row := acc[i][:w]
				for j := range row {
					g := brow[4*j : 4*j+4]
					row[j] += a0*FromBF16(uint16(g[0])|uint16(g[1])<<8) + a1*FromBF16(uint16(g[2])|uint16(g[3])<<8)
				}
			}
		}
		out = acc
	} else {
		var acc [mr][64]int32
		for s := 0; s < steps; s++ {
			brow := bs[s*w*4 : (s+1)*w*4]
			for i := 0; i < mr; i++ {
				ap := unsafe.Slice((*byte)(unsafe.Add(a, i*lda+4*s)), 4)
				a0, a1, a2, a3 := int32(ap[0]), int32(ap[1]), int32(ap[2]), int32(ap[3])
				if a0|a1|a2|a3 == 0 {
					continue
				}
				row := acc[i][:w]
				for j := range row {
					g := brow[4*j : 4*j+4]
					p0 := a0*int32(int8(g[0])) + a1*int32(int8(g[1]))
					p1 := a2*int32(int8(g[2])) + a3*int32(int8(g[3]))
					if sat {
						p0 = max(-32768, min(32767, p0))
						p1 = max(-32768, min(32767, p1))
					}
					row[j] += p0 + p1
				}
			}
		}
		for i := range acc {
			for j := 0; j < w; j++ {
				out[i][j] = float32(acc[i][j]) * sc[j]
			}
		}
	}
	for i := 0; i < mr; i++ {
		for j := 0; j < w; j++ {
			v := out[i][j]
			if flags&flagAcc != 0 {
				v += cs[i*ldc+j]
			}
			if flags&flagBias != 0 {
				v += bi[j]
			}
			if flags&flagReLU != 0 && v < 0 {
				v = 0
			}
			cs[i*ldc+j] = v
		}
	}
}

// lowPeak runs n iterations of 12 independent VDPBF16PS (bf16) or VPDPBUSD
// (int8; on the AVX2 kernel VPMADDUBSW and VPMADDWD pairs) and returns the
// operations done (a multiply-add is two), or 0 without the kernels.
func lowPeak(bf16 bool, n int) int {
	if !bf16 && lowActive == lowAVX2 {
		maddubsPeak256(n)
		return n * 12 * 32 * 2
	}
	if !lowAvailable(lowAVX512) {
		return 0
	}
	if bf16 {
		bf16Peak512(n)
		return n * 12 * 32 * 2
	}
	vnniPeak512(n)
	return n * 12 * 64 * 2
}
