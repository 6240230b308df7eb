package train

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"tabula/nn"
)

// param is one trainable array bound into the graph. Its node's value shares
// memory with the nn.Weights tensor, so updates made in place on data are
// what the next forward pass reads.
type param struct {
	name  string
	node  *G.Node
	data  []float32 // shared with nn.Weights
	decay bool      // part of theta in c*||theta||^2
}

// bnBinding ties a batch-norm op to the running statistics of the
// nn.Weights it came from.
type bnBinding struct {
	mean, vr      []float32 // in nn.Weights
	opMean, opVar []float32 // inside the op (bnState)
}

// network is the forward graph of an nn.Weights at a fixed batch size.
type network struct {
	g      *G.ExprGraph
	batch  int
	obs    *G.Node // (B, planes, H, W)
	logits *G.Node // (B, actions)
	value  *G.Node // (B), after tanh
	// The auxiliary heads, nil when the network has none: the ownership
	// head's raw outputs (before tanh) and the score head's outputs.
	ownership *G.Node // (B, H*W)
	score     *G.Node // (B)
	oppLogits *G.Node // (B, actions): the opponent-policy head's logits
	params    []param
	bns       []bnBinding
}

// buildNetwork lays out w as a gorgonia graph for batches of exactly batch
// positions, binding every trainable node to w's memory. bnMomentum is the
// running-statistics momentum of the batch-norm ops.
func buildNetwork(w *nn.Weights, batch int, bnMomentum float64) (*network, error) {
	if batch < 1 {
		return nil, fmt.Errorf("train: batch %d, want at least 1", batch)
	}
	if w.Config.WDL {
		return nil, fmt.Errorf("train: engine %q does not train a win/draw/loss value head (experimental.wdl); engine %q does (3x3 tower and 1x1 head kernels)", EngineGorgonia, EngineDirect)
	}
	s := w.Shape
	g := G.NewGraph()
	n := &network{g: g, batch: batch}
	scratch := &convScratch{}
	n.obs = G.NewTensor(g, tensor.Float32, 4, G.WithShape(batch, s.Planes, s.Height, s.Width), G.WithName("obs"))

	bind := func(name string, data []float32, decay bool, shape ...int) *G.Node {
		t := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(data))
		node := G.NewTensor(g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithName(name), G.WithValue(t))
		n.params = append(n.params, param{name: name, node: node, data: data, decay: decay})
		return node
	}
	conv := func(name string, x *G.Node, c nn.Conv) (*G.Node, error) {
		f := bind(name+".w", c.W, true, c.Out, c.In, c.K, c.K)
		y, err := conv2d(x, f, scratch)
		if err != nil {
			return nil, fmt.Errorf("train: %s: %w", name, err)
		}
		return y, nil
	}
	bn := func(name string, x *G.Node, b nn.BatchNorm, relu bool) (*G.Node, error) {
		scale := bind(name+".gamma", b.Gamma, false, 1, b.C, 1, 1)
		bias := bind(name+".beta", b.Beta, false, 1, b.C, 1, 1)
		y, st, err := batchNorm(x, scale, bias, bnMomentum, relu)
		if err != nil {
			return nil, fmt.Errorf("train: %s: %w", name, err)
		}
		n.bns = append(n.bns, bnBinding{mean: b.Mean, vr: b.Var, opMean: st.mean, opVar: st.vr})
		return y, nil
	}
	dense := func(name string, x *G.Node, d nn.Dense) (*G.Node, error) {
		wn := bind(name+".w", d.W, true, d.Out, d.In)
		bn := bind(name+".b", d.B, false, 1, d.Out)
		wt, err := G.Transpose(wn)
		if err != nil {
			return nil, fmt.Errorf("train: %s: %w", name, err)
		}
		y, err := G.Mul(x, wt)
		if err != nil {
			return nil, fmt.Errorf("train: %s: %w", name, err)
		}
		if y.Dims() == 1 { // (1,K)x(K,N) is a vector-matrix product in gorgonia
			if y, err = G.Reshape(y, tensor.Shape{batch, d.Out}); err != nil {
				return nil, fmt.Errorf("train: %s: %w", name, err)
			}
		}
		if y, err = G.BroadcastAdd(y, bn, nil, []byte{0}); err != nil {
			return nil, fmt.Errorf("train: %s: %w", name, err)
		}
		return y, nil
	}
	convBNReLU := func(convName, bnName string, x *G.Node, c nn.Conv, b nn.BatchNorm) (*G.Node, error) {
		y, err := conv(convName, x, c)
		if err != nil {
			return nil, err
		}
		return bn(bnName, y, b, true)
	}

	x, err := convBNReLU("stem", "stem.bn", n.obs, w.Stem, w.StemBN)
	if err != nil {
		return nil, err
	}
	for i, blk := range w.Blocks {
		p := fmt.Sprintf("block%d", i)
		h, err := conv(p+".conv1", x, blk.Conv1)
		if err != nil {
			return nil, err
		}
		if blk.Pool == nil {
			if h, err = bn(p+".bn1", h, blk.BN1, true); err != nil {
				return nil, err
			}
		} else {
			// Global pooling: the pooled channels' mean and maximum make a
			// bias per channel, added before the ReLU.
			if h, err = bn(p+".bn1", h, blk.BN1, false); err != nil {
				return nil, err
			}
			pooled, err := globalPool(h, w.Config.Pooled())
			if err != nil {
				return nil, fmt.Errorf("train: %s: %w", p, err)
			}
			pb, err := dense(p+".pool.fc", pooled, *blk.Pool)
			if err != nil {
				return nil, err
			}
			if h, err = biasReLU(h, pb); err != nil {
				return nil, fmt.Errorf("train: %s: %w", p, err)
			}
		}
		if h, err = conv(p+".conv2", h, blk.Conv2); err != nil {
			return nil, err
		}
		if h, err = bn(p+".bn2", h, blk.BN2, false); err != nil {
			return nil, err
		}
		if blk.SE1 != nil {
			if h, err = squeezeExcite(p+".se", h, *blk.SE1, *blk.SE2, dense); err != nil {
				return nil, err
			}
		}
		if x, err = addReLU(x, h); err != nil {
			return nil, fmt.Errorf("train: %s: %w", p, err)
		}
	}
	hw := s.Height * s.Width

	// Policy head.
	ph, err := convBNReLU("policy.conv", "policy.bn", x, w.PolicyConv, w.PolicyBN)
	if err != nil {
		return nil, err
	}
	if ph, err = G.Reshape(ph, tensor.Shape{batch, w.PolicyConv.Out * hw}); err != nil {
		return nil, fmt.Errorf("train: policy flatten: %w", err)
	}
	if n.logits, err = dense("policy.fc", ph, w.PolicyFC); err != nil {
		return nil, err
	}

	// Value head.
	vh, err := convBNReLU("value.conv", "value.bn", x, w.ValueConv, w.ValueBN)
	if err != nil {
		return nil, err
	}
	if vh, err = G.Reshape(vh, tensor.Shape{batch, w.ValueConv.Out * hw}); err != nil {
		return nil, fmt.Errorf("train: value flatten: %w", err)
	}
	if vh, err = dense("value.fc1", vh, w.ValueFC1); err != nil {
		return nil, err
	}
	if vh, err = G.Rectify(vh); err != nil {
		return nil, fmt.Errorf("train: value relu: %w", err)
	}
	hidden := vh
	if vh, err = dense("value.fc2", vh, w.ValueFC2); err != nil {
		return nil, err
	}
	if vh, err = G.Reshape(vh, tensor.Shape{batch}); err != nil {
		return nil, fmt.Errorf("train: value reshape: %w", err)
	}
	if n.value, err = G.Tanh(vh); err != nil {
		return nil, fmt.Errorf("train: value tanh: %w", err)
	}
	if w.Ownership != nil {
		o, err := conv("ownership.conv", x, *w.Ownership)
		if err != nil {
			return nil, err
		}
		if n.ownership, err = G.Reshape(o, tensor.Shape{batch, hw}); err != nil {
			return nil, fmt.Errorf("train: ownership flatten: %w", err)
		}
	}
	if w.ScoreFC != nil {
		sc, err := dense("score.fc", hidden, *w.ScoreFC)
		if err != nil {
			return nil, err
		}
		if n.score, err = G.Reshape(sc, tensor.Shape{batch}); err != nil {
			return nil, fmt.Errorf("train: score reshape: %w", err)
		}
	}
	if w.OppPolicyFC != nil {
		// Last, as in nn.Weights.Tensors: the params follow its order.
		if n.oppLogits, err = dense("policy.opp.fc", ph, *w.OppPolicyFC); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// loadStats copies the running statistics of the nn.Weights into the
// batch-norm ops (a training VM resets them when it is built).
func (n *network) loadStats() {
	for _, b := range n.bns {
		copy(b.opMean, b.mean)
		copy(b.opVar, b.vr)
	}
}

// saveStats copies the batch-norm ops' running statistics into the
// nn.Weights.
func (n *network) saveStats() {
	for _, b := range n.bns {
		copy(b.mean, b.opMean)
		copy(b.vr, b.opVar)
	}
}

// squeezeExcite returns sigmoid(o[:, :f])*v + o[:, f:] for v [b][f][h][w],
// o = fc2(ReLU(fc1(the mean of v over the board))), built from gorgonia's
// own operations (its automatic differentiation is the direct engine's
// reference). dense adds a bound dense layer to the graph.
func squeezeExcite(name string, v *G.Node, fc1, fc2 nn.Dense, dense func(string, *G.Node, nn.Dense) (*G.Node, error)) (*G.Node, error) {
	s := v.Shape()
	b, f := s[0], s[1]
	fail := func(err error) (*G.Node, error) { return nil, fmt.Errorf("train: %s: %w", name, err) }
	flat, err := G.Reshape(v, tensor.Shape{b, f, s[2] * s[3]})
	if err != nil {
		return fail(err)
	}
	mean, err := G.Mean(flat, 2)
	if err != nil {
		return fail(err)
	}
	hid, err := dense(name+".fc1", mean, fc1)
	if err != nil {
		return nil, err
	}
	if hid, err = G.Rectify(hid); err != nil {
		return fail(err)
	}
	o, err := dense(name+".fc2", hid, fc2)
	if err != nil {
		return nil, err
	}
	scale, err := G.Slice(o, nil, G.S(0, f))
	if err != nil {
		return fail(err)
	}
	bias, err := G.Slice(o, nil, G.S(f, 2*f))
	if err != nil {
		return fail(err)
	}
	if scale, err = G.Sigmoid(scale); err != nil {
		return fail(err)
	}
	if scale, err = G.Reshape(scale, tensor.Shape{b, f, 1, 1}); err != nil {
		return fail(err)
	}
	if bias, err = G.Reshape(bias, tensor.Shape{b, f, 1, 1}); err != nil {
		return fail(err)
	}
	y, err := G.BroadcastHadamardProd(v, scale, nil, []byte{2, 3})
	if err != nil {
		return fail(err)
	}
	if y, err = G.BroadcastAdd(y, bias, nil, []byte{2, 3}); err != nil {
		return fail(err)
	}
	return y, nil
}
