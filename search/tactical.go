package search

// Tactical is an optional capability of a State for games where moves
// capture material, such as chess. Searcher uses it for quiescence search,
// capture ordering (MVV-LVA and static exchange evaluation), check
// extensions, futility pruning and the null-move zugzwang guard; games
// without it get none of these. Actions passed to its methods are legal in
// the state.
type Tactical interface {
	// InCheck reports whether the player to move is in check.
	InCheck() bool
	// NoisyActions appends the legal captures and promotions to buf[:0].
	NoisyActions(buf []int) []int
	// IsNoisy reports whether action a captures or promotes.
	IsNoisy(a int) bool
	// MVVLVA scores action a for ordering: 0 for a quiet move, more for
	// a more valuable victim and then a less valuable attacker.
	MVVLVA(a int) int
	// SEE returns the static exchange evaluation of action a in
	// centipawns: what the mover wins on the destination square when both
	// sides recapture there with their least valuable piece.
	SEE(a int) int
	// GivesCheck reports whether action a puts the opponent in check.
	GivesCheck(a int) bool
	// HasNonPawnMaterial reports whether the player to move has material
	// other than king and pawns.
	HasNonPawnMaterial() bool
	// Centipawn returns the value of one centipawn in the units of the
	// game's games.Heuristic.
	Centipawn() float64
}

// NullMover is an optional capability of a State that can pass its move
// (a null move), for null-move pruning. Searcher calls it only on an
// ongoing state whose player is not in check; the player to move must
// change.
type NullMover interface {
	ApplyNullMove()
}

// Repeater is an optional capability of a State in a game drawn by
// repetition: Repetitions reports how many times the current position
// occurred before in the game (chess counts since the last irreversible
// move). With Config.RepetitionDraws the search scores a position reached
// inside the tree that occurred before as a draw, without waiting for the
// rule's last repetition.
type Repeater interface {
	Repetitions() int
}
