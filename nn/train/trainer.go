package train

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"tabula/nn"
)

// Batch is one minibatch of training examples, laid out example-major.
type Batch struct {
	Obs    []float32 // [B][planes][H][W]
	Policy []float32 // [B][actions]: target pi, a distribution over the legal moves
	Value  []float32 // [B]: target z in [-1, 1], from the mover's point of view
	Legal  []float32 // [B][actions]: 1 legal, 0 illegal; nil means all legal

	// The auxiliary targets, read by a network with the matching heads
	// and ignored otherwise. AuxWeight is 1 for an example that has them,
	// 0 for one that does not; nil means none has.
	Ownership []float32 // [B][H*W]: final owner of each point, in [-1, 1], for the mover
	Score     []float32 // [B]: the final margin for the mover, in the game's unit
	AuxWeight []float32 // [B]: 0 or 1
}

// Losses are the batch means of the terms of the loss
// l = (z - v)^2 - pi^T log p + c ||theta||^2
// (+ OwnershipWeight * ownership + ScoreWeight * score with the auxiliary
// heads), measured on the parameters the step started from. Ownership and
// Score are unweighted (see OwnershipLoss and ScoreLoss); Total includes
// their weighted sum.
type Losses struct {
	Value, Policy, L2, Total float64
	Ownership, Score         float64
}

// Trainer trains one nn.Weights in place. It is not safe for concurrent use;
// take snapshots for inference with Weights.
type Trainer struct {
	cfg Config
	w   *nn.Weights
	net *network
	vm  G.VM

	obs, pi, z, mask             *tensor.Dense
	obsN, piN, zN, maskN         *G.Node
	valueLoss, policyLoss, cost  *G.Node
	obsBuf, piBuf, zBuf, maskBuf []float32
	maskAll                      bool // maskBuf (legality, 1 or 0) holds all ones

	logits G.Value // the last Step's logits

	// The auxiliary heads' targets and losses (nil nodes without them).
	own, score, auxW          *tensor.Dense
	ownN, scoreN, auxWN       *G.Node
	ownLoss, scoreLoss        *G.Node
	ownBuf, scoreBuf, auxWBuf []float32

	step int64
	// Optimiser slots, one per param: SGD uses slot1 (velocity); Adam uses
	// slot1 (first moment) and slot2 (second moment).
	slot1, slot2 [][]float32
	grads        [][]float32 // the machine's gradient arrays, one per param
}

// New builds the training graph of w for cfg.BatchSize examples per step.
// The trainer keeps w and updates it in place: after each Step w holds the
// current parameters and running statistics. rng is reserved for stochastic
// parts of training; the graph itself uses none.
func New(cfg Config, w *nn.Weights, rng *rand.Rand) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if w == nil {
		return nil, errors.New("train: nil weights")
	}
	if rng == nil {
		return nil, errors.New("train: nil rng")
	}
	if err := w.Config.Validate(); err != nil {
		return nil, fmt.Errorf("train: weights: %w", err)
	}
	if err := w.Shape.Validate(); err != nil {
		return nil, fmt.Errorf("train: weights: %w", err)
	}
	B, s := cfg.BatchSize, w.Shape
	net, err := buildNetwork(w, B, cfg.BNMomentum)
	if err != nil {
		return nil, err
	}
	g := net.g
	t := &Trainer{cfg: cfg, w: w, net: net}
	t.obsBuf = make([]float32, B*s.Planes*s.Height*s.Width)
	t.piBuf = make([]float32, B*s.Actions)
	t.zBuf = make([]float32, B)
	t.maskBuf = make([]float32, B*s.Actions)
	for i := range t.maskBuf {
		t.maskBuf[i] = 1
	}
	t.maskAll = true
	t.obs = tensor.New(tensor.WithShape(B, s.Planes, s.Height, s.Width), tensor.WithBacking(t.obsBuf))
	t.pi = tensor.New(tensor.WithShape(B, s.Actions), tensor.WithBacking(t.piBuf))
	t.z = tensor.New(tensor.WithShape(B), tensor.WithBacking(t.zBuf))
	t.mask = tensor.New(tensor.WithShape(B, s.Actions), tensor.WithBacking(t.maskBuf))
	t.obsN = net.obs
	t.piN = G.NewMatrix(g, tensor.Float32, G.WithShape(B, s.Actions), G.WithName("pi"))
	t.zN = G.NewVector(g, tensor.Float32, G.WithShape(B), G.WithName("z"))
	t.maskN = G.NewMatrix(g, tensor.Float32, G.WithShape(B, s.Actions), G.WithName("mask"))

	wrap := func(what string, err error) error { return fmt.Errorf("train: loss %s: %w", what, err) }
	// Value loss: mean (z - v)^2.
	diff, err := G.Sub(t.zN, net.value)
	if err != nil {
		return nil, wrap("value", err)
	}
	sq, err := G.Square(diff)
	if err != nil {
		return nil, wrap("value", err)
	}
	if t.valueLoss, err = G.Mean(sq); err != nil {
		return nil, wrap("value", err)
	}
	// Policy loss: -mean over the batch of sum_a pi_a log p_a, with p the
	// softmax over legal moves (policyLossOp). The logits are kept for
	// tests, which recompute the loss from them.
	G.Read(net.logits, &t.logits)
	if t.policyLoss, err = G.ApplyOp(&policyLossOp{b: B, a: s.Actions}, net.logits, t.piN, t.maskN); err != nil {
		return nil, wrap("policy", err)
	}
	if t.cost, err = G.Add(t.valueLoss, t.policyLoss); err != nil {
		return nil, wrap("total", err)
	}
	lets := []struct {
		n *G.Node
		v *tensor.Dense
	}{{t.obsN, t.obs}, {t.piN, t.pi}, {t.zN, t.z}, {t.maskN, t.mask}}
	if net.ownership != nil || net.score != nil {
		t.auxWBuf = make([]float32, B)
		t.auxW = tensor.New(tensor.WithShape(B), tensor.WithBacking(t.auxWBuf))
		t.auxWN = G.NewVector(g, tensor.Float32, G.WithShape(B), G.WithName("aux_weight"))
		lets = append(lets, struct {
			n *G.Node
			v *tensor.Dense
		}{t.auxWN, t.auxW})
	}
	// addAux adds coef * an auxiliary loss of pred against a target fed
	// through buf to the cost.
	addAux := func(what string, kind auxKind, pred *G.Node, n int, coef float64, buf *[]float32, val **tensor.Dense, node, loss **G.Node) error {
		*buf = make([]float32, B*n)
		shape := tensor.Shape{B, n}
		if kind == auxScore {
			shape = tensor.Shape{B}
		}
		*val = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(*buf))
		*node = G.NewTensor(g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithName(what+"_target"))
		lets = append(lets, struct {
			n *G.Node
			v *tensor.Dense
		}{*node, *val})
		var err error
		if *loss, err = G.ApplyOp(&auxLossOp{kind: kind, b: B, n: n}, pred, *node, t.auxWN); err != nil {
			return wrap(what, err)
		}
		weighted, err := G.Mul(*loss, G.NewConstant(float32(coef)))
		if err != nil {
			return wrap(what, err)
		}
		if t.cost, err = G.Add(t.cost, weighted); err != nil {
			return wrap(what, err)
		}
		return nil
	}
	if net.ownership != nil {
		if err := addAux("ownership", auxOwnership, net.ownership, s.Height*s.Width, cfg.OwnershipWeight,
			&t.ownBuf, &t.own, &t.ownN, &t.ownLoss); err != nil {
			return nil, err
		}
	}
	if net.score != nil {
		if err := addAux("score", auxScore, net.score, 1, cfg.ScoreWeight,
			&t.scoreBuf, &t.score, &t.scoreN, &t.scoreLoss); err != nil {
			return nil, err
		}
	}
	learnables := make(G.Nodes, len(net.params))
	for i, p := range net.params {
		learnables[i] = p.node
	}
	if _, err := G.Grad(t.cost, learnables...); err != nil {
		return nil, fmt.Errorf("train: gradient: %w", err)
	}
	for _, pair := range lets {
		if err := G.Let(pair.n, pair.v); err != nil {
			return nil, fmt.Errorf("train: bind %s: %w", pair.n.Name(), err)
		}
	}
	t.vm = G.NewTapeMachine(g, G.BindDualValues(learnables...))
	net.loadStats() // the batch-norm ops start from the weights' running statistics
	t.grads = make([][]float32, len(net.params))
	t.slot1 = make([][]float32, len(net.params))
	if cfg.Optimizer == "adam" {
		t.slot2 = make([][]float32, len(net.params))
	}
	for i, p := range net.params {
		t.slot1[i] = make([]float32, len(p.data))
		if t.slot2 != nil {
			t.slot2[i] = make([]float32, len(p.data))
		}
	}
	return t, nil
}

// Config returns the trainer's configuration.
func (t *Trainer) Config() Config { return t.cfg }

// Steps is the number of steps taken (restored from optimiser state too).
func (t *Trainer) Steps() int64 { return t.step }

// Weights returns a deep copy of the current parameters and running
// statistics: an immutable snapshot for inference workers.
func (t *Trainer) Weights() *nn.Weights { return t.w.Clone() }

// Close releases the gorgonia machine.
func (t *Trainer) Close() error { return t.vm.Close() }

// checkBatch returns an error naming the first field of b that does not fit.
func (t *Trainer) checkBatch(b Batch) error {
	B, s := t.cfg.BatchSize, t.w.Shape
	check := func(field string, got, want int) error {
		if got != want {
			return fmt.Errorf("train: batch %s has %d values, want %d (batch %d)", field, got, want, B)
		}
		return nil
	}
	if err := check("Obs", len(b.Obs), B*s.Planes*s.Height*s.Width); err != nil {
		return err
	}
	if err := check("Policy", len(b.Policy), B*s.Actions); err != nil {
		return err
	}
	if err := check("Value", len(b.Value), B); err != nil {
		return err
	}
	if b.Legal != nil {
		if err := check("Legal", len(b.Legal), B*s.Actions); err != nil {
			return err
		}
		for i, l := range b.Legal {
			if l != 0 && l != 1 {
				return fmt.Errorf("train: batch Legal[%d] = %v, want 0 or 1", i, l)
			}
		}
	}
	if err := t.checkAux(b); err != nil {
		return err
	}
	for i, z := range b.Value {
		if !(z >= -1 && z <= 1) {
			return fmt.Errorf("train: batch Value[%d] = %v, want [-1, 1]", i, z)
		}
	}
	for i, p := range b.Policy {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("train: batch Policy[%d] = %v, want [0, 1]", i, p)
		}
		if p != 0 && b.Legal != nil && b.Legal[i] == 0 {
			return fmt.Errorf("train: batch Policy[%d] = %v on an illegal move", i, p)
		}
	}
	return nil
}

// checkAux checks the auxiliary targets of b that the network reads.
func (t *Trainer) checkAux(b Batch) error {
	if t.auxWBuf == nil || b.AuxWeight == nil {
		return nil
	}
	B, s := t.cfg.BatchSize, t.w.Shape
	if len(b.AuxWeight) != B {
		return fmt.Errorf("train: batch AuxWeight has %d values, want %d (batch %d)", len(b.AuxWeight), B, B)
	}
	for i, a := range b.AuxWeight {
		if a != 0 && a != 1 {
			return fmt.Errorf("train: batch AuxWeight[%d] = %v, want 0 or 1", i, a)
		}
	}
	if t.ownBuf != nil {
		if len(b.Ownership) != B*s.Height*s.Width {
			return fmt.Errorf("train: batch Ownership has %d values, want %d (batch %d of %dx%d)", len(b.Ownership), B*s.Height*s.Width, B, s.Height, s.Width)
		}
		for i, o := range b.Ownership {
			if !(o >= -1 && o <= 1) {
				return fmt.Errorf("train: batch Ownership[%d] = %v, want [-1, 1]", i, o)
			}
		}
	}
	if t.scoreBuf != nil {
		if len(b.Score) != B {
			return fmt.Errorf("train: batch Score has %d values, want %d", len(b.Score), B)
		}
		for i, v := range b.Score {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("train: batch Score[%d] = %v, want a finite margin", i, v)
			}
		}
	}
	return nil
}

// Step takes one optimisation step on b and returns the losses measured
// before the update. Batch normalisation uses the batch's statistics and
// folds them into the running averages; after Step the nn.Weights given to
// New hold the updated parameters and statistics. A step whose loss is not
// finite returns an error and changes nothing.
func (t *Trainer) Step(b Batch) (Losses, error) {
	if err := t.checkBatch(b); err != nil {
		return Losses{}, err
	}
	copy(t.obsBuf, b.Obs)
	copy(t.piBuf, b.Policy)
	copy(t.zBuf, b.Value)
	if t.auxWBuf != nil {
		if b.AuxWeight == nil {
			clear(t.auxWBuf) // no targets: the auxiliary losses are zero
		} else {
			copy(t.auxWBuf, b.AuxWeight)
			copy(t.ownBuf, b.Ownership)
			scale := 1 / t.w.Shape.ScoreScale()
			for i := range t.scoreBuf {
				t.scoreBuf[i] = b.Score[i] * scale
			}
		}
	}
	switch {
	case b.Legal != nil:
		copy(t.maskBuf, b.Legal)
		t.maskAll = false
	case !t.maskAll:
		for i := range t.maskBuf {
			t.maskBuf[i] = 1
		}
		t.maskAll = true
	}
	defer t.vm.Reset()
	l, err := t.forwardBackward()
	if err == nil {
		err = t.gradients()
	}
	if err != nil {
		t.discard()
		return l, err
	}
	t.update()
	t.net.saveStats()
	t.step++
	return l, nil
}

// forwardBackward runs the machine and reads the losses.
func (t *Trainer) forwardBackward() (Losses, error) {
	if err := t.vm.RunAll(); err != nil {
		return Losses{}, fmt.Errorf("train: step %d: %w", t.step, err)
	}
	var l Losses
	var err error
	if l.Value, err = scalar(t.valueLoss); err != nil {
		return Losses{}, err
	}
	if l.Policy, err = scalar(t.policyLoss); err != nil {
		return Losses{}, err
	}
	l.L2 = t.cfg.WeightDecay * t.sumSquares()
	l.Total = l.Value + l.Policy + l.L2
	if t.ownLoss != nil {
		if l.Ownership, err = scalar(t.ownLoss); err != nil {
			return Losses{}, err
		}
		l.Total += t.cfg.OwnershipWeight * l.Ownership
	}
	if t.scoreLoss != nil {
		if l.Score, err = scalar(t.scoreLoss); err != nil {
			return Losses{}, err
		}
		l.Total += t.cfg.ScoreWeight * l.Score
	}
	if math.IsNaN(l.Total) || math.IsInf(l.Total, 0) {
		return l, fmt.Errorf("train: step %d: loss is %v (value %v, policy %v)", t.step, l.Total, l.Value, l.Policy)
	}
	return l, nil
}

// gradients collects every parameter's gradient into t.grads.
func (t *Trainer) gradients() error {
	for i, p := range t.net.params {
		gv, err := p.node.Grad()
		if err != nil {
			return fmt.Errorf("train: gradient of %s: %w", p.name, err)
		}
		g, ok := gv.Data().([]float32)
		if !ok || len(g) != len(p.data) {
			return fmt.Errorf("train: gradient of %s: got %T of %d values, want %d float32", p.name, gv.Data(), len(g), len(p.data))
		}
		t.grads[i] = g
	}
	return nil
}

// discard undoes what a failed step left behind: the machine adds into the
// bound gradients on every run, and the batch-norm ops have already folded
// the batch into their running statistics.
func (t *Trainer) discard() {
	for _, p := range t.net.params {
		if gv, err := p.node.Grad(); err == nil {
			if g, ok := gv.Data().([]float32); ok {
				clear(g)
			}
		}
	}
	t.net.loadStats()
}

// scalar reads a scalar node's value after a run.
func scalar(n *G.Node) (float64, error) {
	switch v := n.Value().Data().(type) {
	case float32:
		return float64(v), nil
	case float64:
		return v, nil
	case []float32:
		if len(v) == 1 {
			return float64(v[0]), nil
		}
	}
	return 0, fmt.Errorf("train: node %s holds %T, want a scalar", n.Name(), n.Value().Data())
}

// sumSquares is ||theta||^2 over the decayed parameters.
func (t *Trainer) sumSquares() float64 {
	var s float64
	for _, p := range t.net.params {
		if p.decay {
			for _, x := range p.data {
				s += float64(x) * float64(x)
			}
		}
	}
	return s
}

// update applies one optimiser step to every parameter, in place, from
// the gradients collected by gradients, and zeroes them for the next run.
func (t *Trainer) update() {
	lr := t.cfg.LearningRateAt(t.step)
	c2 := 2 * t.cfg.WeightDecay
	adam := t.cfg.Optimizer == "adam"
	var bc1, bc2 float64
	if adam {
		n := float64(t.step + 1)
		bc1 = 1 - math.Pow(t.cfg.Beta1, n)
		bc2 = 1 - math.Pow(t.cfg.Beta2, n)
	}
	for i, p := range t.net.params {
		g := t.grads[i]
		decay := float32(0)
		if p.decay {
			decay = float32(c2)
		}
		if adam {
			adamUpdate(p.data, g, t.slot1[i], t.slot2[i], decay, lr, t.cfg.Beta1, t.cfg.Beta2, t.cfg.Epsilon, bc1, bc2)
		} else {
			sgdUpdate(p.data, g, t.slot1[i], decay, float32(lr), float32(t.cfg.Momentum))
		}
		clear(g)
	}
}

// sgdUpdate does v = mu*v + (g + decay*w); w -= lr*v.
func sgdUpdate(w, g, v []float32, decay, lr, mu float32) {
	for j := range w {
		d := g[j] + decay*w[j]
		v[j] = mu*v[j] + d
		w[j] -= lr * v[j]
	}
}

// adamUpdate is Adam with bias correction; decay*w is added to the gradient
// (the derivative of the L2 term in the loss, not decoupled weight decay).
func adamUpdate(w, g, m, v []float32, decay float32, lr, beta1, beta2, eps, bc1, bc2 float64) {
	b1, b2 := float32(beta1), float32(beta2)
	step := float32(lr / bc1)
	sbc2 := float32(math.Sqrt(bc2))
	e := float32(eps)
	for j := range w {
		d := g[j] + decay*w[j]
		m[j] = b1*m[j] + (1-b1)*d
		v[j] = b2*v[j] + (1-b2)*d*d
		w[j] -= step * m[j] / (float32(math.Sqrt(float64(v[j])))/sbc2 + e)
	}
}
