package nn

import (
	"errors"
	"fmt"
	"math"

	"tabula/nn/gemm"
)

// chunkRows is the number of board points (rows of the convolution matrices)
// that Forward pushes through the whole tower at a time. Working on a chunk of
// positions keeps the im2col matrix and the activations in the core's caches;
// it is the tuning knob measured by BenchmarkForwardChunk.
const chunkRows = 336

// Model is the immutable inference form of a network: batch normalisation
// folded into the convolutions (scale into the weights, shift into a
// per-output-channel bias) and every weight matrix repacked as Forward's
// kernels want it. A Model is safe for concurrent use; it shares nothing with
// the Weights it was made from, so training may go on updating those.
//
// Inside Forward, activations are kept channels-last: a chunk of positions is
// a matrix with one row per board point ([position][row][col]) and one column
// per channel, so that a 3x3 "same" convolution is one matrix product
// C[points][out] = im2col(X)[points][9*in] * W[9*in][out], the im2col row of a
// point holding its 3x3 neighbourhood in [dy][dx][channel] order.
type Model struct {
	cfg   Config
	shape Shape
	hw    int // board points
	heads int // PolicyFilters + ValueFilters: channels of the fused 1x1 head conv

	stem   layer
	blocks []blockLayers
	head   layer     // both heads' 1x1 convs, stored [PF+VF][F] (transposed)
	policy layer     // stored [Actions][hw*heads] (transposed), zero for the value channels
	value1 layer     // stored [ValueHidden][hw*heads] (transposed), zero for the policy channels
	value2 []float32 // [ValueOutputs][ValueHidden]
	v2bias []float32 // [ValueOutputs]

	// The auxiliary heads, which only ForwardAux runs: the ownership
	// head's 1x1 conv [Filters] (nil without it), the score head's dense
	// layer [ValueHidden] and bias (nil without it).
	own    []float32
	score  []float32
	scoreB float32

	stemCopies, towerCopies []copyOp // im2col plans
	towerAlign              int      // planAlign of the tower's plan

	prec      Precision // of the tower's convolutions
	autoCheck string    // precision auto's verdicts (NewModelFor), "" otherwise
	low       []lowConv // BF16, Int8: conv1 and conv2 of each block
	lowCopies []copyOp  // im2col plan of the low-precision tower
	lowAlign  int       // planAlign of lowCopies

	flops int64
}

// layer is a weight matrix of k inputs and n outputs, stored [k][n]
// (row-major) for the tower's convolutions and transposed, [n][k], for the
// heads, and a bias per output.
type layer struct {
	k, n int
	w    []float32
	bias []float32
}

// blockLayers is one residual block; pool is the global pooling's dense
// layer, stored [filters][2*pooled] (transposed), with k = 0 when the block
// has none; se1 and se2 are the squeeze-and-excitation layers, stored
// transposed, with k = 0 without them.
type blockLayers struct{ conv1, conv2, pool, se1, se2 layer }

// NewModel checks w and folds it into an inference Model. w is only read
// during the call.
func NewModel(w *Weights) (*Model, error) {
	if w == nil {
		return nil, errors.New("nn: nil weights")
	}
	if err := checkWeights(w); err != nil {
		return nil, err
	}
	cfg, sh := w.Config, w.Shape
	hw := sh.Height * sh.Width
	m := &Model{cfg: cfg, shape: sh, hw: hw, heads: cfg.PolicyFilters + cfg.ValueFilters}
	m.stem = foldConv(w.Stem, w.StemBN)
	for _, b := range w.Blocks {
		bl := blockLayers{conv1: foldConv(b.Conv1, b.BN1), conv2: foldConv(b.Conv2, b.BN2)}
		if b.Pool != nil {
			bl.pool = denseLayer(*b.Pool)
		}
		if b.SE1 != nil {
			bl.se1, bl.se2 = denseLayer(*b.SE1), denseLayer(*b.SE2)
		}
		m.blocks = append(m.blocks, bl)
	}
	// The two heads' 1x1 convs as one layer with weights stored [out][in].
	pc, vc := foldConv(w.PolicyConv, w.PolicyBN), foldConv(w.ValueConv, w.ValueBN)
	m.head = layer{k: cfg.Filters, n: m.heads, w: append(transpose(pc.w, pc.k, pc.n), transpose(vc.w, vc.k, vc.n)...),
		bias: append(pc.bias, vc.bias...)}
	m.policy = spreadDense(w.PolicyFC, hw, m.heads, 0)
	m.value1 = spreadDense(w.ValueFC1, hw, m.heads, cfg.PolicyFilters)
	m.value2 = append([]float32(nil), w.ValueFC2.W...)
	m.stemCopies = im2colPlan(sh.Height, sh.Width, sh.Planes)
	m.towerCopies = im2colPlan(sh.Height, sh.Width, cfg.Filters)
	m.towerAlign = planAlign(m.towerCopies, 4)
	m.v2bias = append([]float32(nil), w.ValueFC2.B...)
	if w.Ownership != nil {
		m.own = append([]float32(nil), w.Ownership.W...)
	}
	if w.ScoreFC != nil {
		m.score = append([]float32(nil), w.ScoreFC.W...)
		m.scoreB = w.ScoreFC.B[0]
	}

	f := int64(cfg.Filters)
	conv3 := 2 * int64(hw) * 9 * f * f
	m.flops = 2*int64(hw)*9*int64(sh.Planes)*f + 2*int64(cfg.Blocks)*conv3 +
		2*int64(hw)*f*int64(m.heads) +
		2*int64(w.PolicyFC.In)*int64(sh.Actions) +
		2*int64(w.ValueFC1.In)*int64(cfg.ValueHidden) + 2*int64(cfg.ValueHidden)*int64(cfg.ValueOutputs())
	for _, b := range m.blocks {
		m.flops += 2*int64(b.pool.k)*int64(b.pool.n) + 2*int64(b.se1.k)*int64(b.se1.n) + 2*int64(b.se2.k)*int64(b.se2.n)
	}
	return m, nil
}

// Config returns the tower size of the network.
func (m *Model) Config() Config { return m.cfg }

// Shape returns the input and output shape of the network.
func (m *Model) Shape() Shape { return m.shape }

// HasOwnership reports whether the network has the ownership head.
func (m *Model) HasOwnership() bool { return m.own != nil }

// HasScore reports whether the network has the score head.
func (m *Model) HasScore() bool { return m.score != nil }

// FLOPsPerPosition counts the floating-point operations of one position's
// forward pass through the network as defined (a multiply-add is two; batch
// normalisation, activations and the zero padding Forward adds are not
// counted).
func (m *Model) FLOPsPerPosition() int64 { return m.flops }

// checkWeights reports the first array of w whose shape differs from the one
// w.Config and w.Shape call for, and impossible running variances.
func checkWeights(w *Weights) error {
	if err := w.Config.Validate(); err != nil {
		return err
	}
	if err := w.Shape.Validate(); err != nil {
		return err
	}
	got, want := w.Tensors(), allocate(w.Config, w.Shape).Tensors()
	if len(got) != len(want) {
		return fmt.Errorf("nn: weights have %d arrays (%d blocks), config wants %d (%d blocks)",
			len(got), len(w.Blocks), len(want), w.Config.Blocks)
	}
	for i, t := range got {
		if t.Name != want[i].Name || fmt.Sprint(t.Shape) != fmt.Sprint(want[i].Shape) || len(t.Data) != len(want[i].Data) {
			return fmt.Errorf("nn: weights array %s has shape %v and %d values, want %s %v",
				t.Name, t.Shape, len(t.Data), want[i].Name, want[i].Shape)
		}
		if isRunningStat(t.Name) && t.Name[len(t.Name)-4:] == ".var" {
			for j, v := range t.Data {
				if !(v >= 0) {
					return fmt.Errorf("nn: weights array %s[%d] = %g, a variance must be >= 0", t.Name, j, v)
				}
			}
		}
	}
	return nil
}

// foldConv folds a batch normalisation into the convolution before it and
// repacks the weights [Out][In][K][K] as a [K*K*In][Out] matrix whose row
// order ([dy][dx][in]) matches im2col.
func foldConv(c Conv, bn BatchNorm) layer {
	kk := c.K * c.K
	l := layer{k: kk * c.In, n: c.Out, w: make([]float32, kk*c.In*c.Out), bias: make([]float32, c.Out)}
	for o := 0; o < c.Out; o++ {
		s := float64(bn.Gamma[o]) / math.Sqrt(float64(bn.Var[o])+BatchNormEps)
		l.bias[o] = float32(float64(bn.Beta[o]) - float64(bn.Mean[o])*s)
		for i := 0; i < c.In; i++ {
			for t := 0; t < kk; t++ {
				l.w[(t*c.In+i)*c.Out+o] = float32(float64(c.W[(o*c.In+i)*kk+t]) * s)
			}
		}
	}
	return l
}

// spreadDense repacks a dense layer whose input is a flattened
// [channel][point] head output for Forward's channels-last [point][heads]
// head output: weights stored [Out][point*heads + off + channel], zero for the
// other head's channels.
func spreadDense(d Dense, hw, heads, off int) layer {
	ch, k := d.In/hw, hw*heads
	l := layer{k: k, n: d.Out, w: make([]float32, d.Out*k), bias: append([]float32(nil), d.B...)}
	for o := 0; o < d.Out; o++ {
		for c := 0; c < ch; c++ {
			for p := 0; p < hw; p++ {
				l.w[o*k+p*heads+off+c] = d.W[o*d.In+c*hw+p]
			}
		}
	}
	return l
}

// denseLayer copies a dense layer, W [Out][In], as a layer stored
// transposed.
func denseLayer(d Dense) layer {
	return layer{k: d.In, n: d.Out, w: append([]float32(nil), d.W...), bias: append([]float32(nil), d.B...)}
}

// transpose returns the n x k transpose of the k x n matrix x.
func transpose(x []float32, k, n int) []float32 {
	t := make([]float32, len(x))
	for i := 0; i < k; i++ {
		for j := 0; j < n; j++ {
			t[j*k+i] = x[i*n+j]
		}
	}
	return t
}

// Net runs Forward for one goroutine: a shared Model plus the work buffers
// of one batch. Nets for other goroutines come from NewWorker (or
// Model.NewNet) and share the Model.
type Net struct {
	m        *Model
	maxBatch int
	chunk    int // positions per pass through the tower

	in       []float32 // chunk input, channels-last [point][plane]
	colStem  []float32 // im2col of the input [point][9*planes]
	colTower []float32 // im2col of the tower [point][9*filters]
	x, h     []float32 // tower activations [point][filters]
	hd       []float32 // head conv output of the whole batch [point][heads]
	vh       []float32 // value hidden layer of the whole batch [position][hidden]
	pooled   []float32 // global pooling of a chunk [position][means, then maxima]
	pbias    []float32 // the channel biases global pooling makes of them [position][filters]
	seMean   []float32 // squeeze-and-excitation: channel means [position][filters],
	seHidden []float32 // its hidden layer [position][SEHidden],
	seOut    []float32 // and its scales and biases [position][2*filters]

	ws gemm.Workspace // SGEMM scratch, reserved for every product of Forward

	// The low-precision tower's input ([point][filters]) and im2col
	// ([point][kpad]) in bf16 or uint8.
	inB, colB []uint16
	inQ, colQ []uint8

	record []topK // calibration: the largest inputs of every tower convolution
	// calibration: for each tower convolution, the sum over its im2col rows
	// of row^T row (k x k), the Hessian of its output's squared error in
	// its weights (quantizeGPTQ); nil except when calibrating
	hess [][]float32
}

// copyOp is one contiguous run of im2col: dst and src offsets relative to the
// start of one position's im2col matrix and activations.
type copyOp struct{ dst, src, n int32 }

// NewNet folds w into a Model and returns a Net for batches of up to
// maxBatch positions.
func NewNet(w *Weights, maxBatch int) (*Net, error) {
	m, err := NewModel(w)
	if err != nil {
		return nil, err
	}
	return m.NewNet(maxBatch)
}

// NewNet returns a Net over m for batches of up to maxBatch positions, with
// its own work buffers.
func (m *Model) NewNet(maxBatch int) (*Net, error) {
	if maxBatch < 1 || maxBatch > 1<<20 {
		return nil, fmt.Errorf("nn: max batch = %d, want 1..%d", maxBatch, 1<<20)
	}
	return m.newNet(maxBatch, defaultChunk(maxBatch, m.hw)), nil
}

// defaultChunk is the number of positions Forward pushes through the tower at
// a time: about chunkRows board points, at least one position.
func defaultChunk(maxBatch, hw int) int { return min(maxBatch, max(1, chunkRows/hw)) }

func (m *Model) newNet(maxBatch, chunk int) *Net {
	rows := chunk * m.hw
	p, f := m.shape.Planes, m.cfg.Filters
	n := &Net{
		m: m, maxBatch: maxBatch, chunk: chunk,
		in:       make([]float32, rows*p),
		colStem:  make([]float32, rows*9*p),
		colTower: make([]float32, rows*9*f),
		x:        make([]float32, rows*f),
		h:        make([]float32, rows*f),
		hd:       make([]float32, maxBatch*m.hw*m.heads),
		vh:       make([]float32, maxBatch*m.cfg.ValueHidden),
		pooled:   make([]float32, chunk*2*m.cfg.Pooled()),
		pbias:    make([]float32, chunk*f),
	}
	if m.cfg.SqueezeExcite {
		n.seMean, n.seHidden, n.seOut = make([]float32, chunk*f), make([]float32, chunk*m.cfg.SEHidden()), make([]float32, chunk*2*f)
	}
	for _, l := range []layer{m.stem, m.head, m.policy, m.value1} {
		n.ws.Reserve(l.n, l.k)
	}
	for _, b := range m.blocks {
		n.ws.Reserve(b.conv1.n, b.conv1.k)
		n.ws.Reserve(b.conv2.n, b.conv2.k)
		if b.pool.k > 0 {
			n.ws.Reserve(b.pool.n, b.pool.k)
		}
		if b.se1.k > 0 {
			n.ws.Reserve(b.se1.n, b.se1.k)
			n.ws.Reserve(b.se2.n, b.se2.k)
		}
	}
	if len(m.low) > 0 {
		kp := m.low[0].kPad()
		n.ws.ReserveLow(f, kp)
		for _, l := range m.low {
			if l.bf != nil && n.inB == nil {
				n.inB, n.colB = make([]uint16, rows*f), make([]uint16, rows*kp)
			}
			if l.q != nil && n.inQ == nil {
				n.inQ, n.colQ = make([]uint8, rows*f), make([]uint8, rows*kp)
			}
		}
	}
	return n
}

// sameBuffers reports whether a Net's work buffers for m fit o too: the
// same architecture, board and tower precision (a BF16 tower needs other
// buffers than an Int8 one, FP32 none of theirs).
func (m *Model) sameBuffers(o *Model) bool {
	return m.cfg == o.cfg && m.shape == o.shape && m.prec == o.prec
}

// NewWorker returns a Net sharing n's Model and max batch, with its own
// buffers, for another goroutine.
func (n *Net) NewWorker() *Net { return n.m.newNet(n.maxBatch, n.chunk) }

// Model returns the immutable network n runs.
func (n *Net) Model() *Model { return n.m }

// MaxBatch is the largest batch Forward accepts.
func (n *Net) MaxBatch() int { return n.maxBatch }

// im2colPlan lists the contiguous runs that build one position's im2col
// matrix for a 3x3 "same" convolution over h x w points of c channels. Runs
// never cover the padding, which stays zero in the im2col buffer.
func im2colPlan(h, w, c int) []copyOp { return im2colPlanStride(h, w, c, 9*c) }

// im2colPlanStride is im2colPlan for an im2col matrix whose rows are stride
// >= 9*c long (the padding past 9*c is never written).
func im2colPlanStride(h, w, c, stride int) []copyOp {
	var ops []copyOp
	for r := 0; r < h; r++ {
		for col := 0; col < w; col++ {
			base := (r*w + col) * stride
			for dy := -1; dy <= 1; dy++ {
				rr := r + dy
				if rr < 0 || rr >= h {
					continue
				}
				c0, c1 := max(col-1, 0), min(col+1, w-1)
				ops = append(ops, copyOp{
					dst: int32(base + ((dy+1)*3+(c0-col+1))*c),
					src: int32((rr*w + c0) * c),
					n:   int32((c1 - c0 + 1) * c),
				})
			}
		}
	}
	return ops
}

// planAlign returns the largest of 64, 32 and 16 bytes that divides the
// length of every run of plan, of elements of size bytes, or 0 if none does
// (or plan is empty): im2colFast copies runs in chunks of that many bytes.
// An int8 tower of 32 filters has runs of 32, 64 and 96 bytes, one of 48
// filters runs of 48, 96 and 144.
func planAlign(plan []copyOp, size int) int {
	lengths := 0 // every run's length in bytes, or-ed: its lowest set bit divides them all
	for _, op := range plan {
		if op.n <= 0 {
			return 0
		}
		lengths |= int(op.n) * size
	}
	if a := lengths & -lengths; a >= 16 {
		return min(a, 64)
	}
	return 0
}

// Im2colPlan builds the im2col matrices of a 3x3 "same" convolution over
// h x w points of c channels, for the trainer (nn/train) as for Forward:
// rows [point][dy][dx][channel], channels-last activations, with the same
// assembly copies. Runs never cover the zero padding, so a buffer that
// only ever receives this plan's runs keeps its padding zero.
type Im2colPlan struct {
	ops         []copyOp
	per, stride int
	align       int
}

// NewIm2colPlan returns the plan for h x w points of c channels.
func NewIm2colPlan(h, w, c int) *Im2colPlan {
	ops := im2colPlan(h, w, c)
	return &Im2colPlan{ops: ops, per: h * w * 9 * c, stride: h * w * c, align: planAlign(ops, 4)}
}

// Fill writes the im2col matrices of nb positions (h*w*9*c values each)
// into dst from their activations in src (h*w*c values each).
func (p *Im2colPlan) Fill(dst, src []float32, nb int) {
	im2col(dst, src, nb, p.ops, p.per, p.stride, p.align)
}

// im2col fills the im2col matrix of nb positions from channels-last
// activations src, following plan; per is the size of one position's im2col
// matrix and stride that of its activations. align is planAlign of plan
// (the chunk in bytes that the runs may be copied in by assembly).
func im2col[T float32 | uint16 | uint8](dst, src []T, nb int, plan []copyOp, per, stride int, align int) {
	if im2colFast(dst, src, nb, plan, per, stride, align) {
		return
	}
	for b := 0; b < nb; b++ {
		d, s := dst[b*per:(b+1)*per], src[b*stride:(b+1)*stride]
		for _, op := range plan {
			copy(d[op.dst:op.dst+op.n], s[op.src:op.src+op.n])
		}
	}
}

// Forward evaluates batch positions. obs holds them one after another, each
// laid out [plane][row][col] as games.State.Observation writes it. Forward
// writes the raw policy logits (before softmax), batch x Actions, into logits
// and the values (after tanh) into values. It allocates nothing. It runs
// the policy and value heads only (see ForwardAux).
func (n *Net) Forward(obs []float32, batch int, logits, values []float32) error {
	return n.forward(obs, batch, logits, values, nil, nil)
}

// ForwardAux is Forward that also runs the auxiliary heads asked for:
// with ownership not nil, it writes the ownership head's output, tanh of
// its 1x1 convolution of the tower, batch x Height*Width values in [-1, 1]
// laid out as the observation's board (row-major), +1 where the player
// to move is predicted to own the point at the end of the game; with
// scores not nil, it writes the score head's prediction of the final
// margin for the player to move, in the game's unit (the head's output
// times Shape.ScoreScale: points in Go, komi included). These are the
// quantities the heads are trained on (see nn/train's OwnershipLoss and
// ScoreLoss and the self-play targets of package pipeline). The heads read
// the same tower as the policy and value, in the model's precision, and
// are themselves computed in FP32. Asking for a head the network lacks
// is an error. It allocates nothing.
func (n *Net) ForwardAux(obs []float32, batch int, logits, values, ownership, scores []float32) error {
	m := n.m
	switch {
	case ownership != nil && m.own == nil:
		return errors.New("nn: forward: the network has no ownership head")
	case scores != nil && m.score == nil:
		return errors.New("nn: forward: the network has no score head")
	case ownership != nil && len(ownership) < batch*m.hw:
		return fmt.Errorf("nn: forward: %d ownership values for %d positions of %d points", len(ownership), batch, m.hw)
	case scores != nil && len(scores) < batch:
		return fmt.Errorf("nn: forward: %d scores for %d positions", len(scores), batch)
	}
	return n.forward(obs, batch, logits, values, ownership, scores)
}

func (n *Net) forward(obs []float32, batch int, logits, values, ownership, scores []float32) error {
	sh := n.m.shape
	per := sh.Planes * n.m.hw
	switch {
	case batch < 1 || batch > n.maxBatch:
		return fmt.Errorf("nn: forward batch = %d, want 1..%d", batch, n.maxBatch)
	case len(obs) < batch*per:
		return fmt.Errorf("nn: forward: %d observation values for %d positions of %d", len(obs), batch, per)
	case len(logits) < batch*sh.Actions:
		return fmt.Errorf("nn: forward: %d logits for %d positions of %d actions", len(logits), batch, sh.Actions)
	case len(values) < batch:
		return fmt.Errorf("nn: forward: %d values for %d positions", len(values), batch)
	}
	for start := 0; start < batch; start += n.chunk {
		nb := min(n.chunk, batch-start)
		hd := n.hd[start*n.m.hw*n.m.heads : (start+nb)*n.m.hw*n.m.heads]
		var own []float32
		if ownership != nil {
			own = ownership[start*n.m.hw : (start+nb)*n.m.hw]
		}
		n.tower(obs[start*per:(start+nb)*per], nb, hd, own)
	}
	n.heads(batch, logits, values)
	if scores != nil {
		m := n.m
		nh, scale := m.value1.n, sh.ScoreScale()
		for b := range batch {
			scores[b] = (dot(n.vh[b*nh:(b+1)*nh], m.score) + m.scoreB) * scale
		}
	}
	return nil
}

// tower runs nb <= n.chunk positions through the residual tower and the
// heads' 1x1 convolutions, writing the latter's output into hd, and, when
// own is not nil, the ownership head's (after tanh) into own.
func (n *Net) tower(obs []float32, nb int, hd, own []float32) {
	m := n.m
	hw, p, f := m.hw, m.shape.Planes, m.cfg.Filters
	rows := nb * hw

	// Input to channels-last.
	in := n.in[:rows*p]
	for b := 0; b < nb; b++ {
		o, d := obs[b*p*hw:(b+1)*p*hw], in[b*hw*p:(b+1)*hw*p]
		for c := 0; c < p; c++ {
			oc := o[c*hw : (c+1)*hw]
			for i, v := range oc {
				d[i*p+c] = v
			}
		}
	}

	x, h := n.x[:rows*f], n.h[:rows*f]
	im2col(n.colStem, in, nb, m.stemCopies, hw*9*p, hw*p, 0)
	n.conv(rows, m.stem, n.colStem, x)
	for i, b := range m.blocks {
		if n.record != nil {
			n.record[2*i].add(x)
		}
		pool := b.pool.k > 0
		if m.prec != FP32 {
			n.lowConv(rows, nb, m.low[2*i], b.conv1, x, h, false, !pool)
			if pool {
				n.globalPool(nb, b.pool, h)
			}
			if b.se1.k > 0 {
				n.lowConv(rows, nb, m.low[2*i+1], b.conv2, h, h, false, false)
				n.squeezeExcite(nb, b, h, x)
			} else {
				n.lowConv(rows, nb, m.low[2*i+1], b.conv2, h, x, true, true)
			}
			continue
		}
		im2col(n.colTower, x, nb, m.towerCopies, hw*9*f, hw*f, m.towerAlign)
		n.addHessian(2*i, rows, b.conv1.k)
		if pool {
			n.ws.SgemmBiasReLU(rows, f, b.conv1.k, n.colTower, b.conv1.k, b.conv1.w, f, b.conv1.bias, false, h, f)
			n.globalPool(nb, b.pool, h)
		} else {
			n.conv(rows, b.conv1, n.colTower, h)
		}
		if n.record != nil {
			n.record[2*i+1].add(h)
		}
		im2col(n.colTower, h, nb, m.towerCopies, hw*9*f, hw*f, m.towerAlign)
		n.addHessian(2*i+1, rows, b.conv2.k)
		if b.se1.k > 0 {
			// h = conv2(h) + bias, then x = ReLU(x + scale*h + bias')
			n.ws.SgemmBiasReLU(rows, f, b.conv2.k, n.colTower, b.conv2.k, b.conv2.w, f, b.conv2.bias, false, h, f)
			n.squeezeExcite(nb, b, h, x)
			continue
		}
		// x = ReLU(x + conv2(h) + bias)
		n.ws.Sgemm(false, false, rows, f, b.conv2.k, 1, n.colTower, b.conv2.k, b.conv2.w, f, 1, x, f)
		biasReLU(x, b.conv2.bias)
	}

	n.dense(rows, m.head, x, hd, true)
	if own != nil {
		for r := range rows {
			own[r] = float32(math.Tanh(float64(dot(x[r*f:(r+1)*f], m.own))))
		}
	}
}

// addHessian adds the Gram matrix of the rows x k im2col matrix in
// n.colTower to the Hessian of tower convolution i, when calibrating.
func (n *Net) addHessian(i, rows, k int) {
	if n.hess == nil {
		return
	}
	n.ws.Sgemm(true, false, k, k, rows, 1, n.colTower, k, n.colTower, k, 1, n.hess[i], k)
}

// globalPool applies a block's global pooling to the first convolution's
// output h (after batch norm, before ReLU) of nb positions, channels-last
// [point][filters]: per position, the mean and the maximum over the board
// of ReLU(h) in each of the first pooled channels go through the dense
// layer pl (one matrix product for the nb positions), whose outputs are
// added to every point's channels; then ReLU.
func (n *Net) globalPool(nb int, pl layer, h []float32) {
	hw, f := n.m.hw, n.m.cfg.Filters
	PoolMeanMax(n.pooled, h, nb, hw, f, pl.k/2)
	n.dense(nb, pl, n.pooled[:nb*pl.k], n.pbias[:nb*f], false)
	for b := 0; b < nb; b++ {
		biasReLU(h[b*hw*f:(b+1)*hw*f], n.pbias[b*f:(b+1)*f])
	}
}

// squeezeExcite finishes a block with squeeze-and-excitation for nb
// positions, channels-last: v holds the second convolution's output (batch
// norm folded in), x the block's input, which becomes its output
// ReLU(x + sigmoid(o[c])*v + o[f+c]), o = se2(ReLU(se1(mean of v over the
// board))).
func (n *Net) squeezeExcite(nb int, b blockLayers, v, x []float32) {
	hw, f := n.m.hw, n.m.cfg.Filters
	mean := n.seMean[:nb*f]
	ChannelMeans(mean, v, nb, hw, f)
	n.dense(nb, b.se1, mean, n.seHidden[:nb*b.se1.n], true)
	n.dense(nb, b.se2, n.seHidden[:nb*b.se1.n], n.seOut[:nb*2*f], false)
	for p := 0; p < nb; p++ {
		o := n.seOut[p*2*f : (p+1)*2*f]
		SigmoidInPlace(o[:f])
		SEApply(x[p*hw*f:(p+1)*hw*f], v[p*hw*f:(p+1)*hw*f], o[:f], o[f:])
	}
}

// ChannelMeans writes the mean over the hw points of each of the f channels
// of each of nb positions of x, channels-last ([position][point][f]), into
// mean [nb][f].
func ChannelMeans(mean, x []float32, nb, hw, f int) {
	inv := 1 / float32(hw)
	for b := 0; b < nb; b++ {
		m := mean[b*f : (b+1)*f]
		ColumnSums(m, x[b*hw*f:(b+1)*hw*f])
		for c := range m {
			m[c] *= inv
		}
	}
}

// ColumnSums writes into sum the sums over the rows of x (len(sum) floats
// a row) of each column, for inference and the trainer alike.
func ColumnSums(sum, x []float32) { colSum(sum, x) }

func colSumGeneric(sum, x []float32) {
	n := len(sum)
	clear(sum)
	for len(x) >= n {
		for c, v := range x[:n] {
			sum[c] += v
		}
		x = x[n:]
	}
}

// SigmoidInPlace replaces every value of x by its logistic sigmoid, to
// within 1e-7 (float32 arithmetic; inputs beyond +-87 saturate).
func SigmoidInPlace(x []float32) { sigmoid(x) }

// The constants of sigmoidGeneric's exp: log2(e), and ln 2 split in a part
// with trailing zero bits and the rest, so that n*ln2Hi is exact (Cody and
// Waite's reduction, with Cephes' float32 split).
const (
	log2e = 1.44269504088896341
	ln2Hi = 0.693145752
	ln2Lo = 1.42860677e-6
)

// sigmoidGeneric computes 1/(1 + e^-x) with e^y = 2^n e^r, n = round(y
// log2 e), |r| <= ln2/2, e^r by its Taylor series to r^6 (relative error
// below 2e-7 there); the assembly kernel computes the same.
func sigmoidGeneric(x []float32) {
	for i, v := range x {
		y := min(max(-v, -87), 87)
		n := float32(math.RoundToEven(float64(y * log2e)))
		r := y - n*ln2Hi - n*ln2Lo
		p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))
		x[i] = 1 / (1 + p*math.Float32frombits(uint32(int32(n)+127)<<23))
	}
}

// SEApply writes x = ReLU(x + scale*v + bias) for the points of one
// position, channels-last, a scale and a bias per channel: the end of a
// block with squeeze-and-excitation.
func SEApply(x, v, scale, bias []float32) { seApply(x, v, scale, bias) }

func seApplyGeneric(x, v, scale, bias []float32) {
	f := len(scale)
	bias = bias[:f]
	for len(x) >= f {
		xr, vr := x[:f], v[:f]
		for c, s := range scale {
			xr[c] = max(xr[c]+s*vr[c]+bias[c], 0)
		}
		x, v = x[f:], v[f:]
	}
}

// PoolMeanMax writes, for each of nb positions of x laid out channels-last
// ([position][point][f], hw points), the mean and then the maximum over the
// points of ReLU of each of the first g channels into pooled, [nb][2g]: the
// features of global pooling, for inference and the trainer alike.
func PoolMeanMax(pooled, x []float32, nb, hw, f, g int) {
	inv := 1 / float32(hw)
	for b := 0; b < nb; b++ {
		pos := x[b*hw*f : (b+1)*hw*f]
		mean, mx := pooled[b*2*g:b*2*g+g], pooled[b*2*g+g:(b+1)*2*g]
		clear(mean)
		clear(mx)
		for p := 0; p < hw; p++ {
			for c, v := range pos[p*f : p*f+g] {
				v = max(v, 0)
				mean[c] += v
				mx[c] = max(mx[c], v)
			}
		}
		for c := range mean {
			mean[c] *= inv
		}
	}
}

// lowConv computes out = conv(in) + l.bias (+ out if acc), then ReLU if
// relu, for rows rows (nb positions) in the model's reduced precision: in
// is converted to bf16 or quantised to uint8, spread into the im2col
// matrix, and multiplied by the packed weights of lc.
func (n *Net) lowConv(rows, nb int, lc lowConv, l layer, in, out []float32, acc, relu bool) {
	m := n.m
	hw, f := m.hw, m.cfg.Filters
	kp := lc.kPad()
	if lc.bf != nil {
		bin := n.inB[:rows*f]
		gemm.ConvertBF16(bin, in)
		im2col(n.colB, bin, nb, m.lowCopies, hw*kp, hw*f, m.lowAlign)
		n.ws.GemmBF16(rows, n.colB, kp, lc.bf, acc, l.bias, relu, out, f)
		return
	}
	q := n.inQ[:rows*f]
	gemm.QuantizeU8(q, in, lc.inScale)
	im2col(n.colQ, q, nb, m.lowCopies, hw*kp, hw*f, m.lowAlign)
	n.ws.GemmInt8(rows, n.colQ, kp, lc.inScale, lc.q, acc, l.bias, relu, out, f)
}

// heads runs the fully connected layers of both heads over the whole batch.
func (n *Net) heads(batch int, logits, values []float32) {
	m := n.m
	hd := n.hd[:batch*m.hw*m.heads]
	n.dense(batch, m.policy, hd, logits, false)
	vh := n.vh[:batch*m.value1.n]
	n.dense(batch, m.value1, hd, vh, true)
	nh := m.value1.n
	if m.cfg.WDL {
		var z [3]float32
		for b := 0; b < batch; b++ {
			h := vh[b*nh : (b+1)*nh]
			for k := range z {
				z[k] = dot(h, m.value2[k*nh:(k+1)*nh]) + m.v2bias[k]
			}
			p, _ := WDLSoftmax(z[:])
			values[b] = p[0] - p[2]
		}
		return
	}
	for b := 0; b < batch; b++ {
		values[b] = float32(math.Tanh(float64(dot(vh[b*nh:(b+1)*nh], m.value2) + m.v2bias[0])))
	}
}

// conv computes out = ReLU(a*l.w + l.bias) for rows rows, l stored [k][n].
func (n *Net) conv(rows int, l layer, a, out []float32) {
	n.ws.SgemmBiasReLU(rows, l.n, l.k, a, l.k, l.w, l.n, l.bias, true, out, l.n)
}

// dense computes out = a*l.w^T + l.bias, then ReLU if relu, for rows rows, l
// stored transposed [n][k].
func (n *Net) dense(rows int, l layer, a, out []float32, relu bool) {
	n.ws.SgemmNTBiasReLU(rows, l.n, l.k, a, l.k, l.w, l.k, l.bias, relu, out, l.n)
}

// biasReLUGeneric adds bias to every row of x and clamps negatives to zero.
func biasReLUGeneric(x, bias []float32) {
	n := len(bias)
	for len(x) >= n {
		row := x[:n]
		for j, b := range bias {
			row[j] = max(row[j]+b, 0)
		}
		x = x[n:]
	}
}

func dot(a, b []float32) float32 {
	var s float32
	b = b[:len(a)]
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
