package connect4

import "tabula/games"

// CopyFrom makes s an independent copy of src without allocating, so that
// *State satisfies mcts.Copier. src must be a Connect Four state (a *State),
// as mcts.Copier's contract guarantees; anything else is a programming error
// and panics.
func (s *State) CopyFrom(src games.State) {
	*s = *src.(*State)
}
