package train

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The policy loss as a gorgonia op of our own:
//
//	L = -(1/B) sum_i sum_a pi[i][a] log p[i][a],  p[i] = softmax of logits[i] over the legal moves,
//
// computed per row in float64 with the row's largest legal logit
// subtracted, so it neither overflows on large logits nor depends on a
// large negative constant for illegal moves (gorgonia v0.9.18's float32
// LogSoftMax returned rows of -Inf under heavy masking). Its gradient with
// respect to the logits is (g/B) (p[i][a] sum_b pi[i][b] - pi[i][a]) on
// legal moves and 0 on illegal ones.

var (
	tensor2 = G.TensorType{Dims: 2, Of: hm.TypeVariable('a')}
	scalarA = hm.TypeVariable('a')
)

// policyLossOp is the loss (inputs logits, pi, legal) or, with grad set, its
// gradient (inputs logits, pi, legal, dL).
type policyLossOp struct {
	plainOp
	b, a int
	grad bool
	out  *tensor.Dense // reused gradient output (see outputOf)
}

func (op *policyLossOp) Arity() int {
	if op.grad {
		return 4
	}
	return 3
}

func (op *policyLossOp) Type() hm.Type {
	if op.grad {
		return hm.NewFnType(tensor2, tensor2, tensor2, scalarA, tensor2)
	}
	return hm.NewFnType(tensor2, tensor2, tensor2, scalarA)
}

func (op *policyLossOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.grad {
		return tensor.Shape{op.b, op.a}, nil
	}
	return tensor.ScalarShape(), nil
}

func (op *policyLossOp) String() string {
	return fmt.Sprintf("tabulaPolicyLoss{b=%d,a=%d,grad=%v}", op.b, op.a, op.grad)
}
func (op *policyLossOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *policyLossOp) Hashcode() uint32      { return hashcode(op) }

// DiffWRT: only the logits are differentiated.
func (op *policyLossOp) DiffWRT(inputs int) []bool { return []bool{true, false, false} }

// SymDiff returns the gradient node of the logits.
func (op *policyLossOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.grad || len(inputs) != 3 {
		return nil, fmt.Errorf("train: %v: no second derivative", op)
	}
	d, err := G.ApplyOp(&policyLossOp{b: op.b, a: op.a, grad: true}, inputs[0], inputs[1], inputs[2], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d, nil, nil}, nil
}

// scalarOf reads a float32 scalar value.
func scalarOf(v G.Value) (float64, error) {
	switch s := v.Data().(type) {
	case float32:
		return float64(s), nil
	case []float32:
		if len(s) == 1 {
			return float64(s[0]), nil
		}
	}
	return 0, fmt.Errorf("train: policy loss gradient: %T is not a scalar", v.Data())
}

// Do runs the op.
func (op *policyLossOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != op.Arity() {
		return nil, fmt.Errorf("train: %v: %d inputs, want %d", op, len(inputs), op.Arity())
	}
	n := op.b * op.a
	var in [3][]float32
	for i := range in {
		var err error
		if in[i], err = float32s(inputs[i], n, "input"); err != nil {
			return nil, fmt.Errorf("%v: %w", op, err)
		}
	}
	logits, pi, legal := in[0], in[1], in[2]
	if !op.grad {
		return G.NewF32(float32(policyLoss(logits, pi, legal, op.b, op.a, nil, 0))), nil
	}
	g, err := scalarOf(inputs[3])
	if err != nil {
		return nil, err
	}
	out := outputOf(&op.out, tensor.Shape{op.b, op.a})
	policyLoss(logits, pi, legal, op.b, op.a, out.Data().([]float32), g/float64(op.b))
	return out, nil
}

// policyLoss returns the policy loss of b rows of a logits, targets pi and
// legality legal (1 or 0; nil: every move legal), and, if dl is not nil,
// writes scale times the gradient of b times the loss with respect to the
// logits into dl (scale = 1/b: the loss's own gradient; 0 on illegal moves).
func policyLoss(logits, pi, legal []float32, b, a int, dl []float32, scale float64) float64 {
	if dl != nil {
		clear(dl[:b*a]) // illegal moves keep 0
	}
	var loss float64
	for i := range b {
		l, p := logits[i*a:][:a], pi[i*a:][:a]
		var m []float32
		if legal != nil {
			m = legal[i*a:][:a]
		}
		ok := func(j int) bool { return m == nil || m[j] != 0 }
		mx := math.Inf(-1)
		for j, v := range l {
			if ok(j) {
				mx = math.Max(mx, float64(v))
			}
		}
		if math.IsInf(mx, -1) { // no legal move: nothing to learn
			continue
		}
		var sum, piSum float64
		for j, v := range l {
			if ok(j) {
				sum += math.Exp(float64(v) - mx)
				piSum += float64(p[j])
			}
		}
		lse := mx + math.Log(sum)
		for j, v := range l {
			if !ok(j) {
				continue
			}
			logp := float64(v) - lse
			if dl != nil {
				dl[i*a+j] = float32(scale * (math.Exp(logp)*piSum - float64(p[j])))
			}
			loss -= float64(p[j]) * logp
		}
	}
	return loss / float64(b)
}
