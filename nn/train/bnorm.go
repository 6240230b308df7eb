package train

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"tabula/nn"
)

// bnState is one batch normalisation's state, shared by its forward op and
// its gradient op: the running statistics, the mode, and the per-channel
// inverse standard deviation of the last training batch.
type bnState struct {
	b, c, hw int
	momentum float64
	training bool
	mean, vr []float32 // running statistics
	invStd   []float64 // of the last training batch, for the backward pass
}

// bnOp normalises x (b, c, h, w) per channel: with the batch's statistics
// in training (folding them into the running averages), with the running
// ones in an evaluation machine. With grad set it is the gradient, inputs
// (xhat, dxhat).
type bnOp struct {
	plainOp
	st   *bnState
	grad bool
	out  *tensor.Dense // reused output (see outputOf)
}

func (op *bnOp) Arity() int {
	if op.grad {
		return 2
	}
	return 1
}

func (op *bnOp) Type() hm.Type {
	if op.grad {
		return hm.NewFnType(tensor4, tensor4, tensor4)
	}
	return hm.NewFnType(tensor4, tensor4)
}

func (op *bnOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return firstInputShape(op, in)
}

func (op *bnOp) DiffWRT(inputs int) []bool { return []bool{true} }
func (op *bnOp) String() string {
	// The state's address keeps distinct layers' ops distinct.
	return fmt.Sprintf("tabulaBatchNorm{b=%d,c=%d,hw=%d,grad=%v,%p}", op.st.b, op.st.c, op.st.hw, op.grad, op.st)
}
func (op *bnOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *bnOp) Hashcode() uint32      { return hashcode(op) }

// SetTraining chooses batch statistics (true) or running ones (false); a
// gorgonia machine calls it when it is built (EvalMode gives false).
func (op *bnOp) SetTraining(training bool) error {
	if !op.grad {
		op.st.training = training
	}
	return nil
}

// SymDiff returns the gradient node of x.
func (op *bnOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.grad || len(inputs) != 1 {
		return nil, fmt.Errorf("train: %v: no second derivative", op)
	}
	d, err := G.ApplyOp(&bnOp{st: op.st, grad: true}, output, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d}, nil
}

// Do runs the op.
func (op *bnOp) Do(inputs ...G.Value) (G.Value, error) {
	st := op.st
	if len(inputs) != op.Arity() {
		return nil, fmt.Errorf("train: %v: %d inputs, want %d", op, len(inputs), op.Arity())
	}
	n := st.b * st.c * st.hw
	x, err := float32s(inputs[0], n, "input")
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	out := outputOf(&op.out, inputs[0].Shape())
	res := out.Data().([]float32)
	hw, cnt := st.hw, float64(st.b*st.hw)
	if op.grad { // x is xhat; dxhat is the second input
		dy, err := float32s(inputs[1], n, "output gradient")
		if err != nil {
			return nil, fmt.Errorf("%v: %w", op, err)
		}
		for c := range st.c {
			var sdy, sdyx float64
			for e := range st.b {
				at := (e*st.c + c) * hw
				var a, b float32
				for i, d := range dy[at : at+hw] {
					a += d
					b += d * x[at+i]
				}
				sdy += float64(a)
				sdyx += float64(b)
			}
			// dx = invStd * (dy - mean(dy) - xhat * mean(dy*xhat))
			k := float32(st.invStd[c])
			m1, m2 := float32(sdy/cnt), float32(sdyx/cnt)
			for e := range st.b {
				at := (e*st.c + c) * hw
				xs, r := x[at:at+hw], res[at:at+hw]
				for i, d := range dy[at : at+hw] {
					r[i] = k * (d - m1 - xs[i]*m2)
				}
			}
		}
		return out, nil
	}
	for c := range st.c {
		var mean, invStd float64
		if st.training {
			var s float64
			for e := range st.b {
				at := (e*st.c + c) * hw
				var a float32
				for _, v := range x[at : at+hw] {
					a += v
				}
				s += float64(a)
			}
			mean = s / cnt
			var ss float64
			for e := range st.b {
				at := (e*st.c + c) * hw
				var a float64
				for _, v := range x[at : at+hw] {
					d := float64(v) - mean
					a += d * d
				}
				ss += a
			}
			vr := ss / cnt
			invStd = 1 / math.Sqrt(vr+nn.BatchNormEps)
			st.invStd[c] = invStd
			unbiased := vr
			if cnt > 1 {
				unbiased = ss / (cnt - 1)
			}
			m := st.momentum
			st.mean[c] = float32(m*mean + (1-m)*float64(st.mean[c]))
			st.vr[c] = float32(m*unbiased + (1-m)*float64(st.vr[c]))
		} else {
			mean = float64(st.mean[c])
			invStd = 1 / math.Sqrt(float64(st.vr[c])+nn.BatchNormEps)
		}
		k, m := float32(invStd), float32(mean)
		for e := range st.b {
			at := (e*st.c + c) * hw
			r := res[at : at+hw]
			for i, v := range x[at : at+hw] {
				r[i] = (v - m) * k
			}
		}
	}
	return out, nil
}
