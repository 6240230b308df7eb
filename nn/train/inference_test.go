package train

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"tabula/nn"
)

// inference is gorgonia's inference-mode forward pass (batch normalisation
// with the running statistics) over a snapshot of a network: the reference
// the fast forward pass in package nn is checked against.
type inference struct {
	net    *network
	vm     G.VM
	obsBuf []float32
	obs    *tensor.Dense
	// The last Forward's auxiliary outputs (see Aux).
	own, score []float32
}

// newInference builds the evaluation graph of a copy of w for batch
// positions.
func newInference(w *nn.Weights, batch int) (*inference, error) {
	w = w.Clone()
	net, err := buildNetwork(w, batch, 0.1)
	if err != nil {
		return nil, err
	}
	s := w.Shape
	inf := &inference{net: net, obsBuf: make([]float32, batch*s.Planes*s.Height*s.Width)}
	inf.obs = tensor.New(tensor.WithShape(batch, s.Planes, s.Height, s.Width), tensor.WithBacking(inf.obsBuf))
	if err := G.Let(net.obs, inf.obs); err != nil {
		return nil, fmt.Errorf("train: bind obs: %w", err)
	}
	inf.vm = G.NewTapeMachine(net.g, G.EvalMode())
	net.loadStats()
	return inf, nil
}

// Forward returns the raw policy logits [batch][actions] and the values
// [batch] of obs ([batch][planes][H][W]).
func (inf *inference) Forward(obs []float32) (logits, values []float32, err error) {
	if len(obs) != len(inf.obsBuf) {
		return nil, nil, fmt.Errorf("train: forward: obs has %d values, want %d", len(obs), len(inf.obsBuf))
	}
	copy(inf.obsBuf, obs)
	defer inf.vm.Reset()
	if err := inf.vm.RunAll(); err != nil {
		return nil, nil, fmt.Errorf("train: forward: %w", err)
	}
	l, ok1 := inf.net.logits.Value().Data().([]float32)
	v, ok2 := inf.net.value.Value().Data().([]float32)
	if !ok1 || !ok2 {
		return nil, nil, fmt.Errorf("train: forward: unexpected output types %T, %T", inf.net.logits.Value().Data(), inf.net.value.Value().Data())
	}
	inf.own, inf.score = nil, nil
	if n := inf.net.ownership; n != nil {
		d, ok := n.Value().Data().([]float32)
		if !ok {
			return nil, nil, fmt.Errorf("train: forward: ownership of type %T", n.Value().Data())
		}
		inf.own = append([]float32(nil), d...)
	}
	if n := inf.net.score; n != nil {
		d, ok := n.Value().Data().([]float32)
		if !ok {
			return nil, nil, fmt.Errorf("train: forward: score of type %T", n.Value().Data())
		}
		inf.score = append([]float32(nil), d...)
	}
	return append([]float32(nil), l...), append([]float32(nil), v...), nil
}

// Aux returns the auxiliary heads' raw outputs of the last Forward, as the
// training losses read them: the ownership head's before tanh [batch][H*W]
// and the score head's [batch] (the margin divided by ScoreScale); nil for
// a head the network lacks.
func (inf *inference) Aux() (own, score []float32) { return inf.own, inf.score }

// Close releases the machine.
func (inf *inference) Close() error { return inf.vm.Close() }
