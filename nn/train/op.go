package train

import (
	"fmt"
	"hash/fnv"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// plainOp holds the methods of gorgonia's Op that all our ops share: each
// returns a value of its own (not a pointer into an input), calls no
// external code and overwrites no input. Ops embed it.
type plainOp struct{}

func (plainOp) ReturnsPtr() bool     { return false }
func (plainOp) CallsExtern() bool    { return false }
func (plainOp) OverwritesInput() int { return -1 }

// hashcode is an op's Hashcode: the FNV-1a hash of its String, which is
// what its WriteHash writes.
func hashcode(op fmt.Stringer) uint32 {
	h := fnv.New32a()
	fmt.Fprint(h, op.String())
	return h.Sum32()
}

// firstInputShape is InferShape for an op whose output has the shape of its
// first input.
func firstInputShape(op fmt.Stringer, in []G.DimSizer) (tensor.Shape, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("train: %v: no input shapes", op)
	}
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("train: %v: input shape %T", op, in[0])
	}
	return s.Clone(), nil
}
