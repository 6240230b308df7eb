// Package nn holds the policy/value network: its configuration, its weights
// (the one source of truth that training updates and inference reads), the
// fast batched forward pass used by search, the batching evaluator, and
// checkpoints. Training with gorgonia lives in nn/train so that players that
// only search do not link it.
package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// BatchNormEps is the epsilon added to the variance in every batch
// normalisation, in training and inference alike.
const BatchNormEps = 1e-5

// Config sizes the residual tower.
type Config struct {
	Filters       int `yaml:"filters"`        // channels in the tower
	Blocks        int `yaml:"blocks"`         // residual blocks
	PolicyFilters int `yaml:"policy_filters"` // channels of the policy head's 1x1 conv
	ValueFilters  int `yaml:"value_filters"`  // channels of the value head's 1x1 conv
	ValueHidden   int `yaml:"value_hidden"`   // units of the value head's hidden layer

	// Auxiliary heads (KataGo's), trained on the final ownership of every
	// point and the final score margin. Search reads policy and value, and
	// Forward skips them; ForwardAux runs them for analysis (kata-analyze's
	// ownership and scoreLead).
	Ownership bool `yaml:"ownership"` // a 1x1 conv of the tower to one plane, tanh
	Score     bool `yaml:"score"`     // a dense layer from the value head's hidden layer
	// OpponentPolicy adds KataGo's opponent-policy head: a second dense
	// layer on the policy head's features predicting the opponent's reply
	// (the search policy of the next move), a training signal only.
	OpponentPolicy bool `yaml:"-"` // a training run sets it from experimental.opponent_policy
	// GlobalPooling adds KataGo's global pooling to every second residual
	// block (blocks 1, 3, 5, ...): after the block's first convolution and
	// batch norm, the mean and the maximum over the board of the first
	// PoolChannels channels (after ReLU) go through a dense layer that adds a
	// bias to every channel, before the ReLU. It is part of the tower, so
	// inference runs it too.
	GlobalPooling bool `yaml:"global_pooling"`
	// PoolChannels is how many channels are pooled; 0 means Filters/4.
	PoolChannels int `yaml:"pool_channels"`
	// SqueezeExcite ends every residual block with squeeze-and-excitation
	// (Hu et al. 2018, in the form Leela Zero and Leela Chess Zero use): the
	// mean over the board of each channel of BN2's output goes through a
	// dense layer of SEHidden units (ReLU) and a dense layer of 2*Filters
	// outputs, a scale (through a sigmoid) and a bias for every channel,
	// applied to BN2's output before the skip connection is added. It is
	// part of the tower, so inference runs it too.
	SqueezeExcite bool `yaml:"squeeze_excite"`
	// WDL makes the value head predict the probabilities of a win, a draw
	// and a loss (a softmax over three outputs, as Leela Chess Zero and
	// KataGo do) instead of one tanh output; the value search reads is
	// p(win) - p(loss), and training minimises the cross-entropy against the
	// outcome (see WDLTarget).
	WDL bool `yaml:"-"` // a training run sets it from experimental.wdl
}

// ValueOutputs is the width of the value head's last layer: 3 with WDL
// (win, draw, loss logits), 1 otherwise.
func (c Config) ValueOutputs() int {
	if c.WDL {
		return 3
	}
	return 1
}

// WDLSoftmax turns the value head's three logits (win, draw, loss) into
// their probabilities p and log-sum-exp lse (log p[k] = logits[k] - lse, for
// the trainer's cross-entropy). The value search reads is p[0] - p[2].
func WDLSoftmax(logits []float32) (p [3]float32, lse float64) {
	m := max(logits[0], logits[1], logits[2])
	e0 := math.Exp(float64(logits[0] - m))
	e1 := math.Exp(float64(logits[1] - m))
	e2 := math.Exp(float64(logits[2] - m))
	s := e0 + e1 + e2
	return [3]float32{float32(e0 / s), float32(e1 / s), float32(e2 / s)}, float64(m) + math.Log(s)
}

// WDLTarget is the win/draw/loss distribution a value target z in [-1, 1]
// stands for: a win, a draw or a loss for z = 1, 0, -1, and between them the
// mixture of the two nearest outcomes whose expectation is z (a mixed value
// target of 0.4 is 40% win, 60% draw). Its p(win) - p(loss) is z.
func WDLTarget(z float32) [3]float32 {
	z = min(max(z, -1), 1)
	if z >= 0 {
		return [3]float32{z, 1 - z, 0}
	}
	return [3]float32{0, 1 + z, -z}
}

// Pooled returns the number of channels the pooling blocks pool, 0 without
// global pooling.
func (c Config) Pooled() int {
	switch {
	case !c.GlobalPooling:
		return 0
	case c.PoolChannels > 0:
		return c.PoolChannels
	}
	return max(1, c.Filters/4)
}

// PoolBlock reports whether residual block i has global pooling.
func (c Config) PoolBlock(i int) bool { return c.GlobalPooling && i%2 == 1 }

// SEHidden returns the width of the squeeze-and-excitation layers' hidden
// layer, Filters/4 (at least 1), or 0 without them.
func (c Config) SEHidden() int {
	if !c.SqueezeExcite {
		return 0
	}
	return max(1, c.Filters/4)
}

// HasAux reports whether the network has an auxiliary head, global pooling,
// squeeze-and-excitation or a win/draw/loss value head, the parts that need
// checkpoint format 2.
func (c Config) HasAux() bool {
	return c.Ownership || c.Score || c.OpponentPolicy || c.GlobalPooling || c.WDL || c.SqueezeExcite
}

// DefaultConfig is a 64-filter, 5-block tower, the size used for Connect Four.
func DefaultConfig() Config {
	return Config{Filters: 64, Blocks: 5, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 64}
}

// Validate names the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Filters < 1 || c.Filters > 1024:
		return fmt.Errorf("nn: filters = %d, want 1..1024", c.Filters)
	case c.Blocks < 0 || c.Blocks > 64:
		return fmt.Errorf("nn: blocks = %d, want 0..64", c.Blocks)
	case c.PolicyFilters < 1 || c.PolicyFilters > 64:
		return fmt.Errorf("nn: policy_filters = %d, want 1..64", c.PolicyFilters)
	case c.ValueFilters < 1 || c.ValueFilters > 64:
		return fmt.Errorf("nn: value_filters = %d, want 1..64", c.ValueFilters)
	case c.ValueHidden < 1 || c.ValueHidden > 4096:
		return fmt.Errorf("nn: value_hidden = %d, want 1..4096", c.ValueHidden)
	case c.PoolChannels < 0 || c.PoolChannels > c.Filters:
		return fmt.Errorf("nn: pool_channels = %d, want 0..filters (%d); 0 means filters/4", c.PoolChannels, c.Filters)
	case c.PoolChannels > 0 && !c.GlobalPooling:
		return fmt.Errorf("nn: pool_channels = %d without global_pooling: set global_pooling: true, or drop pool_channels", c.PoolChannels)
	case c.GlobalPooling && c.Blocks < 2:
		return fmt.Errorf("nn: global_pooling with blocks = %d: pooling goes in blocks 1, 3, 5, ..., want blocks >= 2", c.Blocks)
	}
	return nil
}

// Shape is what the game decides: input planes and board size, and the number
// of actions (the policy head's width).
type Shape struct {
	Planes, Height, Width, Actions int
}

// Validate names the first field out of range.
func (s Shape) Validate() error {
	if s.Planes < 1 || s.Height < 1 || s.Width < 1 || s.Actions < 1 {
		return fmt.Errorf("nn: bad shape %+v: every field must be positive", s)
	}
	return nil
}

// Conv is a convolution without bias (a batch normalisation always follows).
// W is laid out [Out][In][K][K]; padding keeps the board size ("same").
type Conv struct {
	Out, In, K int
	W          []float32
}

// BatchNorm holds a batch normalisation over C channels: learned Gamma and
// Beta, and the running Mean and Var used at inference.
type BatchNorm struct {
	C                      int
	Gamma, Beta, Mean, Var []float32
}

// Dense is a fully connected layer: y = W x + B, W laid out [Out][In].
type Dense struct {
	In, Out int
	W, B    []float32
}

// Residual is one block: conv-BN-ReLU-conv-BN, plus the input, then ReLU.
// A block with global pooling has Pool: between BN1 and its ReLU, every
// channel gets the bias Pool(mean, max of the first Config.Pooled()
// channels after ReLU, over the board).
//
// A block with squeeze-and-excitation has SE1 and SE2: with v = BN2's
// output and m its mean over the board per channel, o = SE2(ReLU(SE1(m)))
// and the block's output is ReLU(x + sigmoid(o[c])*v[c] + o[Filters+c]).
type Residual struct {
	Conv1 Conv
	BN1   BatchNorm
	Conv2 Conv
	BN2   BatchNorm
	Pool  *Dense // [Filters][2*Pooled]: means first, then maxima; nil without pooling
	SE1   *Dense // [SEHidden][Filters]; nil without squeeze-and-excitation
	SE2   *Dense // [2*Filters][SEHidden]: scales first, then biases
}

// Weights is a whole network.
//
// Forward pass, per position, tensors laid out [channel][row][col]:
//
//	x = ReLU(StemBN(Stem(obs)))                              3x3 conv
//	for each block: x = ReLU(x + BN2(Conv2(ReLU(BN1(Conv1(x))))))
//	  (a pooling block: ReLU(BN1(Conv1(x)) + Pool(pool(ReLU(BN1(Conv1(x)))))))
//	  (with squeeze-and-excitation, v = BN2(Conv2(...)), o = SE2(ReLU(SE1(mean(v)))):
//	   x = ReLU(x + sigmoid(o[:f])*v + o[f:]))
//	policy logits = PolicyFC(flatten(ReLU(PolicyBN(PolicyConv(x)))))  1x1 conv
//	hidden = ReLU(ValueFC1(flatten(ReLU(ValueBN(ValueConv(x))))))
//	value = tanh(ValueFC2(hidden))                           or, with WDL:
//	value = p(win) - p(loss), p = softmax(ValueFC2(hidden))   3 outputs
//	ownership = tanh(Ownership(x))                            1x1 conv, optional
//	score = ScoreFC(hidden)                                   optional
//	opponent logits = OppPolicyFC(the policy head's flattened features)  optional
//
// flatten keeps the [channel][row][col] order. The policy is the softmax of the
// logits over the legal actions; the value is from the mover's point of view,
// and so are the ownership of every point (+1 the mover's at the end of the
// game) and the score (the final margin divided by ScoreScale).
type Weights struct {
	Config Config
	Shape  Shape

	Stem   Conv
	StemBN BatchNorm
	Blocks []Residual

	PolicyConv Conv
	PolicyBN   BatchNorm
	PolicyFC   Dense

	ValueConv Conv
	ValueBN   BatchNorm
	ValueFC1  Dense
	ValueFC2  Dense

	Ownership *Conv  // [1][Filters][1][1], nil without the ownership head
	ScoreFC   *Dense // [1][ValueHidden], nil without the score head
	// OppPolicyFC is [Actions][PolicyFilters*H*W], nil without the
	// opponent-policy head.
	OppPolicyFC *Dense
}

// ScoreScale is what the score head's output is multiplied by to give the
// margin in the game's unit: the number of board points, so that the
// training target, margin/ScoreScale, lies within about [-1, 1].
func (s Shape) ScoreScale() float32 { return float32(s.Height * s.Width) }

// Tensor is one named array of a network, in a stable order (see Tensors).
type Tensor struct {
	Name  string
	Shape []int
	Data  []float32
}

// NewWeights allocates a network and initialises it from rng: He-normal
// convolutions and dense layers, zero biases, unit batch-norm scales, zero
// running means and unit running variances.
func NewWeights(cfg Config, shape Shape, rng *rand.Rand) (*Weights, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := shape.Validate(); err != nil {
		return nil, err
	}
	w := allocate(cfg, shape)
	for _, t := range w.Tensors() {
		if fanIn, ok := heFanIn(t); ok {
			std := math.Sqrt(2 / float64(fanIn))
			for i := range t.Data {
				t.Data[i] = float32(rng.NormFloat64() * std)
			}
		}
	}
	return w, nil
}

// allocate builds a network of the given size with unit batch-norm scales and
// variances and every other array zero.
func allocate(cfg Config, shape Shape) *Weights {
	f, hw := cfg.Filters, shape.Height*shape.Width
	w := &Weights{
		Config:     cfg,
		Shape:      shape,
		Stem:       newConv(f, shape.Planes, 3),
		StemBN:     newBN(f),
		PolicyConv: newConv(cfg.PolicyFilters, f, 1),
		PolicyBN:   newBN(cfg.PolicyFilters),
		PolicyFC:   newDense(cfg.PolicyFilters*hw, shape.Actions),
		ValueConv:  newConv(cfg.ValueFilters, f, 1),
		ValueBN:    newBN(cfg.ValueFilters),
		ValueFC1:   newDense(cfg.ValueFilters*hw, cfg.ValueHidden),
		ValueFC2:   newDense(cfg.ValueHidden, cfg.ValueOutputs()),
	}
	for i := range cfg.Blocks {
		r := Residual{
			Conv1: newConv(f, f, 3), BN1: newBN(f),
			Conv2: newConv(f, f, 3), BN2: newBN(f),
		}
		if cfg.PoolBlock(i) {
			d := newDense(2*cfg.Pooled(), f)
			r.Pool = &d
		}
		if cfg.SqueezeExcite {
			d1, d2 := newDense(f, cfg.SEHidden()), newDense(cfg.SEHidden(), 2*f)
			r.SE1, r.SE2 = &d1, &d2
		}
		w.Blocks = append(w.Blocks, r)
	}
	if cfg.Ownership {
		c := newConv(1, f, 1)
		w.Ownership = &c
	}
	if cfg.Score {
		d := newDense(cfg.ValueHidden, 1)
		w.ScoreFC = &d
	}
	if cfg.OpponentPolicy {
		d := newDense(cfg.PolicyFilters*hw, shape.Actions)
		w.OppPolicyFC = &d
	}
	return w
}

// heFanIn returns the fan-in of a weight matrix (conv or dense W), and false
// for biases and batch-norm parameters.
func heFanIn(t Tensor) (int, bool) {
	switch len(t.Shape) {
	case 4: // conv [Out][In][K][K]
		return t.Shape[1] * t.Shape[2] * t.Shape[3], true
	case 2: // dense [Out][In]
		return t.Shape[1], true
	}
	return 0, false
}

func newConv(out, in, k int) Conv {
	return Conv{Out: out, In: in, K: k, W: make([]float32, out*in*k*k)}
}

func newBN(c int) BatchNorm {
	bn := BatchNorm{C: c, Gamma: make([]float32, c), Beta: make([]float32, c),
		Mean: make([]float32, c), Var: make([]float32, c)}
	for i := range bn.Gamma {
		bn.Gamma[i], bn.Var[i] = 1, 1
	}
	return bn
}

func newDense(in, out int) Dense {
	return Dense{In: in, Out: out, W: make([]float32, out*in), B: make([]float32, out)}
}

// Tensors lists every array of the network in a stable order, sharing
// memory with w. Names look like "stem.w", "stem.bn.gamma",
// "block3.conv2.w", "policy.fc.b", "value.fc1.w" (and, where present,
// "block1.pool.fc.w", "ownership.conv.w", "score.fc.b", "policy.opp.fc.w",
// placed so that a
// network without them lists exactly what it did before they existed).
// Checkpoints and the
// training graph both bind weights through it.
func (w *Weights) Tensors() []Tensor {
	var ts []Tensor
	conv := func(name string, c Conv) {
		ts = append(ts, Tensor{name + ".w", []int{c.Out, c.In, c.K, c.K}, c.W})
	}
	bn := func(name string, b BatchNorm) {
		ts = append(ts,
			Tensor{name + ".gamma", []int{b.C}, b.Gamma},
			Tensor{name + ".beta", []int{b.C}, b.Beta},
			Tensor{name + ".mean", []int{b.C}, b.Mean},
			Tensor{name + ".var", []int{b.C}, b.Var})
	}
	dense := func(name string, d Dense) {
		ts = append(ts,
			Tensor{name + ".w", []int{d.Out, d.In}, d.W},
			Tensor{name + ".b", []int{d.Out}, d.B})
	}
	conv("stem", w.Stem)
	bn("stem.bn", w.StemBN)
	for i, b := range w.Blocks {
		p := fmt.Sprintf("block%d", i)
		conv(p+".conv1", b.Conv1)
		bn(p+".bn1", b.BN1)
		if b.Pool != nil {
			dense(p+".pool.fc", *b.Pool)
		}
		conv(p+".conv2", b.Conv2)
		bn(p+".bn2", b.BN2)
		if b.SE1 != nil {
			dense(p+".se.fc1", *b.SE1)
			dense(p+".se.fc2", *b.SE2)
		}
	}
	conv("policy.conv", w.PolicyConv)
	bn("policy.bn", w.PolicyBN)
	dense("policy.fc", w.PolicyFC)
	conv("value.conv", w.ValueConv)
	bn("value.bn", w.ValueBN)
	dense("value.fc1", w.ValueFC1)
	dense("value.fc2", w.ValueFC2)
	if w.Ownership != nil {
		conv("ownership.conv", *w.Ownership)
	}
	if w.ScoreFC != nil {
		dense("score.fc", *w.ScoreFC)
	}
	if w.OppPolicyFC != nil {
		dense("policy.opp.fc", *w.OppPolicyFC)
	}
	return ts
}

// NumParams counts the trainable parameters (running statistics excluded).
func (w *Weights) NumParams() int {
	n := 0
	for _, t := range w.Tensors() {
		if !isRunningStat(t.Name) {
			n += len(t.Data)
		}
	}
	return n
}

func isRunningStat(name string) bool {
	return len(name) > 5 && (name[len(name)-5:] == ".mean" || name[len(name)-4:] == ".var")
}

// Clone returns a deep copy, e.g. an immutable snapshot for inference workers.
func (w *Weights) Clone() *Weights {
	c := allocate(w.Config, w.Shape)
	src, dst := w.Tensors(), c.Tensors()
	for i := range src {
		copy(dst[i].Data, src[i].Data)
	}
	return c
}
