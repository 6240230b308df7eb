package mcts

import (
	"fmt"

	"tabula/games"
)

// Prover proves positions exactly where that is cheap: an Othello endgame
// solver within a few empty squares of the end (package search/endgame).
// With Config.Endgame above zero, the search asks it about every new leaf
// (never the root, which must be expanded to choose a move); a proven leaf
// becomes a solved node, backed up at its exact value by the MCTS-solver
// and never evaluated by the network. One search uses one Prover at a time.
type Prover interface {
	// Prove returns the game-theoretic value of s for player 0 (1: a win,
	// 0: a draw, -1: a loss) and true, or false when s is beyond its reach.
	Prove(s games.State) (value float32, ok bool)
}

// ProverMaker makes the Prover of one search. Config holds one (not a
// function, so that configurations stay comparable).
type ProverMaker interface {
	NewProver() Prover
}

// newProver returns the prover of one searcher under cfg: nil when
// Endgame is off, an error when it is on with no Prover to make one.
func newProver(cfg *Config, g games.Game) (Prover, error) {
	if cfg.Endgame == 0 {
		return nil, nil
	}
	if cfg.Prover == nil {
		name := "?"
		if g != nil {
			name = g.Name()
		}
		return nil, fmt.Errorf("mcts: endgame = %d but no exact prover for game %s was set (only Othello has one: search/endgame)", cfg.Endgame, name)
	}
	p := cfg.Prover.NewProver()
	if p == nil {
		return nil, fmt.Errorf("mcts: endgame = %d: the prover maker returned none", cfg.Endgame)
	}
	return p, nil
}

// prove asks the prover about leaf (position st, not the root, neither
// terminal nor a chance node) and, when it is proven, makes it a solved
// node and backs its value up along path. It reports whether it did.
func (sr *searcher) prove(path []step, leaf int32, st games.State) bool {
	if sr.prover == nil || leaf == 0 {
		return false
	}
	v, ok := sr.prover.Prove(st)
	if !ok {
		return false
	}
	nd := &sr.t.nodes[leaf]
	nd.player = int8(st.CurrentPlayer())
	nd.solved, nd.sv = true, v
	sr.t.solvedBackup(path, leaf)
	sr.t.propagate(path)
	return true
}
