package train

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	G "gorgonia.org/gorgonia"

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
	// OppPolicy is the opponent-policy head's target: the distribution of
	// the opponent's reply, or a row of zeros for an example without one;
	// nil means none has.
	OppPolicy []float32 // [B][actions]
}

// Losses are the batch means of the terms of the loss
// l = (z - v)^2 - pi^T log p + c ||theta||^2
// (+ OwnershipWeight * ownership + ScoreWeight * score + OppPolicyWeight *
// opponent policy with the auxiliary heads), measured on the parameters the
// step started from. Ownership, Score and OppPolicy are unweighted (see
// OwnershipLoss and ScoreLoss; OppPolicy is the cross-entropy of the
// opponent's reply averaged over the batch, examples without a target
// counting 0); Total includes their weighted sum.
type Losses struct {
	Value, Policy, L2, Total    float64
	Ownership, Score, OppPolicy float64
}

// Trainer trains one nn.Weights in place. It is not safe for concurrent use;
// take snapshots for inference with Weights.
type Trainer struct {
	cfg    Config
	w      *nn.Weights
	params []param // the trainable arrays, in the order of nn.Weights.Tensors

	graph  *graphEngine  // the gorgonia engine, or
	direct *directEngine // the direct engine

	step int64
	// dropped: schedule "timed" has dropped the rate (DropLearningRate).
	dropped bool
	// Optimiser slots, one per param: SGD uses slot1 (velocity); Adam uses
	// slot1 (first moment) and slot2 (second moment).
	slot1, slot2 [][]float32
	grads        [][]float32 // one gradient array per param
}

// paramsOf lists the trainable arrays of w (nn.Weights.Tensors without the
// running statistics), each decayed if it is a convolution or dense weight
// matrix.
func paramsOf(w *nn.Weights) []param {
	var ps []param
	for _, t := range w.Tensors() {
		if strings.HasSuffix(t.Name, ".mean") || strings.HasSuffix(t.Name, ".var") {
			continue
		}
		ps = append(ps, param{name: t.Name, data: t.Data, decay: len(t.Shape) >= 2})
	}
	return ps
}

// New builds the trainer of w for cfg.BatchSize examples per step, with the
// engine cfg.Engine. The trainer keeps w and updates it in place: after each
// Step w holds the current parameters and running statistics. rng is
// reserved for stochastic parts of training; the engines use none.
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
	t := &Trainer{cfg: cfg, w: w}
	engine := cfg.Engine
	if why := directUnsupported(w); why != "" {
		if engine == EngineDirect {
			return nil, fmt.Errorf("train: engine %q: %s (use %q or %q)", EngineDirect, why, EngineGorgonia, EngineAuto)
		}
		engine = EngineGorgonia
	}
	if engine == EngineGorgonia {
		g, err := newGraphEngine(w, cfg)
		if err != nil {
			return nil, err
		}
		t.graph, t.params = g, g.net.params
		t.grads = make([][]float32, len(t.params))
	} else {
		t.params = paramsOf(w)
		t.grads = make([][]float32, len(t.params))
		for i, p := range t.params {
			t.grads[i] = make([]float32, len(p.data))
		}
		d, err := newDirectEngine(w, cfg, t.grads)
		if err != nil {
			return nil, err
		}
		t.direct = d
	}
	t.slot1 = make([][]float32, len(t.params))
	if cfg.Optimizer == "adam" {
		t.slot2 = make([][]float32, len(t.params))
	}
	for i, p := range t.params {
		t.slot1[i] = make([]float32, len(p.data))
		if t.slot2 != nil {
			t.slot2[i] = make([]float32, len(p.data))
		}
	}
	return t, nil
}

// DropLearningRate drops the learning rate of schedule "timed" to
// LearningRate*Gamma for every later step; it reports whether this call
// dropped it (false when already dropped, or with another schedule).
func (t *Trainer) DropLearningRate() bool {
	if t.cfg.Schedule != "timed" || t.dropped {
		return false
	}
	t.dropped = true
	return true
}

// LearningRate is the rate of the next step: the schedule's, after a drop
// of schedule "timed".
func (t *Trainer) LearningRate() float64 {
	lr := t.cfg.LearningRateAt(t.step)
	if t.dropped {
		lr *= t.cfg.Gamma
	}
	return lr
}

// Config returns the trainer's configuration.
func (t *Trainer) Config() Config { return t.cfg }

// Steps is the number of steps taken (restored from optimiser state too).
func (t *Trainer) Steps() int64 { return t.step }

// Weights returns a deep copy of the current parameters and running
// statistics: an immutable snapshot for inference workers.
func (t *Trainer) Weights() *nn.Weights { return t.w.Clone() }

// Close releases the gorgonia machine, if the trainer has one.
func (t *Trainer) Close() error {
	if t.graph != nil {
		return t.graph.vm.Close()
	}
	return nil
}

// lastLogits returns the policy logits of the last Step's forward pass.
func (t *Trainer) lastLogits() []float32 {
	if t.graph != nil {
		return t.graph.logits.Data().([]float32)
	}
	return t.direct.logitsBuf
}

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
	if t.w.OppPolicyFC != nil && b.OppPolicy != nil {
		if err := check("OppPolicy", len(b.OppPolicy), B*s.Actions); err != nil {
			return err
		}
		for i, p := range b.OppPolicy {
			if !(p >= 0 && p <= 1) {
				return fmt.Errorf("train: batch OppPolicy[%d] = %v, want [0, 1]", i, p)
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

// checkAux checks the auxiliary targets of b that the network reads.
func (t *Trainer) checkAux(b Batch) error {
	hasOwn, hasScore := t.w.Ownership != nil, t.w.ScoreFC != nil
	if !hasOwn && !hasScore || b.AuxWeight == nil {
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
	if hasOwn {
		if len(b.Ownership) != B*s.Height*s.Width {
			return fmt.Errorf("train: batch Ownership has %d values, want %d (batch %d of %dx%d)", len(b.Ownership), B*s.Height*s.Width, B, s.Height, s.Width)
		}
		for i, o := range b.Ownership {
			if !(o >= -1 && o <= 1) {
				return fmt.Errorf("train: batch Ownership[%d] = %v, want [-1, 1]", i, o)
			}
		}
	}
	if hasScore {
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
	if t.graph != nil {
		return t.graphStep(b)
	}
	l := t.direct.forward(b)
	if err := t.finish(&l); err != nil {
		return l, err
	}
	t.direct.backward()
	t.update()
	t.direct.commit()
	t.step++
	return l, nil
}

// graphStep is Step on the gorgonia engine.
func (t *Trainer) graphStep(b Batch) (Losses, error) {
	g := t.graph
	defer g.vm.Reset()
	var l Losses
	err := g.run(b, t.step)
	if err == nil {
		if l, err = g.losses(); err == nil {
			err = t.finish(&l)
		}
	}
	if err == nil {
		err = g.gradients(t.grads, t.params)
	}
	if err != nil {
		g.discard(t.params)
		return l, err
	}
	t.update()
	for _, gr := range t.grads {
		clear(gr) // the machine adds into its gradients on every run
	}
	g.net.saveStats()
	t.step++
	return l, nil
}

// finish adds the L2 term and the total (with the weighted auxiliary
// losses) to l and checks that the loss is finite.
func (t *Trainer) finish(l *Losses) error {
	l.L2 = t.cfg.WeightDecay * t.sumSquares()
	l.Total = l.Value + l.Policy + l.L2 + t.cfg.OwnershipWeight*l.Ownership + t.cfg.ScoreWeight*l.Score +
		t.cfg.OppPolicyWeight*l.OppPolicy
	if math.IsNaN(l.Total) || math.IsInf(l.Total, 0) {
		return fmt.Errorf("train: step %d: loss is %v (value %v, policy %v)", t.step, l.Total, l.Value, l.Policy)
	}
	return nil
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
	for _, p := range t.params {
		if p.decay {
			for _, x := range p.data {
				s += float64(x) * float64(x)
			}
		}
	}
	return s
}

// update applies one optimiser step to every parameter, in place, from
// the gradients in t.grads.
func (t *Trainer) update() {
	lr := t.LearningRate()
	c2 := 2 * t.cfg.WeightDecay
	adam := t.cfg.Optimizer == "adam"
	var bc1, bc2 float64
	if adam {
		n := float64(t.step + 1)
		bc1 = 1 - math.Pow(t.cfg.Beta1, n)
		bc2 = 1 - math.Pow(t.cfg.Beta2, n)
	}
	for i, p := range t.params {
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
