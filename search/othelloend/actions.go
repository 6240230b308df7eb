package othelloend

import (
	"math/bits"

	"tabula/games/othello"
)

// ActionScore is the exact result of one move in a game's action numbering:
// the final disc margin for the side to move after playing Action, under
// perfect play by both sides.
type ActionScore struct {
	Action int
	Score  int
}

// ActionScores returns MoveScores of st with each move as st's game action
// (a pass as the game's pass action), best first. s must be of st's board
// size.
func (s *Solver) ActionScores(st *othello.State) []ActionScore {
	g := st.Game().(*othello.Game)
	p, o := st.Boards()
	ms := s.MoveScores(p, o)
	out := make([]ActionScore, len(ms))
	for i, m := range ms {
		a := g.Pass()
		if m.Square != Pass {
			a = g.Action(m.Square)
		}
		out[i] = ActionScore{Action: a, Score: m.Score}
	}
	return out
}

// Empties returns the number of empty squares of st.
func Empties(st *othello.State) int {
	g := st.Game().(*othello.Game)
	p, o := st.Boards()
	return g.Size()*g.Size() - bits.OnesCount64(p|o)
}
