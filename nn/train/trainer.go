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
}

// Losses are the batch means of the terms of the loss
// l = (z - v)^2 - pi^T log p + c ||theta||^2, measured on the parameters the
// step started from.
type Losses struct {
	Value, Policy, L2, Total float64
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
	learnables := make(G.Nodes, len(net.params))
	for i, p := range net.params {
		learnables[i] = p.node
	}
	if _, err := G.Grad(t.cost, learnables...); err != nil {
		return nil, fmt.Errorf("train: gradient: %w", err)
	}
	for _, pair := range []struct {
		n *G.Node
		v *tensor.Dense
	}{{t.obsN, t.obs}, {t.piN, t.pi}, {t.zN, t.z}, {t.maskN, t.mask}} {
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
