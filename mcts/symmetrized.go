package mcts

import (
	"errors"
	"fmt"
	"sync"

	"tabula/games"
)

// Symmetrized averages an evaluator over symmetries of the game (test-time
// augmentation): each position is evaluated as itself and as its images
// under symmetries 1..K-1, and the K policies, mapped back to the position's
// own orientation, and the K values are averaged. A network's errors that
// differ between orientations of the same position partly cancel. It costs
// K evaluations a position (in one batch of the inner evaluator), and a new
// state for each image. It is safe for concurrent use when the inner
// evaluator is.
type Symmetrized struct {
	inner      Evaluator
	sym        games.Symmetric
	k          int
	numActions int
	scratch    sync.Pool // of *symScratch
}

// symScratch is one Evaluate call's buffers.
type symScratch struct {
	states   []games.State
	policies [][]float32
	values   []float32
	scores   []float32   // EvaluateOutcomes: per image
	own      [][]float32 // EvaluateOutcomes: per image, nil but the identity's
}

func grow32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// NewSymmetrized returns inner averaged over the first k symmetries of g
// (the identity first), 1 <= k <= g's NumSymmetries. With k = 1 it
// evaluates like inner. The error names what g lacks.
func NewSymmetrized(inner Evaluator, g games.Game, k int) (*Symmetrized, error) {
	if inner == nil {
		return nil, errors.New("mcts: symmetrized evaluator: nil evaluator")
	}
	sym, ok := g.(games.Symmetric)
	if !ok {
		return nil, fmt.Errorf("mcts: symmetrized evaluator: game %s has no symmetries", g.Name())
	}
	if n := sym.NumSymmetries(); k < 1 || k > n {
		return nil, fmt.Errorf("mcts: symmetrized evaluator: %d symmetries, want 1..%d for %s", k, n, g.Name())
	}
	return &Symmetrized{inner: inner, sym: sym, k: k, numActions: g.NumActions()}, nil
}

// Symmetries returns K, the number of orientations averaged.
func (e *Symmetrized) Symmetries() int { return e.k }

// Evaluate implements Evaluator.
func (e *Symmetrized) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	return e.evaluate(states, policies, values, nil, nil)
}

// OutcomeHeads implements OutcomeEvaluator: the inner evaluator's heads,
// none when it is not an OutcomeEvaluator.
func (e *Symmetrized) OutcomeHeads() (ownership, score bool) {
	if oe, ok := e.inner.(OutcomeEvaluator); ok {
		return oe.OutcomeHeads()
	}
	return false, false
}

// EvaluateOutcomes implements OutcomeEvaluator with the inner evaluator's:
// the policies and values averaged as Evaluate averages them, the score
// (the same for every image of a position) averaged over the K images, and
// the ownership of each position's own image (the identity).
func (e *Symmetrized) EvaluateOutcomes(states []games.State, policies [][]float32, values []float32, scores []float32, ownership [][]float32) error {
	if _, ok := e.inner.(OutcomeEvaluator); !ok {
		return errors.New("mcts: symmetrized evaluator: the inner evaluator has no score or ownership head")
	}
	if scores == nil {
		return errors.New("mcts: symmetrized evaluator: outcomes without scores")
	}
	return e.evaluate(states, policies, values, scores, ownership)
}

// evaluate is Evaluate, and EvaluateOutcomes with scores not nil.
func (e *Symmetrized) evaluate(states []games.State, policies [][]float32, values []float32, scores []float32, ownership [][]float32) error {
	if e.k == 1 {
		if scores != nil {
			return e.inner.(OutcomeEvaluator).EvaluateOutcomes(states, policies, values, scores, ownership)
		}
		return e.inner.Evaluate(states, policies, values)
	}
	sc, _ := e.scratch.Get().(*symScratch)
	if sc == nil {
		sc = &symScratch{}
	}
	defer e.scratch.Put(sc)
	m := len(states) * e.k
	sc.states = sc.states[:0]
	for _, s := range states {
		sc.states = append(sc.states, s)
		for k := 1; k < e.k; k++ {
			sc.states = append(sc.states, e.sym.TransformState(k, s))
		}
	}
	for len(sc.policies) < m {
		sc.policies = append(sc.policies, make([]float32, e.numActions))
	}
	if cap(sc.values) < m {
		sc.values = make([]float32, m)
	}
	sc.values = sc.values[:m]
	var err error
	if scores != nil {
		sc.scores = grow32(sc.scores, m)
		var own [][]float32
		if ownership != nil {
			// The identity image of position i, image i*K, alone.
			if cap(sc.own) < m {
				sc.own = make([][]float32, m)
			}
			sc.own = sc.own[:m]
			clear(sc.own)
			for i := range states {
				sc.own[i*e.k] = ownership[i]
			}
			own = sc.own
		}
		err = e.inner.(OutcomeEvaluator).EvaluateOutcomes(sc.states, sc.policies[:m], sc.values, sc.scores, own)
		clear(sc.own)
	} else {
		err = e.inner.Evaluate(sc.states, sc.policies[:m], sc.values)
	}
	clear(sc.states) // drop the images
	if err != nil {
		return err
	}
	inv := 1 / float32(e.k)
	for i := range states {
		p := policies[i]
		base := i * e.k
		copy(p, sc.policies[base])
		v := sc.values[base]
		for k := 1; k < e.k; k++ {
			// The image's policy is over transformed actions: action a of
			// the position is action TransformAction(k, a) of its image.
			q := sc.policies[base+k]
			for a := range p {
				p[a] += q[e.sym.TransformAction(k, a)]
			}
			v += sc.values[base+k]
		}
		for a := range p {
			p[a] *= inv
		}
		values[i] = v * inv
		if scores != nil {
			var x float32
			for k := range e.k {
				x += sc.scores[base+k]
			}
			scores[i] = x * inv
		}
	}
	return nil
}
