package train

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The auxiliary targets' losses (KataGo's ownership and score) and global
// pooling, each written twice over: as plain functions on float32 slices
// that return the loss and write its gradient (OwnershipLoss, ScoreLoss,
// GlobalPool and its backward passes), which any trainer can call, and as
// thin gorgonia ops over them for this package's graph.

// OwnershipLoss is the ownership head's loss over a batch of b positions
// of n points each:
//
//	L = (1/b) sum_i weight[i] (1/n) sum_p CE(q, sigmoid(2 x)),  q = (1 + target)/2,
//
// the binary cross-entropy between the target owner, as a probability that
// the mover owns the point, and the prediction tanh(x) read the same way
// ((1 + tanh x)/2 = sigmoid(2x)). x are the raw outputs of the head (before
// tanh), target is in [-1, 1], weight is 1 for an example with targets and
// 0 for one without. When grad is not nil it receives scale * dL/dx, which
// is scale*weight[i]/(b n) * (tanh x - target).
func OwnershipLoss(x, target, weight []float32, b, n int, grad []float32, scale float64) float64 {
	var loss float64
	norm := 1 / float64(b*n)
	for i := 0; i < b; i++ {
		a := float64(weight[i])
		xs, ts := x[i*n:(i+1)*n], target[i*n:(i+1)*n]
		var gs []float32
		if grad != nil {
			gs = grad[i*n : (i+1)*n]
		}
		if a == 0 {
			clear(gs)
			continue
		}
		for p, v := range xs {
			y := 2 * float64(v)
			t := float64(ts[p])
			// softplus(y) - q y, with softplus(y) = max(y, 0) + log1p(exp(-|y|)).
			loss += a * (math.Max(y, 0) + math.Log1p(math.Exp(-math.Abs(y))) - (1+t)/2*y)
			if gs != nil {
				gs[p] = float32(scale * a * norm * (math.Tanh(float64(v)) - t))
			}
		}
	}
	return loss * norm
}

// ScoreLoss is the score head's loss over a batch of b positions:
//
//	L = (1/b) sum_i weight[i] (s[i] - target[i])^2,
//
// with s the head's output and target the final margin divided by the
// network's ScoreScale. When grad is not nil it receives scale * dL/ds.
func ScoreLoss(s, target, weight []float32, b int, grad []float32, scale float64) float64 {
	var loss float64
	for i := 0; i < b; i++ {
		d := float64(s[i]) - float64(target[i])
		a := float64(weight[i])
		loss += a * d * d
		if grad != nil {
			grad[i] = float32(scale * 2 * a * d / float64(b))
		}
	}
	return loss / float64(b)
}

// GlobalPool writes, for each of b positions of x laid out [b][c][hw], the
// mean and then the maximum over the hw points of ReLU of each of the first
// g channels into out, [b][2g].
func GlobalPool(x []float32, b, c, hw, g int, out []float32) {
	inv := 1 / float32(hw)
	for i := 0; i < b; i++ {
		for ch := 0; ch < g; ch++ {
			plane := x[(i*c+ch)*hw : (i*c+ch+1)*hw]
			var sum, mx float32
			for _, v := range plane {
				v = max(v, 0)
				sum += v
				mx = max(mx, v)
			}
			out[i*2*g+ch] = sum * inv
			out[i*2*g+g+ch] = mx
		}
	}
}

// GlobalPoolBackward writes into dx ([b][c][hw]) the gradient of GlobalPool
// given dy ([b][2g]), the gradient of its output: a mean's share goes to
// every positive point of its channel, a maximum's to the first point that
// holds it (when it is positive). Channels past g get zero.
func GlobalPoolBackward(x, dy []float32, b, c, hw, g int, dx []float32) {
	clear(dx[:b*c*hw])
	inv := 1 / float32(hw)
	for i := 0; i < b; i++ {
		for ch := 0; ch < g; ch++ {
			plane := x[(i*c+ch)*hw : (i*c+ch+1)*hw]
			d := dx[(i*c+ch)*hw : (i*c+ch+1)*hw]
			dm, dmax := dy[i*2*g+ch]*inv, dy[i*2*g+g+ch]
			arg, mx := -1, float32(0)
			for p, v := range plane {
				if v > 0 {
					d[p] = dm
					if v > mx {
						arg, mx = p, v
					}
				}
			}
			if arg >= 0 {
				d[arg] += dmax
			}
		}
	}
}

// BiasReLU writes y = ReLU(x + bias[i][ch]) for x laid out [b][c][hw] and a
// bias per position and channel, [b][c].
func BiasReLU(x, bias []float32, b, c, hw int, y []float32) {
	for i := 0; i < b*c; i++ {
		bb := bias[i]
		xs, ys := x[i*hw:(i+1)*hw], y[i*hw:(i+1)*hw]
		for p, v := range xs {
			ys[p] = max(v+bb, 0)
		}
	}
}

// BiasReLUBackward writes, from dy and the output y of BiasReLU, the
// gradient of its input x into dx (when not nil) and of its bias into
// dbias (when not nil).
func BiasReLUBackward(dy, y []float32, b, c, hw int, dx, dbias []float32) {
	for i := 0; i < b*c; i++ {
		ds, ys := dy[i*hw:(i+1)*hw], y[i*hw:(i+1)*hw]
		var sum float32
		for p, d := range ds {
			d *= positive(ys[p])
			sum += d
			if dx != nil {
				dx[i*hw+p] = d
			}
		}
		if dbias != nil {
			dbias[i] = sum
		}
	}
}

// auxKind tells the auxiliary losses apart.
type auxKind int

const (
	auxOwnership auxKind = iota // inputs (x [b][n], target [b][n], weight [b])
	auxScore                    // inputs (s [b], target [b], weight [b])
)

// auxLossOp is an auxiliary loss (inputs prediction, target, weight) or,
// with grad set, its gradient with respect to the prediction (inputs
// prediction, target, weight, dL).
type auxLossOp struct {
	plainOp
	kind auxKind
	b, n int // n points per position (ownership); 1 for the score
	grad bool
	out  *tensor.Dense
}

func (op *auxLossOp) predShape() tensor.Shape {
	if op.kind == auxOwnership {
		return tensor.Shape{op.b, op.n}
	}
	return tensor.Shape{op.b}
}

func (op *auxLossOp) Arity() int {
	if op.grad {
		return 4
	}
	return 3
}

func (op *auxLossOp) Type() hm.Type {
	pred := G.TensorType{Dims: len(op.predShape()), Of: hm.TypeVariable('a')}
	vec := G.TensorType{Dims: 1, Of: hm.TypeVariable('a')}
	if op.grad {
		return hm.NewFnType(pred, pred, vec, scalarA, pred)
	}
	return hm.NewFnType(pred, pred, vec, scalarA)
}

func (op *auxLossOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.grad {
		return op.predShape(), nil
	}
	return tensor.ScalarShape(), nil
}

func (op *auxLossOp) String() string {
	return fmt.Sprintf("tabulaAuxLoss{kind=%d,b=%d,n=%d,grad=%v}", op.kind, op.b, op.n, op.grad)
}
func (op *auxLossOp) WriteHash(h hash.Hash)     { fmt.Fprint(h, op.String()) }
func (op *auxLossOp) Hashcode() uint32          { return hashcode(op) }
func (op *auxLossOp) DiffWRT(inputs int) []bool { return []bool{true, false, false} }

func (op *auxLossOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.grad || len(inputs) != 3 {
		return nil, fmt.Errorf("train: %v: no second derivative", op)
	}
	d, err := G.ApplyOp(&auxLossOp{kind: op.kind, b: op.b, n: op.n, grad: true}, inputs[0], inputs[1], inputs[2], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d, nil, nil}, nil
}

func (op *auxLossOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != op.Arity() {
		return nil, fmt.Errorf("train: %v: %d inputs, want %d", op, len(inputs), op.Arity())
	}
	n := op.b * op.n
	pred, err := float32s(inputs[0], n, "prediction")
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	target, err := float32s(inputs[1], n, "target")
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	weight, err := float32s(inputs[2], op.b, "weight")
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	var out *tensor.Dense
	var grad []float32
	scale := 1.0
	if op.grad {
		if scale, err = scalarOf(inputs[3]); err != nil {
			return nil, err
		}
		out = outputOf(&op.out, op.predShape())
		grad = out.Data().([]float32)
	}
	var loss float64
	if op.kind == auxOwnership {
		loss = OwnershipLoss(pred, target, weight, op.b, op.n, grad, scale)
	} else {
		loss = ScoreLoss(pred, target, weight, op.b, grad, scale)
	}
	if op.grad {
		return out, nil
	}
	return G.NewF32(float32(loss)), nil
}

// globalPoolOp is GlobalPool as an op, (x [b][c][h][w]) -> [b][2g], or with
// grad set its backward pass, (x, dy) -> dx.
type globalPoolOp struct {
	plainOp
	b, c, hw, g int
	xShape      tensor.Shape
	grad        bool
	out         *tensor.Dense
}

func (op *globalPoolOp) Arity() int {
	if op.grad {
		return 2
	}
	return 1
}

func (op *globalPoolOp) Type() hm.Type {
	if op.grad {
		return hm.NewFnType(tensor4, tensor2, tensor4)
	}
	return hm.NewFnType(tensor4, tensor2)
}

func (op *globalPoolOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.grad {
		return op.xShape.Clone(), nil
	}
	return tensor.Shape{op.b, 2 * op.g}, nil
}

func (op *globalPoolOp) String() string {
	return fmt.Sprintf("tabulaGlobalPool{b=%d,c=%d,hw=%d,g=%d,grad=%v}", op.b, op.c, op.hw, op.g, op.grad)
}
func (op *globalPoolOp) WriteHash(h hash.Hash)     { fmt.Fprint(h, op.String()) }
func (op *globalPoolOp) Hashcode() uint32          { return hashcode(op) }
func (op *globalPoolOp) DiffWRT(inputs int) []bool { return []bool{true} }

func (op *globalPoolOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.grad || len(inputs) != 1 {
		return nil, fmt.Errorf("train: %v: no second derivative", op)
	}
	d, err := G.ApplyOp(&globalPoolOp{b: op.b, c: op.c, hw: op.hw, g: op.g, xShape: op.xShape, grad: true}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d}, nil
}

func (op *globalPoolOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != op.Arity() {
		return nil, fmt.Errorf("train: %v: %d inputs, want %d", op, len(inputs), op.Arity())
	}
	x, err := float32s(inputs[0], op.b*op.c*op.hw, "input")
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	if op.grad {
		dy, err := float32s(inputs[1], op.b*2*op.g, "gradient")
		if err != nil {
			return nil, fmt.Errorf("%v: %w", op, err)
		}
		out := outputOf(&op.out, op.xShape)
		GlobalPoolBackward(x, dy, op.b, op.c, op.hw, op.g, out.Data().([]float32))
		return out, nil
	}
	out := outputOf(&op.out, tensor.Shape{op.b, 2 * op.g})
	GlobalPool(x, op.b, op.c, op.hw, op.g, out.Data().([]float32))
	return out, nil
}

// biasReLUKind tells BiasReLU's forward and backward ops apart.
type biasReLUKind int

const (
	biasReLUForward  biasReLUKind = iota // (x [b][c][h][w], bias [b][c]) -> y
	biasReLUGradX                        // (dy, y) -> dx
	biasReLUGradBias                     // (dy, y) -> dbias [b][c]
)

// biasReLUOp is BiasReLU, the global pooling's channel biases added to a
// block's first convolution before its ReLU, or one of its gradients.
type biasReLUOp struct {
	plainOp
	b, c, hw int
	xShape   tensor.Shape
	kind     biasReLUKind
	out      *tensor.Dense
}

func (op *biasReLUOp) Arity() int { return 2 }

func (op *biasReLUOp) Type() hm.Type {
	switch op.kind {
	case biasReLUForward:
		return hm.NewFnType(tensor4, tensor2, tensor4)
	case biasReLUGradBias:
		return hm.NewFnType(tensor4, tensor4, tensor2)
	}
	return hm.NewFnType(tensor4, tensor4, tensor4)
}

func (op *biasReLUOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.kind == biasReLUGradBias {
		return tensor.Shape{op.b, op.c}, nil
	}
	return op.xShape.Clone(), nil
}

func (op *biasReLUOp) String() string {
	return fmt.Sprintf("tabulaBiasReLU{b=%d,c=%d,hw=%d,kind=%d}", op.b, op.c, op.hw, op.kind)
}
func (op *biasReLUOp) WriteHash(h hash.Hash)     { fmt.Fprint(h, op.String()) }
func (op *biasReLUOp) Hashcode() uint32          { return hashcode(op) }
func (op *biasReLUOp) DiffWRT(inputs int) []bool { return []bool{true, true} }

func (op *biasReLUOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.kind != biasReLUForward || len(inputs) != 2 {
		return nil, fmt.Errorf("train: %v: no second derivative", op)
	}
	dx, err := G.ApplyOp(&biasReLUOp{b: op.b, c: op.c, hw: op.hw, xShape: op.xShape, kind: biasReLUGradX}, grad, output)
	if err != nil {
		return nil, err
	}
	db, err := G.ApplyOp(&biasReLUOp{b: op.b, c: op.c, hw: op.hw, xShape: op.xShape, kind: biasReLUGradBias}, grad, output)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, db}, nil
}

func (op *biasReLUOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("train: %v: %d inputs, want 2", op, len(inputs))
	}
	n := op.b * op.c * op.hw
	a, err := float32s(inputs[0], n, "input")
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	if op.kind == biasReLUForward {
		bias, err := float32s(inputs[1], op.b*op.c, "bias")
		if err != nil {
			return nil, fmt.Errorf("%v: %w", op, err)
		}
		out := outputOf(&op.out, op.xShape)
		BiasReLU(a, bias, op.b, op.c, op.hw, out.Data().([]float32))
		return out, nil
	}
	y, err := float32s(inputs[1], n, "output")
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	if op.kind == biasReLUGradX {
		out := outputOf(&op.out, op.xShape)
		BiasReLUBackward(a, y, op.b, op.c, op.hw, out.Data().([]float32), nil)
		return out, nil
	}
	out := outputOf(&op.out, tensor.Shape{op.b, op.c})
	BiasReLUBackward(a, y, op.b, op.c, op.hw, nil, out.Data().([]float32))
	return out, nil
}

// globalPool returns a block's pooled features, [b][2g], of x [b][c][h][w].
func globalPool(x *G.Node, g int) (*G.Node, error) {
	s := x.Shape()
	if len(s) != 4 || g < 1 || g > s[1] {
		return nil, fmt.Errorf("train: global pooling of %d channels of shape %v", g, s)
	}
	return G.ApplyOp(&globalPoolOp{b: s[0], c: s[1], hw: s[2] * s[3], g: g, xShape: s.Clone()}, x)
}

// biasReLU returns ReLU(x + bias) for x [b][c][h][w] and bias [b][c].
func biasReLU(x, bias *G.Node) (*G.Node, error) {
	s := x.Shape()
	if len(s) != 4 || !bias.Shape().Eq(tensor.Shape{s[0], s[1]}) {
		return nil, fmt.Errorf("train: bias-relu of shapes %v and %v", s, bias.Shape())
	}
	return G.ApplyOp(&biasReLUOp{b: s[0], c: s[1], hw: s[2] * s[3], xShape: s.Clone()}, x, bias)
}
