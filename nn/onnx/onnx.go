// Package onnx writes a tabula network as a standard ONNX model, so that a
// trained network can run outside this program (onnxruntime, TensorRT, a
// browser). The graph is the network of nn.Weights in ONNX operators (opset
// 13): Conv, BatchNormalization (or batch normalisation folded into the
// convolutions), Relu, Add, Flatten, Gemm and Tanh (Softmax and MatMul for a
// win/draw/loss value head; Slice, GlobalAveragePool, GlobalMaxPool and
// Concat for global pooling; GlobalAveragePool, Slice, Sigmoid and Mul for
// squeeze-and-excitation).
//
// The model has one input and two outputs:
//
//	obs            float32 [batch, planes, height, width]   as games.State.Observation writes it
//	policy_logits  float32 [batch, actions]                 raw logits; softmax over the legal actions
//	value          float32 [batch, 1]                       tanh (or p(win) - p(loss) of a win/draw/loss head), from the point of view of the player to move
//
// batch is a symbolic dimension. The game spec, the observation layout and
// the network's size travel in the model's metadata_props (see Metadata).
//
// The protobuf is encoded by hand with google.golang.org/protobuf's protowire
// (see proto.go for why).
package onnx

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"tabula/games"
	"tabula/nn"
)

// Version numbers written into every model.
const (
	// IRVersion is the ONNX IR version (7: ONNX 1.8, opset 13).
	IRVersion = 7
	// Opset is the version of the default operator set.
	Opset = 13
)

// Names of the graph's input and outputs.
const (
	InputName  = "obs"
	PolicyName = "policy_logits"
	ValueName  = "value"
)

// Metadata keys every model carries.
const (
	KeyGame             = "tabula.game"              // game spec, e.g. "othello:size=6"
	KeyObservation      = "tabula.observation"       // the input's layout in words
	KeyObservationShape = "tabula.observation_shape" // "planes,height,width"
	KeyActions          = "tabula.actions"           // the policy's width
	KeyPolicy           = "tabula.policy"            // the policy output in words
	KeyValue            = "tabula.value"             // the value output in words
	KeyNetwork          = "tabula.network"           // tower size, e.g. "filters=64,blocks=4,..."
	KeyStep             = "tabula.step"              // training steps of the checkpoint
	KeyBatchNorm        = "tabula.batchnorm"         // "folded" or "separate"
	// Checkpoint metadata is copied with this prefix.
	CheckpointMetaPrefix = "checkpoint."
)

// Options choose the form of the graph.
type Options struct {
	// SeparateBatchNorm keeps every batch normalisation as a
	// BatchNormalization node (with its running statistics, for tools that
	// fine-tune). By default they are folded into the convolutions before
	// them, as the native inference does: a smaller, faster graph.
	SeparateBatchNorm bool
}

// Export encodes checkpoint c, which must be a network for game g, as an ONNX
// model.
func Export(c *nn.Checkpoint, g games.Game, opts Options) ([]byte, error) {
	if c == nil || g == nil {
		return nil, errors.New("onnx: nil checkpoint or game")
	}
	if err := c.CheckGame(g); err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	w := c.Weights
	// NewModel runs every check on the arrays (shapes, variances).
	if _, err := nn.NewModel(w); err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	b := &builder{sep: opts.SeparateBatchNorm}
	sh, cfg := w.Shape, w.Config

	x := b.convBN("stem", InputName, w.Stem, w.StemBN)
	x = b.relu("stem.relu", x)
	for i, blk := range w.Blocks {
		p := fmt.Sprintf("block%d", i)
		h := b.convBN(p+".conv1", x, blk.Conv1, blk.BN1)
		if blk.Pool != nil {
			h = b.globalPool(p+".pool", h, *blk.Pool)
		}
		h = b.relu(p+".relu1", h)
		h = b.convBN(p+".conv2", h, blk.Conv2, blk.BN2)
		if blk.SE1 != nil {
			h = b.squeezeExcite(p+".se", h, *blk.SE1, *blk.SE2)
		}
		sum := b.op(p+".add", "Add", []string{x, h})
		x = b.relu(p+".relu2", sum)
	}

	p := b.relu("policy.relu", b.convBN("policy.conv", x, w.PolicyConv, w.PolicyBN))
	p = b.op("policy.flatten", "Flatten", []string{p}, intAttr("axis", 1))
	b.gemm("policy.fc", p, w.PolicyFC, PolicyName)

	v := b.relu("value.relu", b.convBN("value.conv", x, w.ValueConv, w.ValueBN))
	v = b.op("value.flatten", "Flatten", []string{v}, intAttr("axis", 1))
	v = b.relu("value.fc1.relu", b.gemm("value.fc1", v, w.ValueFC1, ""))
	v = b.gemm("value.fc2", v, w.ValueFC2, "")
	if cfg.WDL {
		// p(win) - p(loss): the softmax of the three outputs times (1, 0, -1).
		v = b.op("value.wdl", "Softmax", []string{v}, intAttr("axis", 1))
		diff := b.init("value.wdl.diff", []int{3, 1}, []float32{1, 0, -1})
		b.nodes = append(b.nodes, node("value.diff", "MatMul", []string{v, diff}, []string{ValueName}))
	} else {
		b.nodes = append(b.nodes, node("value.tanh", "Tanh", []string{v}, []string{ValueName}))
	}

	batch := dim{param: "batch"}
	var graph msg
	for _, n := range b.nodes {
		graph = graph.sub(graphNode, n)
	}
	graph = graph.str(graphName, "tabula")
	for _, t := range b.inits {
		graph = graph.sub(graphInitializer, t)
	}
	graph = graph.str(graphDocString, "AlphaZero-style residual policy/value network for "+c.Game)
	graph = graph.sub(graphInput, valueInfo(InputName, batch,
		dim{value: int64(sh.Planes)}, dim{value: int64(sh.Height)}, dim{value: int64(sh.Width)}))
	graph = graph.sub(graphOutput, valueInfo(PolicyName, batch, dim{value: int64(sh.Actions)}))
	graph = graph.sub(graphOutput, valueInfo(ValueName, batch, dim{value: 1}))

	meta := map[string]string{
		KeyGame: c.Game,
		KeyObservation: fmt.Sprintf("%s: float32 [batch, %d planes, %d rows, %d columns], row-major "+
			"[plane][row][col], from the point of view of the player to move, as games.State.Observation "+
			"of %s writes it", InputName, sh.Planes, sh.Height, sh.Width, c.Game),
		KeyObservationShape: fmt.Sprintf("%d,%d,%d", sh.Planes, sh.Height, sh.Width),
		KeyActions:          strconv.Itoa(sh.Actions),
		KeyPolicy: fmt.Sprintf("%s: float32 [batch, %d]: raw logits, one per action of %s; "+
			"the policy is their softmax over the legal actions", PolicyName, sh.Actions, c.Game),
		KeyValue: fmt.Sprintf("%s: float32 [batch, 1]: expected result in [-1, 1] (%s) "+
			"from the point of view of the player to move", ValueName,
			map[bool]string{false: "tanh", true: "p(win) - p(loss) of a win/draw/loss softmax"}[cfg.WDL]),
		KeyNetwork: fmt.Sprintf("filters=%d,blocks=%d,policy_filters=%d,value_filters=%d,value_hidden=%d%s%s",
			cfg.Filters, cfg.Blocks, cfg.PolicyFilters, cfg.ValueFilters, cfg.ValueHidden,
			map[bool]string{false: "", true: ",wdl=true"}[cfg.WDL],
			map[bool]string{false: "", true: fmt.Sprintf(",global_pooling=true,pool_channels=%d", cfg.Pooled())}[cfg.GlobalPooling]+
				map[bool]string{false: "", true: ",squeeze_excite=true"}[cfg.SqueezeExcite]),
		KeyStep:      strconv.FormatInt(c.Step, 10),
		KeyBatchNorm: map[bool]string{false: "folded", true: "separate"}[b.sep],
	}
	for k, val := range c.Meta {
		meta[CheckpointMetaPrefix+k] = val
	}

	var m msg
	m = m.int64(modelIRVersion, IRVersion)
	m = m.str(modelProducerName, "tabula")
	m = m.str(modelProducerVersion, strconv.Itoa(nn.CheckpointVersion))
	m = m.str(modelDomain, "tabula")
	m = m.int64(modelModelVersion, max(c.Step, 1))
	m = m.str(modelDocString, "tabula network for "+c.Game+"; see metadata_props for the input layout")
	m = m.sub(modelGraph, graph)
	m = m.sub(modelOpsetImport, msg(nil).str(opsetDomain, "").int64(opsetVersion, Opset))
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		m = m.sub(modelMetadataProps, msg(nil).str(entryKey, k).str(entryValue, meta[k]))
	}
	return m, nil
}

// builder collects the graph's nodes and initializers in order.
type builder struct {
	sep   bool
	nodes []msg
	inits []msg
}

func (b *builder) init(name string, shape []int, data []float32) string {
	b.inits = append(b.inits, floatTensor(name, shape, data))
	return name
}

// initInt64 adds a one-dimensional int64 initializer and returns its name.
func (b *builder) initInt64(name string, data ...int64) string {
	b.inits = append(b.inits, int64Tensor(name, data))
	return name
}

// op adds a node with one output named after it.
func (b *builder) op(name, op string, inputs []string, attrs ...attribute) string {
	b.nodes = append(b.nodes, node(name, op, inputs, []string{name}, attrs...))
	return name
}

func (b *builder) relu(name, x string) string { return b.op(name, "Relu", []string{x}) }

// convBN adds a "same" convolution followed by its batch normalisation,
// folded or as a node of its own.
func (b *builder) convBN(name, x string, c nn.Conv, bn nn.BatchNorm) string {
	k := int64(c.K)
	pad := (k - 1) / 2
	attrs := []attribute{intsAttr("kernel_shape", k, k), intsAttr("pads", pad, pad, pad, pad),
		intsAttr("strides", 1, 1), intsAttr("dilations", 1, 1), intAttr("group", 1)}
	shape := []int{c.Out, c.In, c.K, c.K}
	if b.sep {
		wname := b.init(name+".w", shape, c.W)
		y := b.op(name, "Conv", []string{x, wname}, attrs...)
		bnName := name + ".bn"
		ins := []string{y,
			b.init(bnName+".gamma", []int{bn.C}, bn.Gamma),
			b.init(bnName+".beta", []int{bn.C}, bn.Beta),
			b.init(bnName+".mean", []int{bn.C}, bn.Mean),
			b.init(bnName+".var", []int{bn.C}, bn.Var)}
		return b.op(bnName, "BatchNormalization", ins, floatAttr("epsilon", nn.BatchNormEps))
	}
	fw, fb := Fold(c, bn)
	wname := b.init(name+".w", shape, fw)
	bname := b.init(name+".b", []int{c.Out}, fb)
	return b.op(name, "Conv", []string{x, wname, bname}, attrs...)
}

// globalPool adds a block's global pooling to h, its first convolution's
// output after batch normalisation, [batch, filters, height, width]: the
// mean and the maximum over the board of ReLU of the first pooled channels
// (Slice, Relu, GlobalAveragePool, GlobalMaxPool, Concat: [batch, 2g, 1, 1])
// go through the dense layer d, written as a 1x1 convolution so that its
// [batch, filters, 1, 1] output broadcasts over the board when added to h.
// The caller applies the ReLU after it.
func (b *builder) globalPool(name, h string, d nn.Dense) string {
	s := b.op(name+".slice", "Slice", []string{h, b.initInt64(name+".starts", 0),
		b.initInt64(name+".ends", int64(d.In/2)), b.initInt64(name+".axes", 1)})
	s = b.relu(name+".relu", s)
	mean := b.op(name+".mean", "GlobalAveragePool", []string{s})
	mx := b.op(name+".max", "GlobalMaxPool", []string{s})
	cat := b.op(name+".concat", "Concat", []string{mean, mx}, intAttr("axis", 1))
	attrs := []attribute{intsAttr("kernel_shape", 1, 1), intsAttr("strides", 1, 1), intAttr("group", 1)}
	bias := b.op(name+".fc", "Conv", []string{cat, b.init(name+".fc.w", []int{d.Out, d.In, 1, 1}, d.W),
		b.init(name+".fc.b", []int{d.Out}, d.B)}, attrs...)
	return b.op(name+".add", "Add", []string{h, bias})
}

// squeezeExcite adds a block's squeeze-and-excitation to v, its second
// convolution's output after batch normalisation, [batch, filters, height,
// width]: the mean over the board (GlobalAveragePool) goes through fc1, Relu
// and fc2, written as 1x1 convolutions ([batch, 2*filters, 1, 1]); the first
// half through a Sigmoid scales v, the second is added to it. The caller
// adds the skip connection.
func (b *builder) squeezeExcite(name, v string, fc1, fc2 nn.Dense) string {
	attrs := []attribute{intsAttr("kernel_shape", 1, 1), intsAttr("strides", 1, 1), intAttr("group", 1)}
	m := b.op(name+".mean", "GlobalAveragePool", []string{v})
	h := b.op(name+".fc1", "Conv", []string{m, b.init(name+".fc1.w", []int{fc1.Out, fc1.In, 1, 1}, fc1.W),
		b.init(name+".fc1.b", []int{fc1.Out}, fc1.B)}, attrs...)
	h = b.relu(name+".relu", h)
	o := b.op(name+".fc2", "Conv", []string{h, b.init(name+".fc2.w", []int{fc2.Out, fc2.In, 1, 1}, fc2.W),
		b.init(name+".fc2.b", []int{fc2.Out}, fc2.B)}, attrs...)
	f := int64(fc1.In)
	scale := b.op(name+".scale", "Slice", []string{o, b.initInt64(name+".scale.starts", 0),
		b.initInt64(name+".scale.ends", f), b.initInt64(name+".scale.axes", 1)})
	scale = b.op(name+".sigmoid", "Sigmoid", []string{scale})
	bias := b.op(name+".bias", "Slice", []string{o, b.initInt64(name+".bias.starts", f),
		b.initInt64(name+".bias.ends", 2*f), b.initInt64(name+".bias.axes", 1)})
	y := b.op(name+".mul", "Mul", []string{v, scale})
	return b.op(name+".add", "Add", []string{y, bias})
}

// gemm adds a dense layer y = x W^T + B; out names its output ("" names it
// after the layer).
func (b *builder) gemm(name, x string, d nn.Dense, out string) string {
	if out == "" {
		out = name
	}
	ins := []string{x, b.init(name+".w", []int{d.Out, d.In}, d.W), b.init(name+".b", []int{d.Out}, d.B)}
	b.nodes = append(b.nodes, node(name, "Gemm", ins, []string{out},
		floatAttr("alpha", 1), floatAttr("beta", 1), intAttr("transA", 0), intAttr("transB", 1)))
	return out
}

// Fold returns the weights, still laid out [Out][In][K][K], and the bias of
// convolution c followed by batch normalisation bn at inference: W' = W*s and
// b' = beta - mean*s per output channel, s = gamma/sqrt(var+eps), computed in
// float64 as nn's own folding does.
func Fold(c nn.Conv, bn nn.BatchNorm) (w, bias []float32) {
	per := c.In * c.K * c.K
	w = make([]float32, len(c.W))
	bias = make([]float32, c.Out)
	for o := 0; o < c.Out; o++ {
		s := float64(bn.Gamma[o]) / math.Sqrt(float64(bn.Var[o])+nn.BatchNormEps)
		bias[o] = float32(float64(bn.Beta[o]) - float64(bn.Mean[o])*s)
		for i := o * per; i < (o+1)*per; i++ {
			w[i] = float32(float64(c.W[i]) * s)
		}
	}
	return w, bias
}

// Metadata reads the metadata_props of an ONNX model (any model, not only
// ours). It checks the wire format of the fields it walks through.
func Metadata(model []byte) (map[string]string, error) {
	meta := map[string]string{}
	err := fields(model, func(num protowire.Number, typ protowire.Type, v []byte) error {
		if num != modelMetadataProps || typ != protowire.BytesType {
			return nil
		}
		var k, val string
		if err := fields(v, func(n protowire.Number, t protowire.Type, b []byte) error {
			if t == protowire.BytesType && n == entryKey {
				k = string(b)
			} else if t == protowire.BytesType && n == entryValue {
				val = string(b)
			}
			return nil
		}); err != nil {
			return fmt.Errorf("metadata entry: %w", err)
		}
		meta[k] = val
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	return meta, nil
}

// fields calls f on each field of message b: its number, wire type and, for
// length-delimited fields, its bytes.
func fields(b []byte, f func(protowire.Number, protowire.Type, []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("bad tag: %w", protowire.ParseError(n))
		}
		b = b[n:]
		var v []byte
		if typ == protowire.BytesType {
			v, n = protowire.ConsumeBytes(b)
		} else {
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := f(num, typ, v); err != nil {
			return err
		}
	}
	return nil
}
