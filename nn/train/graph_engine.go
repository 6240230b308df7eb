package train

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"tabula/nn"
)

// graphEngine is the gorgonia engine: the network and the AlphaZero loss as
// a gorgonia graph (with our ops for the convolutions, batch norm, residual
// add+ReLU and the policy loss), differentiated by gorgonia and run by a
// TapeMachine, with the SGEMMs on the BLAS chosen by UseBLAS.
type graphEngine struct {
	net *network
	vm  G.VM

	obs, pi, z, mask             *tensor.Dense
	obsN, piN, zN, maskN         *G.Node
	valueLoss, policyLoss, cost  *G.Node
	obsBuf, piBuf, zBuf, maskBuf []float32
	maskAll                      bool // maskBuf (legality, 1 or 0) holds all ones

	logits G.Value // the last run's logits

	// The auxiliary heads' targets and losses (nil without them).
	own, score, auxW          *tensor.Dense
	ownN, scoreN, auxWN       *G.Node
	ownLoss, scoreLoss        *G.Node
	ownBuf, scoreBuf, auxWBuf []float32
	scoreScale                float32

	// The opponent-policy head's target, all-ones mask and loss (nil
	// without the head).
	opp, oppMask       *tensor.Dense
	oppN, oppMaskN     *G.Node
	oppLoss            *G.Node
	oppBuf, oppMaskBuf []float32
}

// newGraphEngine builds the training graph of w for batches of
// cfg.BatchSize examples.
func newGraphEngine(w *nn.Weights, cfg Config) (*graphEngine, error) {
	s, B := w.Shape, cfg.BatchSize
	net, err := buildNetwork(w, B, cfg.BNMomentum)
	if err != nil {
		return nil, err
	}
	g := net.g
	t := &graphEngine{net: net, scoreScale: float32(1 / s.ScoreScale())}
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
	if net.oppLogits != nil {
		// The policy loss over every action (the opponent's legal moves are
		// not stored): a row of zeros contributes nothing.
		t.oppBuf, t.oppMaskBuf = make([]float32, B*s.Actions), make([]float32, B*s.Actions)
		for i := range t.oppMaskBuf {
			t.oppMaskBuf[i] = 1
		}
		t.opp = tensor.New(tensor.WithShape(B, s.Actions), tensor.WithBacking(t.oppBuf))
		t.oppMask = tensor.New(tensor.WithShape(B, s.Actions), tensor.WithBacking(t.oppMaskBuf))
		t.oppN = G.NewMatrix(g, tensor.Float32, G.WithShape(B, s.Actions), G.WithName("opp_policy_target"))
		t.oppMaskN = G.NewMatrix(g, tensor.Float32, G.WithShape(B, s.Actions), G.WithName("opp_policy_mask"))
		lets = append(lets, struct {
			n *G.Node
			v *tensor.Dense
		}{t.oppN, t.opp}, struct {
			n *G.Node
			v *tensor.Dense
		}{t.oppMaskN, t.oppMask})
		if t.oppLoss, err = G.ApplyOp(&policyLossOp{b: B, a: s.Actions}, net.oppLogits, t.oppN, t.oppMaskN); err != nil {
			return nil, wrap("opponent policy", err)
		}
		weighted, err := G.Mul(t.oppLoss, G.NewConstant(float32(cfg.OppPolicyWeight)))
		if err != nil {
			return nil, wrap("opponent policy", err)
		}
		if t.cost, err = G.Add(t.cost, weighted); err != nil {
			return nil, wrap("opponent policy", err)
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
	return t, nil
}

// load copies b into the graph's input tensors.
func (t *graphEngine) load(b Batch) {
	copy(t.obsBuf, b.Obs)
	copy(t.piBuf, b.Policy)
	copy(t.zBuf, b.Value)
	if t.auxWBuf != nil {
		if b.AuxWeight == nil {
			clear(t.auxWBuf) // no targets: the auxiliary losses are zero
		} else {
			copy(t.auxWBuf, b.AuxWeight)
			copy(t.ownBuf, b.Ownership)
			for i := range t.scoreBuf {
				t.scoreBuf[i] = b.Score[i] * t.scoreScale
			}
		}
	}
	if t.oppBuf != nil {
		if b.OppPolicy == nil {
			clear(t.oppBuf)
		} else {
			copy(t.oppBuf, b.OppPolicy)
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
}

// run loads b and runs the machine: the forward and backward passes.
func (t *graphEngine) run(b Batch, step int64) error {
	t.load(b)
	if err := t.vm.RunAll(); err != nil {
		return fmt.Errorf("train: step %d: %w", step, err)
	}
	return nil
}

// losses reads the value and policy losses of the last run.
func (t *graphEngine) losses() (Losses, error) {
	var l Losses
	var err error
	if l.Value, err = scalar(t.valueLoss); err != nil {
		return Losses{}, err
	}
	if l.Policy, err = scalar(t.policyLoss); err != nil {
		return Losses{}, err
	}
	if t.ownLoss != nil {
		if l.Ownership, err = scalar(t.ownLoss); err != nil {
			return Losses{}, err
		}
	}
	if t.scoreLoss != nil {
		if l.Score, err = scalar(t.scoreLoss); err != nil {
			return Losses{}, err
		}
	}
	if t.oppLoss != nil {
		if l.OppPolicy, err = scalar(t.oppLoss); err != nil {
			return Losses{}, err
		}
	}
	return l, nil
}

// gradients points grads at every parameter's gradient in the machine.
func (t *graphEngine) gradients(grads [][]float32, params []param) error {
	for i, p := range params {
		gv, err := p.node.Grad()
		if err != nil {
			return fmt.Errorf("train: gradient of %s: %w", p.name, err)
		}
		g, ok := gv.Data().([]float32)
		if !ok || len(g) != len(p.data) {
			return fmt.Errorf("train: gradient of %s: got %T of %d values, want %d float32", p.name, gv.Data(), len(g), len(p.data))
		}
		grads[i] = g
	}
	return nil
}

// discard undoes what a failed step left behind: the machine adds into the
// bound gradients on every run, and the batch-norm ops have already folded
// the batch into their running statistics.
func (t *graphEngine) discard(params []param) {
	for _, p := range params {
		if gv, err := p.node.Grad(); err == nil {
			if g, ok := gv.Data().([]float32); ok {
				clear(g)
			}
		}
	}
	t.net.loadStats()
}
