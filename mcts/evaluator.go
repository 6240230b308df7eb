// Package mcts implements Monte-Carlo tree search in the two forms the
// textbook gives: UCT guided by random rollouts, and AlphaZero's PUCT guided
// by a policy/value evaluator. PUCT search proves results where the tree
// reaches the end of the game (the MCTS-solver, Config.Solver): proven wins
// are played, proven losses avoided, and a search ends once its root is
// solved.
package mcts

import "tabula/games"

// Evaluator gives the prior policy and the value of positions, a whole batch
// at a time. The network (package nn) implements it; tests use a uniform or
// rollout evaluator.
type Evaluator interface {
	// Evaluate writes for each non-terminal states[i] a probability
	// distribution over actions into policies[i] (length NumActions, zero on
	// illegal actions, summing to one over the legal ones) and the expected
	// result for the player to move, in [-1, 1], into values[i].
	Evaluate(states []games.State, policies [][]float32, values []float32) error
}
