package mcts

import (
	"fmt"

	"tabula/games"
)

// Prover proves positions exactly where that is cheap: an Othello or Connect
// Four endgame solver within a few empty squares of the end (package
// search/endgame).
// With Config.Endgame above zero, the search asks it about the children of
// each node it expands: of the root at once (the root is expanded by the
// network, so that a move can be chosen), of other nodes when a descent
// passes through them a second time, before any child is reached; a proven
// child becomes a solved node, backed up at its exact value by the
// MCTS-solver and never evaluated by the network. A
// Prover is used by one goroutine: one Search, or the games of one SelfPlay
// in turn (they share its table: a solver's transposition table per game in
// flight would not stay in cache).
type Prover interface {
	// Prove returns the game-theoretic value of s for player 0 (1: a win,
	// 0: a draw, -1: a loss) and true, or false when s is beyond its reach.
	Prove(s games.State) (value float32, ok bool)
	// Reaches reports whether a child of s may be within reach. Where it
	// is false the search does not look at s's children for the prover:
	// far from the end that would apply every move of every expanded node
	// for nothing.
	Reaches(s games.State) bool
}

// ProverMaker makes the Prover of one search. Config holds one (not a
// function, so that configurations stay comparable).
type ProverMaker interface {
	NewProver() Prover
}

// newProver returns the prover of one searcher under cfg: nil when
// Endgame is off, an error when it is on with no Prover to make one.
func newProver(cfg *Config) (Prover, error) {
	if cfg.Endgame == 0 {
		return nil, nil
	}
	if cfg.Prover == nil {
		return nil, fmt.Errorf("mcts: endgame = %d but no exact prover was set (search/endgame.Configure; Othello and Connect Four have one)", cfg.Endgame)
	}
	p := cfg.Prover.NewProver()
	if p == nil {
		return nil, fmt.Errorf("mcts: endgame = %d: the prover maker returned none", cfg.Endgame)
	}
	return p, nil
}
