package train

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// A "same" convolution with stride 1 as gorgonia ops of our own. gorgonia's
// Conv2d multiplies im2col rows by the filters and then transposes the
// result back to NCHW; here the filters multiply the im2col matrix laid out
// [in*k*k][batch*h*w], which gives [out][batch*h*w] with one large SGEMM,
// and the result is moved to NCHW with contiguous block copies. The backward
// pass is two more SGEMMs and a shifted accumulation (col2im). The SGEMMs go
// to the BLAS gorgonia uses (see UseBLAS).

// convShape is one convolution's geometry.
type convShape struct{ b, cin, cout, k, h, w int }

func (s convShape) kk() int { return s.cin * s.k * s.k } // im2col rows
func (s convShape) hw() int { return s.h * s.w }
func (s convShape) n() int  { return s.b * s.h * s.w } // im2col columns

// convScratch is work memory shared by every convolution op of one graph:
// a machine runs one op at a time.
type convScratch struct{ col, dcol, y []float32 }

// outputOf returns the op's output tensor of the given shape, allocated on
// the first run and reused on later ones: a machine runs each op once per
// run and nothing keeps an op's output from one run to the next, so reuse
// saves allocating and zeroing every activation of every step.
func outputOf(cache **tensor.Dense, shape tensor.Shape) *tensor.Dense {
	if *cache == nil || !(*cache).Shape().Eq(shape) {
		*cache = tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape.Clone()...))
	}
	return *cache
}

func grow(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n]
}

// convTap is where kernel tap (ky, kx) reads from a plane flattened row by
// row: the value at index i comes from index i+shift, for i in [lo, hi);
// only the columns [x0, x1) of each row stay on the board (the others
// wrapped around an edge); dx is the tap's column offset.
type convTap struct {
	dx, shift, lo, hi, x0, x1 int
}

// tap returns the geometry of kernel tap (ky, kx).
func (s convShape) tap(ky, kx int) convTap {
	p, hw := s.k/2, s.hw()
	dy, dx := ky-p, kx-p
	shift := dy*s.w + dx
	return convTap{
		dx: dx, shift: shift,
		lo: max(0, -shift), hi: min(hw, hw-shift),
		x0: max(0, -dx), x1: min(s.w, s.w-dx),
	}
}

// empty reports whether the tap reads nothing on the board.
func (t convTap) empty() bool { return t.lo >= t.hi || t.x0 >= t.x1 }

// clearWrapped clears the columns of plane (h x w) that tap t wrapped around
// an edge.
func (s convShape) clearWrapped(plane []float32, t convTap) {
	if t.dx == 0 {
		return
	}
	for y := range s.h {
		clear(plane[y*s.w : y*s.w+t.x0])
		clear(plane[y*s.w+t.x1 : (y+1)*s.w])
	}
}

// im2col fills col [cin*k*k][b*h*w] from x [b][cin][h][w]: row (c, ky, kx)
// holds channel c shifted by (ky-k/2, kx-k/2), zero outside the board. A
// shift of the flattened plane by dy*w+dx moves every in-board value to its
// place at once; only the columns that wrapped around an edge are then
// cleared.
func (s convShape) im2col(col, x []float32) {
	hw, n := s.hw(), s.n()
	for c := range s.cin {
		for ky := range s.k {
			for kx := range s.k {
				row := col[((c*s.k+ky)*s.k+kx)*n:][:n]
				t := s.tap(ky, kx)
				for e := range s.b {
					src := x[(e*s.cin+c)*hw:][:hw]
					dst := row[e*hw:][:hw]
					if t.empty() {
						clear(dst)
						continue
					}
					clear(dst[:t.lo])
					copy(dst[t.lo:t.hi], src[t.lo+t.shift:t.hi+t.shift])
					clear(dst[t.hi:])
					s.clearWrapped(dst, t)
				}
			}
		}
	}
}

// col2im is the adjoint of im2col: dx [b][cin][h][w] = sum of the shifted
// rows of dcol. It clears the wrapped-around columns of dcol (scratch) so
// that each row is added with one flat shifted loop.
func (s convShape) col2im(dx, dcol []float32) {
	clear(dx)
	hw, n := s.hw(), s.n()
	for c := range s.cin {
		for ky := range s.k {
			for kx := range s.k {
				row := dcol[((c*s.k+ky)*s.k+kx)*n:][:n]
				t := s.tap(ky, kx)
				if t.empty() {
					continue
				}
				for e := range s.b {
					src := row[e*hw:][:hw]
					s.clearWrapped(src, t)
					dst := dx[(e*s.cin+c)*hw+t.lo+t.shift:][:t.hi-t.lo]
					for i, v := range src[t.lo:t.hi] {
						dst[i] += v
					}
				}
			}
		}
	}
}

// toNCHW copies y [cout][b][hw] to out [b][cout][hw].
func (s convShape) toNCHW(out, y []float32) {
	hw := s.hw()
	for o := range s.cout {
		for e := range s.b {
			copy(out[(e*s.cout+o)*hw:][:hw], y[(o*s.b+e)*hw:][:hw])
		}
	}
}

// fromNCHW copies dy [b][cout][hw] to y [cout][b][hw].
func (s convShape) fromNCHW(y, dy []float32) {
	hw := s.hw()
	for o := range s.cout {
		for e := range s.b {
			copy(y[(o*s.b+e)*hw:][:hw], dy[(e*s.cout+o)*hw:][:hw])
		}
	}
}

// float32s returns the contiguous float32 data of a value, materialising a
// view if needed.
func float32s(v G.Value, want int, what string) ([]float32, error) {
	d, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("train: conv %s: %T, want *tensor.Dense", what, v)
	}
	if d.RequiresIterator() {
		d = d.Materialize().(*tensor.Dense)
	}
	f, ok := d.Data().([]float32)
	if !ok || len(f) != want {
		return nil, fmt.Errorf("train: conv %s: %T of %d values, want %d float32", what, d.Data(), len(f), want)
	}
	return f, nil
}

var tensor4 = G.TensorType{Dims: 4, Of: hm.TypeVariable('a')}

// convKind tells the three ops apart.
type convKind int

const (
	convForward   convKind = iota // (x, w) -> y
	convGradInput                 // (w, dy) -> dx
	convGradW                     // (x, dy) -> dw
)

// convOp is a forward or backward convolution.
type convOp struct {
	plainOp
	convShape
	kind    convKind
	scratch *convScratch
	maxCol  int           // im2col size limit in floats; 0 means maxColFloats (tests lower it)
	out     *tensor.Dense // reused output (see outputOf)
}

func (op *convOp) Arity() int    { return 2 }
func (op *convOp) Type() hm.Type { return hm.NewFnType(tensor4, tensor4, tensor4) }
func (op *convOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	switch op.kind {
	case convForward:
		return tensor.Shape{op.b, op.cout, op.h, op.w}, nil
	case convGradInput:
		return tensor.Shape{op.b, op.cin, op.h, op.w}, nil
	}
	return tensor.Shape{op.cout, op.cin, op.k, op.k}, nil
}
func (op *convOp) String() string {
	return fmt.Sprintf("tabulaConv%d{b=%d,%d->%d,k=%d,%dx%d}", op.kind, op.b, op.cin, op.cout, op.k, op.h, op.w)
}
func (op *convOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *convOp) Hashcode() uint32      { return hashcode(op) }

// DiffWRT says both inputs of the forward op are differentiable.
func (op *convOp) DiffWRT(inputs int) []bool { return []bool{true, true} }

// SymDiff returns the gradient nodes of x and w for the forward op.
func (op *convOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.kind != convForward || len(inputs) != 2 {
		return nil, fmt.Errorf("train: %v: no second derivative", op)
	}
	dx, err := G.ApplyOp(&convOp{convShape: op.convShape, kind: convGradInput, scratch: op.scratch, maxCol: op.maxCol}, inputs[1], grad)
	if err != nil {
		return nil, err
	}
	dw, err := G.ApplyOp(&convOp{convShape: op.convShape, kind: convGradW, scratch: op.scratch, maxCol: op.maxCol}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dw}, nil
}

// maxColFloats bounds the im2col matrix (16 MiB): larger batches are
// processed in chunks of examples, which keeps the work memory of a Go-sized
// board small and the matrices in cache.
const maxColFloats = 1 << 22

// chunk is the number of examples per pass.
func (op *convOp) chunk() int {
	limit := op.maxCol
	if limit <= 0 {
		limit = maxColFloats
	}
	return max(1, min(op.b, limit/(op.kk()*op.hw())))
}

// Do runs the op.
func (op *convOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("train: %v: %d inputs, want 2", op, len(inputs))
	}
	s, sc := op.convShape, op.scratch
	xLen, yLen, wLen := s.b*s.cin*s.hw(), s.b*s.cout*s.hw(), s.cout*s.kk()
	shape, _ := op.InferShape()
	out := outputOf(&op.out, shape)
	res := out.Data().([]float32)
	var a, b []float32 // the two inputs
	var err error
	switch op.kind {
	case convForward:
		if a, err = float32s(inputs[0], xLen, "input"); err == nil {
			b, err = float32s(inputs[1], wLen, "filters")
		}
	case convGradInput:
		if a, err = float32s(inputs[0], wLen, "filters"); err == nil {
			b, err = float32s(inputs[1], yLen, "output gradient")
		}
	case convGradW:
		if a, err = float32s(inputs[0], xLen, "input"); err == nil {
			b, err = float32s(inputs[1], yLen, "output gradient")
		}
	}
	if err != nil {
		return nil, err
	}
	per := op.chunk()
	inPer, outPer := s.cin*s.hw(), s.cout*s.hw()
	for e0 := 0; e0 < s.b; e0 += per {
		c := s
		c.b = min(per, s.b-e0)
		n, kk := c.n(), c.kk()
		xs, ys := e0*inPer, e0*outPer // offsets of this chunk in x and y
		switch op.kind {
		case convForward:
			col, y := grow(&sc.col, kk*n), grow(&sc.y, c.b*outPer)
			c.im2col(col, a[xs:xs+c.b*inPer])
			G.WhichBLAS().Sgemm(blas.NoTrans, blas.NoTrans, c.cout, n, kk, 1, b, kk, col, n, 0, y, n)
			c.toNCHW(res[ys:ys+c.b*outPer], y)
		case convGradInput:
			y, dcol := grow(&sc.y, c.b*outPer), grow(&sc.dcol, kk*n)
			c.fromNCHW(y, b[ys:ys+c.b*outPer])
			G.WhichBLAS().Sgemm(blas.Trans, blas.NoTrans, kk, n, c.cout, 1, a, kk, y, n, 0, dcol, n)
			c.col2im(res[xs:xs+c.b*inPer], dcol)
		case convGradW:
			col, y := grow(&sc.col, kk*n), grow(&sc.y, c.b*outPer)
			c.im2col(col, a[xs:xs+c.b*inPer])
			c.fromNCHW(y, b[ys:ys+c.b*outPer])
			beta := float32(1) // accumulate over chunks
			if e0 == 0 {
				beta = 0
			}
			G.WhichBLAS().Sgemm(blas.NoTrans, blas.Trans, c.cout, kk, n, 1, y, n, col, n, beta, res, kk)
		}
	}
	return out, nil
}

// conv2d applies a same-padded, stride-1 convolution of x (b, cin, h, w) with
// filters f (cout, cin, k, k).
func conv2d(x, f *G.Node, scratch *convScratch) (*G.Node, error) {
	return conv2dChunked(x, f, scratch, 0)
}

// conv2dChunked is conv2d with an im2col size limit (0: maxColFloats).
func conv2dChunked(x, f *G.Node, scratch *convScratch, maxCol int) (*G.Node, error) {
	xs, fs := x.Shape(), f.Shape()
	if len(xs) != 4 || len(fs) != 4 || xs[1] != fs[1] || fs[2] != fs[3] || fs[2]%2 != 1 {
		return nil, fmt.Errorf("train: conv of %v by %v: want (b,c,h,w) by (out,c,k,k) with odd k", xs, fs)
	}
	op := &convOp{convShape: convShape{b: xs[0], cin: xs[1], cout: fs[0], k: fs[2], h: xs[2], w: xs[3]},
		kind: convForward, scratch: scratch, maxCol: maxCol}
	return G.ApplyOp(op, x, f)
}
