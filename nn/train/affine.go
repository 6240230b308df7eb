package train

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The batch-norm scale and shift, optionally followed by ReLU, as gorgonia
// ops of our own: y = max(0, x*gamma[c] + beta[c]). gorgonia's BatchNorm
// applies gamma and beta by broadcasting them to the full activation shape
// (a copy each), and its ReLU backward pass allocates a mask and a clone;
// these ops do each direction in one pass.

// affineKind tells the ops apart.
type affineKind int

const (
	affineForward   affineKind = iota // (x, gamma, beta) -> y
	affineGradInput                   // (dy, y, gamma) -> dx
	affineGradGamma                   // (dy, y, x) -> dgamma
	affineGradBeta                    // (dy, y) -> dbeta
)

// affineOp is one of the four; x and y are (b, c, h, w), gamma and beta
// (1, c, 1, 1).
type affineOp struct {
	plainOp
	b, c, hw int
	relu     bool
	kind     affineKind
	out      *tensor.Dense // reused output (see outputOf)
}

func (op *affineOp) Arity() int {
	if op.kind == affineGradBeta {
		return 2
	}
	return 3
}

func (op *affineOp) Type() hm.Type {
	if op.kind == affineGradBeta {
		return hm.NewFnType(tensor4, tensor4, tensor4)
	}
	return hm.NewFnType(tensor4, tensor4, tensor4, tensor4)
}

func (op *affineOp) shape() tensor.Shape {
	if op.kind == affineGradGamma || op.kind == affineGradBeta {
		return tensor.Shape{1, op.c, 1, 1}
	}
	return nil // same as the first input
}

func (op *affineOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if s := op.shape(); s != nil {
		return s, nil
	}
	return firstInputShape(op, in)
}

func (op *affineOp) String() string {
	return fmt.Sprintf("tabulaAffine%d{b=%d,c=%d,hw=%d,relu=%v}", op.kind, op.b, op.c, op.hw, op.relu)
}
func (op *affineOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *affineOp) Hashcode() uint32      { return hashcode(op) }

// DiffWRT says x, gamma and beta are differentiable.
func (op *affineOp) DiffWRT(inputs int) []bool { return []bool{true, true, true} }

// SymDiff returns the gradient nodes of x, gamma and beta.
func (op *affineOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.kind != affineForward || len(inputs) != 3 {
		return nil, fmt.Errorf("train: %v: no second derivative", op)
	}
	with := func(k affineKind) *affineOp { return &affineOp{b: op.b, c: op.c, hw: op.hw, relu: op.relu, kind: k} }
	dx, err := G.ApplyOp(with(affineGradInput), grad, output, inputs[1])
	if err != nil {
		return nil, err
	}
	dg, err := G.ApplyOp(with(affineGradGamma), grad, output, inputs[0])
	if err != nil {
		return nil, err
	}
	db, err := G.ApplyOp(with(affineGradBeta), grad, output)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dg, db}, nil
}

// Do runs the op.
func (op *affineOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != op.Arity() {
		return nil, fmt.Errorf("train: %v: %d inputs, want %d", op, len(inputs), op.Arity())
	}
	full, ch := op.b*op.c*op.hw, op.c
	var lens [3]int
	switch op.kind {
	case affineForward:
		lens = [3]int{full, ch, ch}
	case affineGradInput:
		lens = [3]int{full, full, ch}
	default:
		lens = [3]int{full, full, full}
	}
	var in [3][]float32
	for i, v := range inputs {
		var err error
		if in[i], err = float32s(v, lens[i], "input"); err != nil {
			return nil, fmt.Errorf("%v: %w", op, err)
		}
	}
	shape := op.shape()
	if shape == nil {
		shape = inputs[0].Shape().Clone()
	}
	out := outputOf(&op.out, shape)
	res := out.Data().([]float32)
	if op.kind == affineGradGamma || op.kind == affineGradBeta {
		clear(res) // accumulated below
	}
	hw := op.hw
	for e := range op.b {
		for c := range op.c {
			at := (e*op.c + c) * hw
			switch op.kind {
			case affineForward:
				x, y := in[0][at:at+hw], res[at:at+hw]
				g, b := in[1][c], in[2][c]
				if op.relu {
					for i, v := range x {
						y[i] = max(v*g+b, 0)
					}
				} else {
					for i, v := range x {
						y[i] = v*g + b
					}
				}
			case affineGradInput:
				dy, y, dx := in[0][at:at+hw], in[1][at:at+hw], res[at:at+hw]
				g := in[2][c]
				if op.relu {
					for i, d := range dy {
						dx[i] = d * g * positive(y[i])
					}
				} else {
					for i, d := range dy {
						dx[i] = d * g
					}
				}
			case affineGradGamma:
				dy, y, x := in[0][at:at+hw], in[1][at:at+hw], in[2][at:at+hw]
				var s float32
				if op.relu {
					for i, d := range dy {
						s += d * x[i] * positive(y[i])
					}
				} else {
					for i, d := range dy {
						s += d * x[i]
					}
				}
				res[c] += s
			case affineGradBeta:
				dy, y := in[0][at:at+hw], in[1][at:at+hw]
				var s float32
				if op.relu {
					for i, d := range dy {
						s += d * positive(y[i])
					}
				} else {
					for _, d := range dy {
						s += d
					}
				}
				res[c] += s
			}
		}
	}
	return out, nil
}

// batchNorm normalises x (b, c, h, w) with batch statistics (or running
// ones in an evaluation machine), then applies gamma and beta (1, c, 1, 1)
// and, if relu, ReLU. It returns the output and the normalisation's state,
// which holds the running statistics.
func batchNorm(x, gamma, beta *G.Node, momentum float64, relu bool) (*G.Node, *bnState, error) {
	s := x.Shape()
	if len(s) != 4 {
		return nil, nil, fmt.Errorf("train: batch norm of shape %v, want 4 dimensions", s)
	}
	st := &bnState{b: s[0], c: s[1], hw: s[2] * s[3], momentum: momentum, training: true,
		mean: make([]float32, s[1]), vr: make([]float32, s[1]), invStd: make([]float64, s[1])}
	for i := range st.vr {
		st.vr[i] = 1
	}
	norm, err := G.ApplyOp(&bnOp{st: st}, x)
	if err != nil {
		return nil, nil, err
	}
	y, err := G.ApplyOp(&affineOp{b: s[0], c: s[1], hw: s[2] * s[3], relu: relu, kind: affineForward}, norm, gamma, beta)
	if err != nil {
		return nil, nil, err
	}
	return y, st, nil
}

// positive is 1 if v > 0 and 0 if v is +0: ReLU's derivative read from its
// output, which is never negative. It uses integer operations only, since
// a branch on the sign of activations mispredicts half the time.
func positive(v float32) float32 {
	b := math.Float32bits(v)
	return math.Float32frombits(((b | -b) >> 31) * 0x3f800000) // 1.0 or 0.0
}
