package train

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// addReLUOp is the end of a residual block, y = max(0, a + b), as one op;
// with grad set it is the gradient, inputs (dy, y), output dy where y > 0.
// gorgonia's Add and Rectify allocate a copy, a mask and a product instead.
type addReLUOp struct {
	plainOp
	n    int // elements
	grad bool
	out  *tensor.Dense // reused output (see outputOf)
}

func (op *addReLUOp) Arity() int                { return 2 }
func (op *addReLUOp) Type() hm.Type             { return hm.NewFnType(tensor4, tensor4, tensor4) }
func (op *addReLUOp) DiffWRT(inputs int) []bool { return []bool{true, true} }
func (op *addReLUOp) String() string {
	return fmt.Sprintf("tabulaAddReLU{n=%d,grad=%v}", op.n, op.grad)
}
func (op *addReLUOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *addReLUOp) Hashcode() uint32      { return hashcode(op) }

func (op *addReLUOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return firstInputShape(op, in)
}

// SymDiff gives both summands the same gradient.
func (op *addReLUOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.grad || len(inputs) != 2 {
		return nil, fmt.Errorf("train: %v: no second derivative", op)
	}
	d, err := G.ApplyOp(&addReLUOp{n: op.n, grad: true}, grad, output)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d, d}, nil
}

// Do runs the op.
func (op *addReLUOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("train: %v: %d inputs, want 2", op, len(inputs))
	}
	a, err := float32s(inputs[0], op.n, "input")
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	b, err := float32s(inputs[1], op.n, "input")
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	out := outputOf(&op.out, inputs[0].Shape())
	res := out.Data().([]float32)[:op.n]
	b = b[:op.n]
	if op.grad { // a = dy, b = y
		for i, d := range a {
			res[i] = d * positive(b[i])
		}
	} else {
		for i, x := range a {
			res[i] = max(x+b[i], 0)
		}
	}
	return out, nil
}

// addReLU returns max(0, a + b) for two nodes of one 4-D shape.
func addReLU(a, b *G.Node) (*G.Node, error) {
	if !a.Shape().Eq(b.Shape()) || a.Dims() != 4 {
		return nil, fmt.Errorf("train: add-relu of shapes %v and %v", a.Shape(), b.Shape())
	}
	return G.ApplyOp(&addReLUOp{n: a.Shape().TotalSize()}, a, b)
}
