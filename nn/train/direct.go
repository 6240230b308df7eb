package train

import (
	"fmt"
	"math"

	"tabula/nn"
	"tabula/nn/gemm"
)

// The direct engine: one training step written out by hand, with the
// activations kept channels-last ([position][row][col][channel], one row per
// board point) as in nn's inference pass, so that every convolution is a
// product with the weights as the B matrix, which nn/gemm reads in place:
//
//	forward   Y[points][out]  = im2col(X)[points][9*in]   * Wm[9*in][out]
//	weights   dWm[9*in][out]  = im2col(X)^T[9*in][points] * dY[points][out]
//	input     dX[points][in]  = im2col(dY)[points][9*out] * Wf[9*out][in]
//
// where Wm is W laid out [tap][in][out] and Wf the filters rotated by 180
// degrees with in and out swapped (the adjoint of a "same" stride-1
// convolution is the convolution by the rotated filters), so no col2im
// scatter is needed. The batch is walked in chunks of a few positions so
// that the im2col matrix stays in the core's caches. Batch normalisation
// needs the statistics of the whole batch, so the pass goes layer by layer
// over the batch; normalisation, scale, shift, the residual addition and ReLU
// are one pass forward and two (sums, then the gradient) backward.
//
// The graph engine (gorgonia) computes the same function and gradient; the
// tests compare the two on the same batches.

// directChunkRows is the number of board points per chunk of the
// convolutions (BenchmarkTrainStep's chunk sub-benchmarks tune it).
var directChunkRows = 336

// dconv is one convolution of the direct engine.
type dconv struct {
	cin, cout, k int
	w, grad      []float32 // [out][in][k][k]: nn.Weights' array and its gradient
	wm           []float32 // [k*k*in][out]
	wf           []float32 // [9*out][in], rotated; nil when no input gradient is needed
	dwm          []float32 // [k*k*in][out]
}

func newDconv(c nn.Conv, grad []float32, inputGrad bool) *dconv {
	kk := c.K * c.K
	d := &dconv{cin: c.In, cout: c.Out, k: c.K, w: c.W, grad: grad,
		wm: make([]float32, kk*c.In*c.Out), dwm: make([]float32, kk*c.In*c.Out)}
	if inputGrad {
		d.wf = make([]float32, kk*c.In*c.Out)
	}
	return d
}

// pack lays the current weights out as wm (and wf).
func (c *dconv) pack() {
	kk := c.k * c.k
	for o := range c.cout {
		for i := range c.cin {
			src := c.w[(o*c.cin+i)*kk:][:kk]
			for t, v := range src {
				c.wm[(t*c.cin+i)*c.cout+o] = v
				if c.wf != nil {
					c.wf[((kk-1-t)*c.cout+o)*c.cin+i] = v
				}
			}
		}
	}
}

// unpackGrad writes dwm into grad in nn's layout.
func (c *dconv) unpackGrad() {
	kk := c.k * c.k
	for o := range c.cout {
		for i := range c.cin {
			dst := c.grad[(o*c.cin+i)*kk:][:kk]
			for t := range dst {
				dst[t] = c.dwm[(t*c.cin+i)*c.cout+o]
			}
		}
	}
}

// dbn is one batch normalisation of the direct engine, over channels
// [off, off+c) of rows ld floats wide.
type dbn struct {
	c, off, ld       int
	gamma, beta      []float32 // nn.Weights' arrays
	mean, vr         []float32 // running statistics in nn.Weights
	dgamma, dbeta    []float32 // gradients
	momentum         float64
	bmean, bunbiased []float64 // the batch's statistics, folded in by commit
	mu, inv          []float32 // batch mean and 1/sqrt(var+eps)
	scale, shift     []float32 // y*scale + shift = gamma*xhat + beta
	s1, s2           []float64 // sums
	ga, gb, gc       []float32 // backward coefficients
}

func newDbn(b nn.BatchNorm, dgamma, dbeta []float32, off, ld int, momentum float64) *dbn {
	c := b.C
	f32 := func() []float32 { return make([]float32, c) }
	f64 := func() []float64 { return make([]float64, c) }
	return &dbn{c: c, off: off, ld: ld, gamma: b.Gamma, beta: b.Beta, mean: b.Mean, vr: b.Var,
		dgamma: dgamma, dbeta: dbeta, momentum: momentum,
		bmean: f64(), bunbiased: f64(), mu: f32(), inv: f32(), scale: f32(), shift: f32(),
		s1: f64(), s2: f64(), ga: f32(), gb: f32(), gc: f32()}
}

// stats computes the batch statistics of y (rows rows) and the affine
// coefficients of the forward pass, in one pass: sums of y - y[0] and of its
// square in float64 (the shift by the first row keeps the variance exact
// when the mean is large).
func (b *dbn) stats(y []float32, rows int) {
	s1, s2 := b.s1, b.s2
	clear(s1)
	clear(s2)
	k := b.mu[:b.c]
	copy(k, y[b.off:b.off+b.c])
	if c0 := bnStatsFast(s1, s2, k, y[b.off:], rows, b.ld, b.c); c0 < b.c {
		for r := range rows {
			row := y[r*b.ld+b.off:][:b.c]
			for c := c0; c < b.c; c++ {
				d := float64(row[c] - k[c])
				s1[c] += d
				s2[c] += d * d
			}
		}
	}
	n := float64(rows)
	for c := range b.c {
		m := s1[c] / n
		vr := max(0, s2[c]/n-m*m)
		mean := m + float64(k[c])
		inv := 1 / math.Sqrt(vr+nn.BatchNormEps)
		b.bmean[c] = mean
		b.bunbiased[c] = vr
		if n > 1 {
			b.bunbiased[c] = vr * n / (n - 1)
		}
		b.mu[c] = float32(mean)
		b.inv[c] = float32(inv)
		sc := float64(b.gamma[c]) * inv
		b.scale[c] = float32(sc)
		b.shift[c] = float32(float64(b.beta[c]) - mean*sc)
	}
}

// apply writes out = y*scale + shift (then ReLU if relu), plus res if res is
// not nil (ReLU(res + ...), the end of a residual block).
func (b *dbn) apply(y, res, out []float32, rows int, relu bool) {
	sc, sh := b.scale[:b.c], b.shift[:b.c]
	var rs []float32
	if res != nil {
		rs = res[b.off:]
	}
	c0 := bnApplyFast(y[b.off:], rs, out[b.off:], rows, b.ld, b.c, sc, sh, relu)
	if c0 == b.c {
		return
	}
	for r := range rows {
		at := r*b.ld + b.off
		yr, or := y[at:][:b.c], out[at:][:b.c]
		switch {
		case res != nil:
			rr := res[at:][:b.c]
			for c := c0; c < b.c; c++ {
				or[c] = max(rr[c]+yr[c]*sc[c]+sh[c], 0)
			}
		case relu:
			for c := c0; c < b.c; c++ {
				or[c] = max(yr[c]*sc[c]+sh[c], 0)
			}
		default:
			for c := c0; c < b.c; c++ {
				or[c] = yr[c]*sc[c] + sh[c]
			}
		}
	}
}

// backward takes g, the gradient of the normalisation's affine output
// before ReLU's, multiplies it in place by ReLU's derivative read from the
// output out (if out is not nil), and writes dy, the gradient of the input
// y, and the gradients of gamma and beta.
func (b *dbn) backward(y, out, g, dy []float32, rows int) {
	s1, s2 := b.s1, b.s2
	clear(s1)
	clear(s2)
	mu, inv := b.mu[:b.c], b.inv[:b.c]
	var outs []float32
	if out != nil {
		outs = out[b.off:]
	}
	if c0 := bnBackSumsFast(s1, s2, y[b.off:], outs, g[b.off:], mu, inv, rows, b.ld, b.c); c0 < b.c {
		for r := range rows {
			at := r*b.ld + b.off
			yr, gr := y[at:][:b.c], g[at:][:b.c]
			if out != nil {
				or := out[at:][:b.c]
				for c := c0; c < b.c; c++ {
					gr[c] *= positive(or[c])
				}
			}
			for c := c0; c < b.c; c++ {
				d := gr[c]
				s1[c] += float64(d)
				s2[c] += float64(d * (yr[c] - mu[c]) * inv[c])
			}
		}
	}
	// dy = gamma*inv*(g - s1/n - xhat*s2/n), xhat = (y - mu)*inv:
	// dy = ga*g + gb*y + gc.
	n := float64(rows)
	for c := range b.c {
		b.dbeta[c] = float32(s1[c])
		b.dgamma[c] = float32(s2[c])
		k := float64(b.gamma[c]) * float64(inv[c])
		m2 := s2[c] / n
		b.ga[c] = float32(k)
		b.gb[c] = float32(-k * float64(inv[c]) * m2)
		b.gc[c] = float32(-k*s1[c]/n + k*float64(inv[c])*float64(mu[c])*m2)
	}
	ga, gb, gc := b.ga[:b.c], b.gb[:b.c], b.gc[:b.c]
	c0 := bnBackApplyFast(dy[b.off:], g[b.off:], y[b.off:], ga, gb, gc, rows, b.ld, b.c)
	if c0 == b.c {
		return
	}
	for r := range rows {
		at := r*b.ld + b.off
		yr, gr, dr := y[at:][:b.c], g[at:][:b.c], dy[at:][:b.c]
		for c := c0; c < b.c; c++ {
			dr[c] = ga[c]*gr[c] + gb[c]*yr[c] + gc[c]
		}
	}
}

// commit folds the batch statistics into the running ones.
func (b *dbn) commit() {
	m := b.momentum
	for c := range b.c {
		b.mean[c] = float32(m*b.bmean[c] + (1-m)*float64(b.mean[c]))
		b.vr[c] = float32(m*b.bunbiased[c] + (1-m)*float64(b.vr[c]))
	}
}

// dblock is one residual block: its layers and saved activations.
type dblock struct {
	conv1, conv2 *dconv
	bn1, bn2     *dbn
	y1, h, y2    []float32 // conv1 output, ReLU(BN1) (+ the pooled bias), conv2 output
	pool         *dpool    // global pooling, nil without
	se           *dse      // squeeze-and-excitation, nil without
}

// dse is a block's squeeze-and-excitation (nn.Config.SqueezeExcite): the
// mean over the board of each channel of v, BN2's output, goes through fc1
// (ReLU) and fc2, whose outputs are a scale (through a sigmoid) and a bias
// per position and channel; the block's output is
// ReLU(x + scale*v + bias).
type dse struct {
	r                  int // hidden units
	fc1, fc2           nn.Dense
	dw1, db1, dw2, db2 []float32 // their gradients
	v                  []float32 // BN2's output [point][f]
	mean, dmean        []float32 // [position][f]
	hid, dhid          []float32 // fc1's output after ReLU, and its gradient [position][r]
	o, do              []float32 // fc2's output, the scales through the sigmoid, and its gradient [position][2f]
}

// dpool is a block's global pooling (nn.Config.GlobalPooling): the mean and
// the maximum over the board of ReLU(u) in the first g channels of u, the
// first batch norm's output, go through the dense layer fc, whose output is
// a bias per position and channel added to u before the block's ReLU.
type dpool struct {
	g       int
	fc      nn.Dense
	dw, db  []float32 // fc's gradients
	u       []float32 // BN1's output before ReLU [point][f]
	pooled  []float32 // [position][2g]: means, then maxima
	pb, dpb []float32 // the bias and its gradient [position][f]
	dpooled []float32 // [position][2g]
	ones    []float32 // f ones: the scale of bnApplyFast's h = ReLU(u*1 + pb)
}

// directEngine is the hand-written training pass of one network at one
// batch size.
type directEngine struct {
	w                     *nn.Weights
	batch, hw, rows       int
	planes, f, nh, pf, vf int
	chunk                 int // positions per convolution chunk

	stem   *dconv
	stemBN *dbn
	blocks []dblock
	head   *dconv // the heads' 1x1 convs, [nha][f]: policy, value, then ownership
	pbn    *dbn   // over channels [0, pf) of the head output
	vbn    *dbn   // over channels [pf, pf+vf)
	nha    int    // head conv channels: nh, plus 1 with the ownership head

	planF, planIn *nn.Im2colPlan
	colF, colIn   []float32

	in    []float32   // the batch channels-last [point][plane]
	ystem []float32   // stem conv output
	x     [][]float32 // x[0]: stem output; x[i+1]: block i's output
	d, t1 []float32   // gradient buffers [point][f]
	t2    []float32

	hd, hdo, dhd []float32 // head conv output, after BN+ReLU, gradient [point][nha]
	pin, vin     []float32 // flattened head outputs [position][pf*hw], [position][vf*hw]
	dpin, dvin   []float32
	logitsBuf    []float32 // [position][actions]
	dlogits      []float32
	v1, dv1      []float32 // value hidden layer [position][hidden]
	v, du        []float32 // value [position], the gradient of the value head's outputs [position][1 or 3]
	z            []float32 // the batch's value targets

	policyGrads struct{ fcW, fcB []float32 }
	valueGrads  struct{ fc1W, fc1B, fc2W, fc2B []float32 }
	headGrads   [3][]float32 // policy.conv.w, value.conv.w and ownership.conv.w gradients

	// The auxiliary heads (KataGo's), each nil without: the ownership
	// head's raw outputs (before tanh) and their loss gradient
	// [position][point]; the score head's outputs and gradient [position].
	// The losses are OwnershipLoss and ScoreLoss, weighed by ownW and scoreW.
	own, down, ownT    []float32
	score, dscore, scT []float32
	scoreGrads         struct{ w, b []float32 }
	auxW               []float32 // the batch's AuxWeight (zero when it has none)
	ownW, scoreW       float64
	// The opponent-policy head, nil without: its logits, their loss
	// gradient and the batch's targets [position][actions], weighed by oppW.
	oppLogits, dopp, oppT []float32
	oppGrads              struct{ w, b []float32 }
	oppW                  float64
	scoreScale            float32 // 1 / the shape's ScoreScale

	bns []*dbn
	ws  gemm.Workspace
}

// directUnsupported says why the direct engine cannot train w, or returns
// "" if it can: it knows the AlphaZero network of nn.Weights (3x3 stem and
// tower, 1x1 heads) with or without KataGo's auxiliary heads (ownership,
// score) and global pooling.
func directUnsupported(w *nn.Weights) string {
	if w.Stem.K != 3 {
		return fmt.Sprintf("stem kernel %d, want 3", w.Stem.K)
	}
	for i, b := range w.Blocks {
		if b.Conv1.K != 3 || b.Conv2.K != 3 {
			return fmt.Sprintf("block %d: kernels %d and %d, want 3", i, b.Conv1.K, b.Conv2.K)
		}
		if b.Pool != nil && (b.Pool.Out != w.Config.Filters || b.Pool.In%2 != 0 || b.Pool.In/2 > w.Config.Filters) {
			return fmt.Sprintf("block %d: global pooling layer %dx%d for %d filters", i, b.Pool.Out, b.Pool.In, w.Config.Filters)
		}
	}
	if w.PolicyConv.K != 1 || w.ValueConv.K != 1 {
		return fmt.Sprintf("head kernels %d and %d, want 1", w.PolicyConv.K, w.ValueConv.K)
	}
	if o := w.Ownership; o != nil && (o.K != 1 || o.Out != 1) {
		return fmt.Sprintf("ownership head %dx%d kernel %d, want one 1x1 output", o.Out, o.In, o.K)
	}
	if sc := w.ScoreFC; sc != nil && (sc.Out != 1 || sc.In != w.Config.ValueHidden) {
		return fmt.Sprintf("score head %dx%d, want 1x%d", sc.Out, sc.In, w.Config.ValueHidden)
	}
	if o := w.OppPolicyFC; o != nil && (o.Out != w.PolicyFC.Out || o.In != w.PolicyFC.In) {
		return fmt.Sprintf("opponent-policy head %dx%d, want the policy layer's %dx%d", o.Out, o.In, w.PolicyFC.Out, w.PolicyFC.In)
	}
	return ""
}

// newDirectEngine lays out w for batches of cfg.BatchSize positions; grads
// holds one gradient array per parameter, in the order of paramsOf.
func newDirectEngine(w *nn.Weights, tc Config, grads [][]float32) (*directEngine, error) {
	cfg, s := w.Config, w.Shape
	batch, bnMomentum := tc.BatchSize, tc.BNMomentum
	if why := directUnsupported(w); why != "" {
		return nil, fmt.Errorf("train: direct engine: %s", why)
	}
	hw := s.Height * s.Width
	e := &directEngine{w: w, batch: batch, hw: hw, rows: batch * hw, planes: s.Planes, f: cfg.Filters,
		pf: cfg.PolicyFilters, vf: cfg.ValueFilters, nh: cfg.PolicyFilters + cfg.ValueFilters,
		ownW: tc.OwnershipWeight, scoreW: tc.ScoreWeight, oppW: tc.OppPolicyWeight, scoreScale: 1 / s.ScoreScale()}
	e.nha = e.nh
	if w.Ownership != nil {
		e.nha++
	}
	e.chunk = max(1, min(batch, directChunkRows/hw))
	rows, f := e.rows, e.f
	buf := func() []float32 { return make([]float32, rows*f) }
	g := 0
	next := func() []float32 { g++; return grads[g-1] }
	bn := func(b nn.BatchNorm, off, ld int) *dbn {
		gg := next()
		gb := next()
		d := newDbn(b, gg, gb, off, ld, bnMomentum)
		e.bns = append(e.bns, d)
		return d
	}
	e.stem = newDconv(w.Stem, next(), false)
	e.stemBN = bn(w.StemBN, 0, f)
	for _, b := range w.Blocks {
		var blk dblock
		blk.conv1 = newDconv(b.Conv1, next(), true)
		blk.bn1 = bn(b.BN1, 0, f)
		if b.Pool != nil {
			g := b.Pool.In / 2
			blk.pool = &dpool{g: g, fc: *b.Pool, u: buf(), pooled: make([]float32, batch*2*g),
				pb: make([]float32, batch*f), dpb: make([]float32, batch*f), dpooled: make([]float32, batch*2*g),
				ones: make([]float32, f)}
			for i := range blk.pool.ones {
				blk.pool.ones[i] = 1
			}
			blk.pool.dw, blk.pool.db = next(), next()
		}
		blk.conv2 = newDconv(b.Conv2, next(), true)
		blk.bn2 = bn(b.BN2, 0, f)
		if b.SE1 != nil {
			r := b.SE1.Out
			blk.se = &dse{r: r, fc1: *b.SE1, fc2: *b.SE2, v: buf(),
				mean: make([]float32, batch*f), dmean: make([]float32, batch*f),
				hid: make([]float32, batch*r), dhid: make([]float32, batch*r),
				o: make([]float32, batch*2*f), do: make([]float32, batch*2*f)}
			blk.se.dw1, blk.se.db1, blk.se.dw2, blk.se.db2 = next(), next(), next(), next()
		}
		blk.y1, blk.h, blk.y2 = buf(), buf(), buf()
		e.blocks = append(e.blocks, blk)
	}
	// Heads: policy.conv.w, policy.bn.*, policy.fc.*, value.conv.w,
	// value.bn.*, value.fc1.*, value.fc2.*, then ownership.conv.w,
	// score.fc.* and policy.opp.fc.* when the network has them.
	nha := e.nha
	e.head = &dconv{cin: f, cout: nha, k: 1, wm: make([]float32, nha*f), dwm: make([]float32, nha*f)}
	e.headGrads[0] = next()
	e.pbn = bn(w.PolicyBN, 0, nha)
	e.policyGrads.fcW, e.policyGrads.fcB = next(), next()
	e.headGrads[1] = next()
	e.vbn = bn(w.ValueBN, e.pf, nha)
	e.valueGrads.fc1W, e.valueGrads.fc1B = next(), next()
	e.valueGrads.fc2W, e.valueGrads.fc2B = next(), next()
	if w.Ownership != nil {
		e.headGrads[2] = next()
		e.own, e.down, e.ownT = make([]float32, batch*hw), make([]float32, batch*hw), make([]float32, batch*hw)
	}
	if w.ScoreFC != nil {
		e.scoreGrads.w, e.scoreGrads.b = next(), next()
		e.score, e.dscore, e.scT = make([]float32, batch), make([]float32, batch), make([]float32, batch)
	}
	if w.OppPolicyFC != nil {
		e.oppGrads.w, e.oppGrads.b = next(), next()
		n := batch * s.Actions
		e.oppLogits, e.dopp, e.oppT = make([]float32, n), make([]float32, n), make([]float32, n)
	}
	e.auxW = make([]float32, batch)
	if g != len(grads) {
		return nil, fmt.Errorf("train: direct engine bound %d gradients of %d", g, len(grads))
	}

	e.planF = nn.NewIm2colPlan(s.Height, s.Width, f)
	e.planIn = nn.NewIm2colPlan(s.Height, s.Width, s.Planes)
	crow := e.chunk * hw
	e.colF = make([]float32, crow*9*f)
	e.colIn = make([]float32, crow*9*s.Planes)
	e.in = make([]float32, rows*s.Planes)
	e.ystem = buf()
	for range len(w.Blocks) + 1 {
		e.x = append(e.x, buf())
	}
	e.d, e.t1, e.t2 = buf(), buf(), buf()
	nhr := rows * nha
	e.hd, e.hdo, e.dhd = make([]float32, nhr), make([]float32, nhr), make([]float32, nhr)
	e.pin, e.dpin = make([]float32, batch*e.pf*hw), make([]float32, batch*e.pf*hw)
	e.vin, e.dvin = make([]float32, batch*e.vf*hw), make([]float32, batch*e.vf*hw)
	e.logitsBuf, e.dlogits = make([]float32, batch*s.Actions), make([]float32, batch*s.Actions)
	e.v1, e.dv1 = make([]float32, batch*cfg.ValueHidden), make([]float32, batch*cfg.ValueHidden)
	e.v, e.du, e.z = make([]float32, batch), make([]float32, batch*w.ValueFC2.Out), make([]float32, batch)

	// Reserve the SGEMM scratch of every product (op(B) is k x n).
	ws := &e.ws
	ws.Reserve(f, 9*f)        // forward
	ws.Reserve(f, crow)       // weight gradients
	ws.Reserve(f, 9*s.Planes) // stem forward
	ws.Reserve(nha, f)        // head conv forward
	ws.Reserve(f, rows)       // head conv weight gradient
	ws.Reserve(f, nha)        // head conv input gradient
	if r := cfg.SEHidden(); r > 0 {
		ws.Reserve(r, f)     // squeeze-and-excitation: fc1
		ws.Reserve(2*f, r)   // fc2
		ws.Reserve(r, batch) // fc2's weight gradient
		ws.Reserve(f, batch) // fc1's
		ws.Reserve(r, 2*f)   // the hidden layer's gradient
		ws.Reserve(f, r)     // the means' gradient
	}
	if g := cfg.Pooled(); g > 0 {
		ws.Reserve(f, 2*g)     // pooled bias
		ws.Reserve(2*g, batch) // its weight gradient
		ws.Reserve(2*g, f)     // the pooled features' gradient
	}
	ws.Reserve(s.Actions, e.pf*hw)
	ws.Reserve(e.pf*hw, batch)
	ws.Reserve(e.pf*hw, s.Actions)
	ws.Reserve(cfg.ValueHidden, e.vf*hw)
	ws.Reserve(e.vf*hw, batch)
	ws.Reserve(e.vf*hw, cfg.ValueHidden)
	return e, nil
}

// convForward computes y = conv(x) over the batch, chunk by chunk.
func (e *directEngine) convForward(c *dconv, x, y []float32) {
	hw := e.hw
	col, plan := e.colF, e.planF
	if c == e.stem {
		col, plan = e.colIn, e.planIn
	}
	k9 := 9 * c.cin
	for e0 := 0; e0 < e.batch; e0 += e.chunk {
		nb := min(e.chunk, e.batch-e0)
		rows := nb * hw
		plan.Fill(col, x[e0*hw*c.cin:], nb)
		e.ws.Sgemm(false, false, rows, c.cout, k9, 1, col, k9, c.wm, c.cout, 0, y[e0*hw*c.cout:], c.cout)
	}
}

// convBackward computes the weight gradient of c from its input x and
// output gradient dy, and, if dx is not nil, the input gradient, added to
// dx if acc.
func (e *directEngine) convBackward(c *dconv, x, dy, dx []float32, acc bool) {
	hw := e.hw
	col, plan := e.colF, e.planF
	if c == e.stem {
		col, plan = e.colIn, e.planIn
	}
	k9 := 9 * c.cin
	var beta float32
	if acc {
		beta = 1
	}
	for e0 := 0; e0 < e.batch; e0 += e.chunk {
		nb := min(e.chunk, e.batch-e0)
		rows := nb * hw
		plan.Fill(col, x[e0*hw*c.cin:], nb)
		var wb float32 = 1
		if e0 == 0 {
			wb = 0
		}
		dyc := dy[e0*hw*c.cout:]
		e.ws.Sgemm(true, false, k9, c.cout, rows, 1, col, k9, dyc, c.cout, wb, c.dwm, c.cout)
		if dx != nil {
			k9o := 9 * c.cout
			e.planF.Fill(e.colF, dyc, nb)
			e.ws.Sgemm(false, false, rows, c.cin, k9o, 1, e.colF, k9o, c.wf, c.cin, beta, dx[e0*hw*c.cin:], c.cin)
		}
	}
	c.unpackGrad()
}

// forward runs the batch through the network and returns its losses (the
// auxiliary ones unweighted, zero without their heads); it changes nothing
// outside the engine.
func (e *directEngine) forward(b Batch) (l Losses) {
	w := e.w
	hw, p, B := e.hw, e.planes, e.batch
	for i := range B {
		o, d := b.Obs[i*p*hw:(i+1)*p*hw], e.in[i*hw*p:(i+1)*hw*p]
		for c := range p {
			for j, v := range o[c*hw : (c+1)*hw] {
				d[j*p+c] = v
			}
		}
	}
	copy(e.z, b.Value)

	e.stem.pack()
	e.convForward(e.stem, e.in, e.ystem)
	e.stemBN.stats(e.ystem, e.rows)
	e.stemBN.apply(e.ystem, nil, e.x[0], e.rows, true)
	for i := range e.blocks {
		blk := &e.blocks[i]
		blk.conv1.pack()
		blk.conv2.pack()
		e.convForward(blk.conv1, e.x[i], blk.y1)
		blk.bn1.stats(blk.y1, e.rows)
		if blk.pool == nil {
			blk.bn1.apply(blk.y1, nil, blk.h, e.rows, true)
		} else {
			blk.bn1.apply(blk.y1, nil, blk.pool.u, e.rows, false)
			e.poolForward(blk.pool, blk.h)
		}
		e.convForward(blk.conv2, blk.h, blk.y2)
		blk.bn2.stats(blk.y2, e.rows)
		if blk.se == nil {
			blk.bn2.apply(blk.y2, e.x[i], e.x[i+1], e.rows, true)
		} else {
			blk.bn2.apply(blk.y2, nil, blk.se.v, e.rows, false)
			e.seForward(blk.se, e.x[i], e.x[i+1])
		}
	}
	x := e.x[len(e.blocks)]

	// Heads: the 1x1 convolutions at once, weights [nha][f].
	nha := e.nha
	copy(e.head.wm, w.PolicyConv.W)
	copy(e.head.wm[e.pf*e.f:], w.ValueConv.W)
	if w.Ownership != nil {
		copy(e.head.wm[e.nh*e.f:], w.Ownership.W)
	}
	e.ws.Sgemm(false, true, e.rows, nha, e.f, 1, x, e.f, e.head.wm, e.f, 0, e.hd, nha)
	e.pbn.stats(e.hd, e.rows)
	e.pbn.apply(e.hd, nil, e.hdo, e.rows, true)
	e.vbn.stats(e.hd, e.rows)
	e.vbn.apply(e.hd, nil, e.hdo, e.rows, true)
	// Flatten [point][channel] to [channel][point] per position.
	for i := range B {
		for j := range hw {
			r := e.hdo[(i*hw+j)*nha:][:nha]
			for c := range e.pf {
				e.pin[(i*e.pf+c)*hw+j] = r[c]
			}
			for c := range e.vf {
				e.vin[(i*e.vf+c)*hw+j] = r[e.pf+c]
			}
			if e.own != nil {
				e.own[i*hw+j] = e.hd[(i*hw+j)*nha+e.nh]
			}
		}
	}
	A := w.Shape.Actions
	e.ws.SgemmNTBiasReLU(B, A, e.pf*hw, e.pin, e.pf*hw, w.PolicyFC.W, e.pf*hw, w.PolicyFC.B, false, e.logitsBuf, A)
	vh := w.Config.ValueHidden
	e.ws.SgemmNTBiasReLU(B, vh, e.vf*hw, e.vin, e.vf*hw, w.ValueFC1.W, e.vf*hw, w.ValueFC1.B, true, e.v1, vh)
	// Losses, and the gradients of the logits and of the value head's
	// outputs (before tanh, or before the win/draw/loss softmax).
	if w.Config.WDL {
		l.Value = e.wdlLoss(B, vh)
	} else {
		for i := range B {
			e.v[i] = float32(math.Tanh(float64(dot(e.v1[i*vh:(i+1)*vh], w.ValueFC2.W) + w.ValueFC2.B[0])))
		}
		for i, z := range e.z {
			d := float64(z) - float64(e.v[i])
			l.Value += d * d
			e.du[i] = float32(-2 * d / float64(B) * (1 - float64(e.v[i])*float64(e.v[i])))
		}
		l.Value /= float64(B)
	}
	l.Policy = policyLoss(e.logitsBuf, b.Policy, b.Legal, B, A, e.dlogits, 1/float64(B))
	if e.oppLogits != nil {
		// The opponent's reply, over every action (its legal moves are not
		// stored); a row of zeros, and a batch without targets, weigh 0.
		e.ws.SgemmNTBiasReLU(B, A, e.pf*hw, e.pin, e.pf*hw, w.OppPolicyFC.W, e.pf*hw, w.OppPolicyFC.B, false, e.oppLogits, A)
		target := b.OppPolicy
		if target == nil {
			clear(e.oppT)
			target = e.oppT
		}
		l.OppPolicy = policyLoss(e.oppLogits, target, nil, B, A, e.dopp, e.oppW/float64(B))
	}

	// The auxiliary heads: a batch without targets weighs every example 0.
	if e.own == nil && e.score == nil {
		return l
	}
	if b.AuxWeight == nil {
		clear(e.auxW)
	} else {
		copy(e.auxW, b.AuxWeight)
	}
	if e.own != nil {
		if b.AuxWeight == nil {
			clear(e.ownT)
		} else {
			copy(e.ownT, b.Ownership)
		}
		l.Ownership = OwnershipLoss(e.own, e.ownT, e.auxW, B, hw, e.down, e.ownW)
	}
	if e.score != nil {
		for i := range B {
			e.score[i] = dot(e.v1[i*vh:(i+1)*vh], w.ScoreFC.W) + w.ScoreFC.B[0]
			e.scT[i] = 0
			if b.AuxWeight != nil {
				e.scT[i] = b.Score[i] * e.scoreScale
			}
		}
		l.Score = ScoreLoss(e.score, e.scT, e.auxW, B, e.dscore, e.scoreW)
	}
	return l
}

// seForward ends a block with squeeze-and-excitation: from v, BN2's output,
// and x, the block's input, the block's output out = ReLU(x + s*v + b).
func (e *directEngine) seForward(p *dse, x, out []float32) {
	hw, f, B := e.hw, e.f, e.batch
	nn.ChannelMeans(p.mean, p.v, B, hw, f)
	e.ws.SgemmNTBiasReLU(B, p.r, f, p.mean, f, p.fc1.W, f, p.fc1.B, true, p.hid, p.r)
	e.ws.SgemmNTBiasReLU(B, 2*f, p.r, p.hid, p.r, p.fc2.W, p.r, p.fc2.B, false, p.o, 2*f)
	copy(out, x)
	for i := range B {
		o := p.o[i*2*f : (i+1)*2*f]
		nn.SigmoidInPlace(o[:f])
		nn.SEApply(out[i*hw*f:(i+1)*hw*f], p.v[i*hw*f:(i+1)*hw*f], o[:f], o[f:])
	}
}

// seBackward takes d, the gradient of a squeeze-and-excitation block's
// output out, multiplies it in place by ReLU's derivative (it is then the
// gradient of the skip connection), writes dv, the gradient of BN2's
// output, and the gradients of fc1 and fc2.
func (e *directEngine) seBackward(p *dse, out, d, dv []float32) {
	hw, f, B := e.hw, e.f, e.batch
	for i := range B {
		o, do := p.o[i*2*f:(i+1)*2*f], p.do[i*2*f:(i+1)*2*f]
		clear(do)
		for j := range hw {
			at := (i*hw + j) * f
			dr, or, vr := d[at:at+f], out[at:at+f], p.v[at:at+f]
			for c := range f {
				g := dr[c] * positive(or[c])
				dr[c] = g
				do[c] += g * vr[c]
				do[f+c] += g
			}
		}
		for c := range f {
			s := o[c]
			do[c] *= s * (1 - s)
		}
	}
	// fc2: o = hid W2^T + b2; hid = ReLU(mean W1^T + b1).
	e.ws.Sgemm(true, false, 2*f, p.r, B, 1, p.do, 2*f, p.hid, p.r, 0, p.dw2, p.r)
	colSums(p.db2, p.do, B, 2*f)
	e.ws.Sgemm(false, false, B, p.r, 2*f, 1, p.do, 2*f, p.fc2.W, p.r, 0, p.dhid, p.r)
	for k, h := range p.hid {
		p.dhid[k] *= positive(h)
	}
	e.ws.Sgemm(true, false, p.r, f, B, 1, p.dhid, p.r, p.mean, f, 0, p.dw1, f)
	colSums(p.db1, p.dhid, B, p.r)
	e.ws.Sgemm(false, false, B, f, p.r, 1, p.dhid, p.r, p.fc1.W, f, 0, p.dmean, f)
	inv := 1 / float32(hw)
	for i := range B {
		s, dm := p.o[i*2*f:i*2*f+f], p.dmean[i*f:(i+1)*f]
		for j := range hw {
			at := (i*hw + j) * f
			dr, vr := d[at:at+f], dv[at:at+f]
			for c := range f {
				vr[c] = dr[c]*s[c] + dm[c]*inv
			}
		}
	}
}

// poolForward finishes a pooling block's first half: from u, BN1's output,
// the pooled features, the bias they make, and h = ReLU(u + bias).
func (e *directEngine) poolForward(p *dpool, h []float32) {
	hw, f, g := e.hw, e.f, p.g
	nn.PoolMeanMax(p.pooled, p.u, e.batch, hw, f, g)
	e.ws.SgemmNTBiasReLU(e.batch, f, 2*g, p.pooled, 2*g, p.fc.W, 2*g, p.fc.B, false, p.pb, f)
	for i := range e.batch {
		pb := p.pb[i*f : (i+1)*f]
		at := i * hw * f
		c0 := bnApplyFast(p.u[at:], nil, h[at:], hw, f, f, p.ones, pb, true) // u*1 + pb: exactly u + pb
		if c0 == f {
			continue
		}
		for j := range hw {
			at := (i*hw + j) * f
			ur, hr := p.u[at:at+f], h[at:at+f]
			for c := c0; c < f; c++ {
				hr[c] = max(ur[c]+pb[c], 0)
			}
		}
	}
}

// poolBackward turns dh, the gradient of a pooling block's h, into the
// gradient of u in place, through the ReLU, the bias and the pooling (a
// mean's share to every positive point of its channel, a maximum's to the
// first point that holds it when it is positive), and writes the gradients
// of the pooling's dense layer.
func (e *directEngine) poolBackward(p *dpool, h, dh []float32) {
	hw, f, g, B := e.hw, e.f, p.g, e.batch
	for i := range B {
		dpb := p.dpb[i*f : (i+1)*f]
		clear(dpb)
		c0 := reluMaskSumFast(dh[i*hw*f:], h[i*hw*f:], dpb, hw, f, f)
		if c0 == f {
			continue
		}
		for j := range hw {
			at := (i*hw + j) * f
			dr, hr := dh[at:at+f], h[at:at+f]
			for c := c0; c < f; c++ {
				dr[c] *= positive(hr[c])
				dpb[c] += dr[c]
			}
		}
	}
	e.ws.Sgemm(true, false, f, 2*g, B, 1, p.dpb, f, p.pooled, 2*g, 0, p.dw, 2*g)
	colSums(p.db, p.dpb, B, f)
	e.ws.Sgemm(false, false, B, 2*g, f, 1, p.dpb, f, p.fc.W, 2*g, 0, p.dpooled, 2*g)
	inv := 1 / float32(hw)
	for i := range B {
		dm, dmax := p.dpooled[i*2*g:i*2*g+g], p.dpooled[i*2*g+g:(i+1)*2*g]
		for c := range g {
			d := dm[c] * inv
			arg, mx := -1, float32(0)
			for j := range hw {
				at := (i*hw+j)*f + c
				if v := p.u[at]; v > 0 {
					dh[at] += d
					if v > mx {
						arg, mx = at, v
					}
				}
			}
			if arg >= 0 {
				dh[arg] += dmax[c]
			}
		}
	}
}

// backward computes every gradient of the last forward pass.
func (e *directEngine) backward() {
	w := e.w
	hw, B, f, nh := e.hw, e.batch, e.f, e.nh
	A, vh := w.Shape.Actions, w.Config.ValueHidden
	vg, pg := &e.valueGrads, &e.policyGrads

	// Value head: vo outputs (1, or 3 with WDL), gradients du [position][vo].
	vo := w.ValueFC2.Out
	clear(vg.fc2W)
	clear(vg.fc2B)
	for i := range B {
		row := e.v1[i*vh : (i+1)*vh]
		du := e.du[i*vo : (i+1)*vo]
		for k, d := range du {
			vg.fc2B[k] += d
			gw := vg.fc2W[k*vh : (k+1)*vh]
			for j, v := range row {
				gw[j] += d * v
			}
		}
		drow := e.dv1[i*vh : (i+1)*vh]
		for j, v := range row {
			var s float32
			for k, d := range du {
				s += d * w.ValueFC2.W[k*vh+j]
			}
			drow[j] = s * positive(v)
		}
	}
	if e.score != nil {
		sg := &e.scoreGrads
		clear(sg.w)
		var dsb float32
		for i, d := range e.dscore {
			dsb += d
			row := e.v1[i*vh : (i+1)*vh]
			drow := e.dv1[i*vh : (i+1)*vh]
			for j, v := range row {
				sg.w[j] += d * v
				drow[j] += d * w.ScoreFC.W[j] * positive(v)
			}
		}
		sg.b[0] = dsb
	}
	e.ws.Sgemm(true, false, vh, e.vf*hw, B, 1, e.dv1, vh, e.vin, e.vf*hw, 0, vg.fc1W, e.vf*hw)
	colSums(vg.fc1B, e.dv1, B, vh)
	e.ws.Sgemm(false, false, B, e.vf*hw, vh, 1, e.dv1, vh, w.ValueFC1.W, e.vf*hw, 0, e.dvin, e.vf*hw)

	// Policy head.
	e.ws.Sgemm(true, false, A, e.pf*hw, B, 1, e.dlogits, A, e.pin, e.pf*hw, 0, pg.fcW, e.pf*hw)
	colSums(pg.fcB, e.dlogits, B, A)
	e.ws.Sgemm(false, false, B, e.pf*hw, A, 1, e.dlogits, A, w.PolicyFC.W, e.pf*hw, 0, e.dpin, e.pf*hw)
	if e.oppLogits != nil {
		og := &e.oppGrads
		e.ws.Sgemm(true, false, A, e.pf*hw, B, 1, e.dopp, A, e.pin, e.pf*hw, 0, og.w, e.pf*hw)
		colSums(og.b, e.dopp, B, A)
		e.ws.Sgemm(false, false, B, e.pf*hw, A, 1, e.dopp, A, w.OppPolicyFC.W, e.pf*hw, 1, e.dpin, e.pf*hw)
	}

	// Back to [point][channel], through ReLU and the heads' batch norms.
	nha := e.nha
	for i := range B {
		for j := range hw {
			r := e.dhd[(i*hw+j)*nha:][:nha]
			for c := range e.pf {
				r[c] = e.dpin[(i*e.pf+c)*hw+j]
			}
			for c := range e.vf {
				r[e.pf+c] = e.dvin[(i*e.vf+c)*hw+j]
			}
			if e.own != nil {
				r[nh] = e.down[i*hw+j]
			}
		}
	}
	e.pbn.backward(e.hd, e.hdo, e.dhd, e.dhd, e.rows)
	e.vbn.backward(e.hd, e.hdo, e.dhd, e.dhd, e.rows)
	x := e.x[len(e.blocks)]
	e.ws.Sgemm(true, false, nha, f, e.rows, 1, e.dhd, nha, x, f, 0, e.head.dwm, f)
	copy(e.headGrads[0], e.head.dwm[:e.pf*f])
	copy(e.headGrads[1], e.head.dwm[e.pf*f:nh*f])
	if e.own != nil {
		copy(e.headGrads[2], e.head.dwm[nh*f:])
	}
	d := e.d
	e.ws.Sgemm(false, false, e.rows, f, nha, 1, e.dhd, nha, e.head.wm, f, 0, d, f)

	// The tower, last block first; d is the gradient of the block's output.
	for i := len(e.blocks) - 1; i >= 0; i-- {
		blk := &e.blocks[i]
		// d becomes the gradient of the skip and of BN2's output.
		if blk.se == nil {
			blk.bn2.backward(blk.y2, e.x[i+1], d, e.t1, e.rows)
		} else {
			e.seBackward(blk.se, e.x[i+1], d, e.t2)
			blk.bn2.backward(blk.y2, nil, e.t2, e.t1, e.rows)
		}
		e.convBackward(blk.conv2, blk.h, e.t1, e.t2, false)
		if blk.pool == nil {
			blk.bn1.backward(blk.y1, blk.h, e.t2, e.t1, e.rows)
		} else {
			e.poolBackward(blk.pool, blk.h, e.t2)
			blk.bn1.backward(blk.y1, nil, e.t2, e.t1, e.rows)
		}
		e.convBackward(blk.conv1, e.x[i], e.t1, d, true) // d += conv1's input gradient
	}
	e.stemBN.backward(e.ystem, e.x[0], d, e.t1, e.rows)
	e.convBackward(e.stem, e.in, e.t1, nil, false)
}

// commit folds the last batch's statistics into the running ones.
func (e *directEngine) commit() {
	for _, b := range e.bns {
		b.commit()
	}
}

// colSums writes the column sums of x (rows x n) into dst.
func colSums(dst, x []float32, rows, n int) { nn.ColumnSums(dst[:n], x[:rows*n]) }

func dot(a, b []float32) float32 {
	var s float32
	b = b[:len(a)]
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// wdlLoss computes the win/draw/loss head's values and its mean
// cross-entropy against nn.WDLTarget of each value target, and leaves the
// gradient of each output logit, (p - t)/B, in e.du.
func (e *directEngine) wdlLoss(B, vh int) float64 {
	w := e.w
	var loss float64
	for i := range B {
		h := e.v1[i*vh : (i+1)*vh]
		var z [3]float32
		for k := range z {
			z[k] = dot(h, w.ValueFC2.W[k*vh:(k+1)*vh]) + w.ValueFC2.B[k]
		}
		p, lse := nn.WDLSoftmax(z[:])
		e.v[i] = p[0] - p[2]
		t := nn.WDLTarget(e.z[i])
		for k := range z {
			if t[k] > 0 {
				loss -= float64(t[k]) * (float64(z[k]) - lse)
			}
			e.du[i*3+k] = (p[k] - t[k]) / float32(B)
		}
	}
	return loss / float64(B)
}
