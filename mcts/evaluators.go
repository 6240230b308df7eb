package mcts

import (
	"errors"
	"math/rand/v2"

	"tabula/games"
)

// UniformEvaluator gives every position a uniform policy over its legal
// actions and the value 0. It is stateless and safe for concurrent use;
// with it a search measures the cost of the tree alone.
type UniformEvaluator struct{}

// Evaluate implements Evaluator.
func (UniformEvaluator) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	for i, s := range states {
		uniformPolicy(s, policies[i])
		values[i] = 0
	}
	return nil
}

// uniformPolicy writes the uniform distribution over the legal actions of s
// into p.
func uniformPolicy(s games.State, p []float32) {
	n := 0
	for a := range p {
		if s.IsLegal(a) {
			p[a] = 1
			n++
		} else {
			p[a] = 0
		}
	}
	if n == 0 {
		return
	}
	u := 1 / float32(n)
	for a, x := range p {
		if x != 0 {
			p[a] = u
		}
	}
}

// RolloutEvaluator values a position by the mean result of random playouts
// from it, with a uniform policy over the legal actions. It is not safe for
// concurrent use.
type RolloutEvaluator struct {
	playouts int
	rng      *rand.Rand
	scratch  games.State
	buf      []int
}

// NewRolloutEvaluator returns an evaluator averaging playouts random games
// (at least 1) drawn from rng.
func NewRolloutEvaluator(playouts int, rng *rand.Rand) (*RolloutEvaluator, error) {
	if playouts < 1 {
		return nil, errors.New("mcts: rollout evaluator: playouts < 1")
	}
	if rng == nil {
		return nil, errors.New("mcts: rollout evaluator: nil rng")
	}
	return &RolloutEvaluator{playouts: playouts, rng: rng}, nil
}

// Evaluate implements Evaluator.
func (e *RolloutEvaluator) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	for i, s := range states {
		uniformPolicy(s, policies[i])
		p := s.CurrentPlayer()
		var sum float64
		for range e.playouts {
			e.scratch = copyState(e.scratch, s)
			r := rollout(e.scratch, e.rng, &e.buf)
			sum += r[p]
		}
		values[i] = float32(sum / float64(e.playouts))
	}
	return nil
}

// RandomMover is an optional interface a State may implement to choose its
// own moves in random rollouts: RandomMove returns a legal action of a
// non-terminal state. Go needs it: uniformly random play fills its own eyes
// and passes at random, so its results say little about the position, while
// gogame's RandomMove never fills a single-point eye and passes only when
// nothing else is left.
type RandomMover interface {
	RandomMove(rng *rand.Rand) int
}

// rollout plays random moves on s until the game ends and returns the
// result, or a draw if the game outlasts its MaxGameLength. The moves are
// uniform over the legal actions unless s is a RandomMover; chance outcomes
// are drawn with their probabilities. *buf is reused
// for the legal actions.
func rollout(s games.State, rng *rand.Rand, buf *[]int) [2]float64 {
	if rm, ok := s.(RandomMover); ok {
		for limit := s.Game().MaxGameLength(); s.MoveNumber() <= limit; {
			if s.IsTerminal() {
				return s.Returns()
			}
			s.ApplyAction(rm.RandomMove(rng))
		}
		return [2]float64{}
	}
	for limit := s.Game().MaxGameLength(); s.MoveNumber() <= limit; {
		if games.IsChanceNode(s) {
			a, _ := games.SampleChance(s, rng) // the dice, by their probabilities
			s.ApplyAction(a)
			continue
		}
		legal := s.LegalActions((*buf)[:0])
		*buf = legal
		if len(legal) == 0 {
			return s.Returns()
		}
		s.ApplyAction(legal[rng.IntN(len(legal))])
	}
	return [2]float64{}
}
