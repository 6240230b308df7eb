package gemm

import "sync"

// Micro-kernel flags, shared with the assembly.
const (
	flagAcc   = 1 // add the existing C
	flagBias  = 2 // add bias[col]
	flagReLU  = 4 // clamp at zero
	flagScale = 8 // multiply by alpha (else alpha is taken as 1)
)

// Blocking parameters, variables so that benchmarks can tune them. k is cut
// into equal blocks of at most kcMax; mcBlk is the number of rows of A and C
// handled per row block. On Zen 5 with the 3x3 shape (k = 576) two k blocks
// of 288 measured a few percent faster than blocks of 128 (B panel in L1) or
// one block of 576: B panels stream from L2 fast enough, and longer blocks
// read fewer, longer runs of each A row.
var (
	kcMax = 320
	mcBlk = 48
)

const (
	mr       = 6       // rows of a tile, for both vector kernels
	maxNR    = 64      // widest tile
	bPackMax = 1 << 18 // floats of B packed at once (1 MiB)
	dotMaxN  = 16      // largest n for the dot-product path
	dotMaxM  = 32      // largest m for the dot-product path at any n
)

// workspace holds the scratch buffers of one call: a caller's Workspace or
// one from wsPool, so steady-state calls allocate nothing.
type workspace struct {
	b    []float32 // packed B panels: the panel at column j of a block at b[j*k:]
	edge []float32 // a partial strip of A rows padded with zero rows
	bt   []float32 // B transposed for the dot-product path
	// edgeLow is a partial strip of A for the bf16 and int8 kernels and
	// scale their column scales.
	edgeLow []byte
	scale   []float32
	tile    [mr * maxNR]float32
	ap      [8]*float32
	wp      [4]*float32
	out     [16]float32
}

var wsPool = sync.Pool{New: func() any { return new(workspace) }}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

func tileWidth(id kernelID) int {
	if id == kernelAVX512 {
		return 64
	}
	return 16
}

// panel returns the tile width w of the panel that starts rem columns
// before the end of a block of columns, and the columns cols <= w of C it
// covers. Full nr-wide tiles come first; with AVX-512 the rest is one tile of
// the next multiple of 16 (48 = one 48, 96 = 64 + 32, 112 = 64 + 48, 40 = one
// 48 of which 40 columns are in C), and a last panel with cols < w is packed
// and written into C under the kernel's lane mask. 80 to 95 columns are cut
// 48 + 32 (or 48 + 48 under the mask) rather than 64 + 16: the 6x16 tile has
// too few accumulators to hide the FMA latency (k = 720, n = 80 measured 184
// GFLOP per CPU-second as 64 + 16, 211 as 48 + 32).
func panel(id kernelID, nr, rem int) (w, cols int) {
	if id == kernelAVX512 && rem >= 80 && rem < 96 {
		return 48, 48
	}
	if rem >= nr {
		return nr, nr
	}
	if id == kernelAVX512 {
		return (rem + 15) &^ 15, rem
	}
	return nr, rem
}

// colBlock returns the number of columns of B handled per block for depth
// k: a multiple of nr. Column blocks bound the packed copy of B and, when B
// is read in place, the B block one row block streams: for the weight
// gradient of a 3x3 convolution at batch 256 (m = 64, n = 576, k = 10752, A
// transposed) one 64-column block at a time measured about 20% faster than
// all 576 columns at once, and taller row blocks did not help.
func colBlock(nr, k int) int { return max(nr, bPackMax/k/nr*nr) }

// kBlock returns the depth of the k blocks for depth k: k cut into equal
// blocks of at most kcMax.
func kBlock(k int) int {
	nblk := (k + kcMax - 1) / kcMax
	return (k + nblk - 1) / nblk
}

// packLen returns the floats of packed B panels sgemmTiled needs for n
// columns of depth k: a whole column block, its last panel rounded up to 16.
func packLen(id kernelID, n, k int) int {
	nc := min(n, colBlock(tileWidth(id), k))
	return (nc + 15) / 16 * 16 * k
}

// reserve grows ws so that products of k x n op(B) with kernel id, in any
// layout and any number of rows, allocate nothing.
func (ws *workspace) reserve(id kernelID, n, k int) {
	if id == kernelGeneric || n <= 0 || k <= 0 {
		return
	}
	ws.b = grow(ws.b, max(len(ws.b), packLen(id, n, k)))
	ws.edge = grow(ws.edge, max(len(ws.edge), mr*kBlock(k)))
	if useDot(id, false, false, 0, n) {
		ws.bt = grow(ws.bt, max(len(ws.bt), n*k))
	}
}

// sgemm computes C = alpha*op(A)*op(B) + beta*C, then adds bias[col] if bias
// is not nil and clamps at zero if relu, with scratch from ws, or from wsPool
// if ws is nil. Arguments are already checked.
func sgemm(id kernelID, ws *workspace, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, bias []float32, relu bool) {
	if m == 0 || n == 0 {
		return
	}
	if id == kernelGeneric || k == 0 || alpha == 0 {
		if k == 0 || alpha == 0 {
			for i := 0; i < m; i++ {
				scaleRow(c[i*ldc:i*ldc+n], beta)
			}
		} else {
			sgemmGeneric(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		}
		if bias != nil || relu {
			for i := 0; i < m; i++ {
				epilogueRow(c[i*ldc:i*ldc+n], bias, relu)
			}
		}
		return
	}
	if beta != 0 && beta != 1 {
		for i := 0; i < m; i++ {
			scaleRow(c[i*ldc:i*ldc+n], beta)
		}
		beta = 1
	}
	if ws == nil {
		ws = wsPool.Get().(*workspace)
		defer wsPool.Put(ws)
	}
	if useDot(id, transA, transB, m, n) {
		sgemmDot(id, ws, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias, relu)
	} else {
		sgemmTiled(id, ws, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias, relu)
	}
}

// forcePath overrides useDot, for benchmarks only: 0 automatic, 1 dot,
// 2 tiled.
var forcePath = 0

// useDot reports whether the dot-product path suits the shape: B stored
// n x k (or n so small that transposing B is free) and a C too narrow or too
// short for the 6-row, 64-column tiles to be well filled.
func useDot(id kernelID, transA, transB bool, m, n int) bool {
	if id != kernelAVX512 || transA {
		return false
	}
	switch forcePath {
	case 1:
		return true
	case 2:
		return false
	}
	if !transB {
		return n <= 4
	}
	return n <= dotMaxN || m <= dotMaxM
}

// epilogueRow adds bias and clamps one row of C.
func epilogueRow(row, bias []float32, relu bool) {
	if bias != nil {
		bias = bias[:len(row)]
		for j := range row {
			row[j] += bias[j]
		}
	}
	if relu {
		for j, v := range row {
			if v < 0 {
				row[j] = 0
			}
		}
	}
}

// sgemmTiled runs the register-tiled micro-kernels over mr x nr tiles of C.
// beta is 0 or 1. Loop order: a block of B columns (packed for all of k when
// it cannot be read in place), then a block of mcBlk rows of A and C, then k
// blocks, B panels and 6-row strips. The C block and the A rows of one row
// block stay in cache across the k blocks, and each k block of a B panel stays
// in L1 or L2 across the strips.
func sgemmTiled(id kernelID, ws *workspace, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, bias []float32, relu bool) {
	nr := tileWidth(id)
	kcStep := kBlock(k)
	ncBlk := colBlock(nr, k)
	ws.b = grow(ws.b, packLen(id, n, k))
	for jc := 0; jc < n; jc += ncBlk {
		nc := min(ncBlk, n-jc)
		// Pack the B panels that cannot be read in place (all of them when
		// B is transposed, else only a partial last one), each as k x w
		// where w is the panel's tile width.
		for jr, w := 0, 0; jr < nc; jr += w {
			var cols int
			w, cols = panel(id, nr, nc-jr)
			if !transB && cols == w {
				continue
			}
			packB(ws.b[jr*k:jr*k+k*w], transB, b, ldb, 0, k, jc+jr, cols, w)
		}
		for ic := 0; ic < m; ic += mcBlk {
			mc := min(mcBlk, m-ic)
			for pc := 0; pc < k; pc += kcStep {
				kc := min(kcStep, k-pc)
				flags := 0
				if alpha != 1 {
					flags |= flagScale
				}
				if pc > 0 || beta != 0 {
					flags |= flagAcc
				}
				if pc+kc == k {
					if bias != nil {
						flags |= flagBias
					}
					if relu {
						flags |= flagReLU
					}
				}
				// A strips are read in place, transposed or not: strip ir
				// starts at aoff+ir*astep.
				aoff, astep := ic*lda+pc, lda
				if transA {
					aoff, astep = pc*lda+ic, 1
				}
				for jr, w := 0, 0; jr < nc; jr += w {
					var cols int
					w, cols = panel(id, nr, nc-jr)
					var bp *float32
					bstride := w
					if !transB && cols == w {
						bp, bstride = &b[pc*ldb+jc+jr], ldb
					} else {
						bp = &ws.b[jr*k+pc*w]
					}
					// A whole strip of rows writes C in place: every column
					// when the panel lies inside C, and with AVX-512 also a
					// last panel with cols < w, under the lane mask.
					inPlace := cols == w || id == kernelAVX512
					mask := 1<<(cols-(w-16)) - 1
					var bb *float32
					if bias != nil && inPlace {
						bb = &bias[jc+jr]
					}
					for ir := 0; ir < mc; ir += mr {
						rows := min(mr, mc-ir)
						ap, as := &a[aoff+ir*astep], lda
						if rows < mr {
							ap, as = packEdge(ws, transA, a, lda, aoff+ir*astep, rows, kc)
						}
						crow := (ic+ir)*ldc + jc + jr
						if rows == mr && inPlace {
							callKernel(id, w, transA, kc, ap, as, bp, bstride, &c[crow], ldc, alpha, bb, flags, mask)
							continue
						}
						callKernel(id, w, transA, kc, ap, as, bp, bstride, &ws.tile[0], w, alpha, nil, flags&flagScale, fullMask)
						mergeTile(ws.tile[:], w, rows, cols, c[crow:], ldc, flags, bias, jc+jr)
					}
				}
			}
		}
	}
}

// mergeTile applies a partial tile computed into tile (stride nr) to C.
func mergeTile(tile []float32, nr, rows, cols int, c []float32, ldc, flags int, bias []float32, col0 int) {
	for i := 0; i < rows; i++ {
		crow := c[i*ldc : i*ldc+cols]
		t := tile[i*nr : i*nr+cols]
		for j, v := range t {
			if flags&flagAcc != 0 {
				v += crow[j]
			}
			if flags&flagBias != 0 {
				v += bias[col0+j]
			}
			if flags&flagReLU != 0 && v < 0 {
				v = 0
			}
			crow[j] = v
		}
	}
}

// packB copies columns j0..j0+cols of op(B), rows pc..pc+kc, into dst as a
// kc x nr panel, padding missing columns with zeros.
func packB(dst []float32, transB bool, b []float32, ldb, pc, kc, j0, cols, nr int) {
	if !transB {
		for l := 0; l < kc; l++ {
			row := dst[l*nr : (l+1)*nr]
			copy(row, b[(pc+l)*ldb+j0:(pc+l)*ldb+j0+cols])
			clear(row[cols:])
		}
		return
	}
	if cols < nr {
		clear(dst[:kc*nr])
	}
	for j := 0; j < cols; j++ {
		src := b[(j0+j)*ldb+pc : (j0+j)*ldb+pc+kc]
		for l, v := range src {
			dst[l*nr+j] = v
		}
	}
}

// packEdge copies a strip of rows < mr rows of A, kc deep, starting at
// a[off], into ws.edge padded with zero rows, in the layout the kernel for
// transA reads, and returns the strip and its stride.
func packEdge(ws *workspace, transA bool, a []float32, lda, off, rows, kc int) (*float32, int) {
	ws.edge = grow(ws.edge, mr*kc)
	e := ws.edge
	if transA {
		// Element (i, l) at e[l*mr+i].
		for l := 0; l < kc; l++ {
			dst := e[l*mr : (l+1)*mr]
			copy(dst, a[off+l*lda:off+l*lda+rows])
			clear(dst[rows:])
		}
		return &e[0], mr
	}
	for i := 0; i < mr; i++ {
		dst := e[i*kc : (i+1)*kc]
		if i < rows {
			copy(dst, a[off+i*lda:off+i*lda+kc])
		} else {
			clear(dst)
		}
	}
	return &e[0], kc
}

// sgemmDot computes C for small n with dot products of A rows and W rows,
// W = op(B)^T stored n x k (B itself when transB, else a transposed copy).
// beta is 0 or 1.
func sgemmDot(id kernelID, ws *workspace, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, bias []float32, relu bool) {
	w, ldw := b, ldb
	if !transB {
		ws.bt = grow(ws.bt, n*k)
		for l := 0; l < k; l++ {
			for j, v := range b[l*ldb : l*ldb+n] {
				ws.bt[j*k+l] = v
			}
		}
		w, ldw = ws.bt, k
	}
	// Blocks of 4x4 dot products, or 8x2 when n <= 2. Rows and columns
	// past the edges repeat the last one; their results are dropped.
	nA, nW := 4, 4
	if n <= 2 {
		nA, nW = 8, 2
	}
	for i0 := 0; i0 < m; i0 += nA {
		rows := min(nA, m-i0)
		for i := 0; i < nA; i++ {
			ws.ap[i] = &a[(i0+min(i, rows-1))*lda]
		}
		for j0 := 0; j0 < n; j0 += nW {
			cols := min(nW, n-j0)
			for j := 0; j < nW; j++ {
				ws.wp[j] = &w[(j0+min(j, cols-1))*ldw]
			}
			callDot(id, nW, k, &ws.ap, &ws.wp, &ws.out)
			for i := 0; i < rows; i++ {
				crow := c[(i0+i)*ldc+j0 : (i0+i)*ldc+j0+cols]
				for j := range crow {
					v := alpha * ws.out[nW*i+j]
					if beta != 0 {
						v += crow[j]
					}
					if bias != nil {
						v += bias[j0+j]
					}
					if relu && v < 0 {
						v = 0
					}
					crow[j] = v
				}
			}
		}
	}
}
