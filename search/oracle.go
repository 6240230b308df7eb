package search

import "tabula/games"

// Oracle is an optional source of exact values, such as an endgame
// database. A Searcher given one asks it at every node below the root,
// before anything else, and takes a known value as the node's exact value
// without searching further.
type Oracle interface {
	// Probe returns the result of st for the player to move (outcome +1
	// win, 0 draw, -1 loss) and the plies to the end of the game under
	// best play, and whether it knows them.
	Probe(st games.State) (outcome, plies int, ok bool)
}

// SetOracle makes s ask o at every node below the root; nil removes it.
// Call Reset afterwards if s has searched before, so that its table holds
// no values found without o.
// The Lazy SMP helpers ask it too, so o must be safe for concurrent use
// when Threads > 1.
func (s *Searcher) SetOracle(o Oracle) {
	s.oracle = o
	for _, h := range s.helpers {
		h.oracle = o
	}
}

// oracleValue scores a known result on the scale of terminal values: the
// game ends at move number st.MoveNumber()+plies.
func oracleValue(st games.State, outcome, plies int) float64 {
	end := float64(st.MoveNumber()+plies) * MoveDecay
	switch {
	case outcome > 0:
		return WinValue - end
	case outcome < 0:
		return -WinValue + end
	}
	return 0
}
