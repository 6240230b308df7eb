package othello

import "tabula/games"

// CopyFrom makes s an independent copy of src without allocating, so that
// *State satisfies mcts.Copier. src must be an Othello state (a *State), as
// mcts.Copier's contract guarantees; anything else is a programming error
// and panics. The copy takes src's game, board size included.
func (s *State) CopyFrom(src games.State) {
	*s = *src.(*State)
}
