package web

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"tabula/games"
	"tabula/games/backgammon"
)

// BackgammonView is a backgammon position as the page draws it.
type BackgammonView struct {
	// Points[k-1] is point k counted from the first player's side: its
	// checkers there as a positive count, the second player's as a
	// negative one. (The page turns the board to the person's side.)
	Points [backgammon.Points]int `json:"points"`
	// Bar and Off count the first and the second player's checkers on the
	// bar and borne off.
	Bar [2]int `json:"bar"`
	Off [2]int `json:"off"`
	// Dice are the dice of the player to move, higher first (empty at the
	// end of the game).
	Dice []int `json:"dice"`
	// Steps[i] lists the checker moves of the legal action Legal[i] in the
	// order played, each [from, to] in the mover's own point numbers (25
	// the bar, 0 off); the pass of a player who cannot move has none.
	Steps [][][2]int `json:"steps"`
}

// Roll plays the chance outcomes of s (a backgammon roll) while s is at a
// chance node, drawing each from its distribution with rng, and returns moves
// with them appended. In the games without chance it returns moves as they
// are.
func Roll(s games.State, moves []int, rng *rand.Rand) []int {
	cs, ok := s.(games.ChanceState)
	if !ok {
		return moves
	}
	var buf []games.ChanceOutcome
	for !s.IsTerminal() && cs.IsChanceNode() {
		buf = cs.ChanceOutcomes(buf)
		a := drawOutcome(buf, rng)
		s.ApplyAction(a)
		moves = append(moves, a)
	}
	return moves
}

// RollAfter rolls, in a game of chance (backgammon), the dice of the player
// to move after the engine's move in rep, so that the page shows them with
// the position.
func RollAfter(g games.Game, l Layout, rep *Reply, rng *rand.Rand) error {
	if _, ok := g.NewInitialState().(games.ChanceState); !ok || rep.Position.Over {
		return nil
	}
	st, err := games.Replay(g, rep.Position.Moves)
	if err != nil {
		return fmt.Errorf("replaying the engine's move: %w", err)
	}
	moves := Roll(st, rep.Position.Moves, rng)
	rep.Position = Describe(g, l, st, moves)
	return nil
}

// describeBackgammon fills p's backgammon view of s and its move list in
// gnubg's notation (each roll followed by the turn played with it).
func describeBackgammon(g games.Game, s *backgammon.State, p *Position) {
	pos := s.Position()
	v := &BackgammonView{Dice: []int{}, Steps: make([][][2]int, len(p.Legal))}
	for k := 1; k <= backgammon.Points; k++ {
		v.Points[k-1] = int(pos.Board[0][k-1]) - int(pos.Board[1][backgammon.Points-k])
	}
	for c := 0; c < 2; c++ {
		v.Bar[c], v.Off[c] = int(pos.Bar[c]), int(pos.Off[c])
	}
	if !s.IsTerminal() && !s.IsChanceNode() {
		hi, lo := s.Dice()
		v.Dice = []int{hi, lo}
		for i, a := range p.Legal {
			v.Steps[i] = checkerSteps(a, hi, lo)
			p.LegalText[i] = s.FormatMove(a)
		}
	}
	p.Backgammon = v
	p.Cells = []int8{}
	// The move list: replayed, each action in the notation of its state.
	st := g.NewInitialState()
	var b strings.Builder
	for i, a := range p.Moves {
		if i > 0 {
			b.WriteByte(' ')
		}
		if cs, ok := st.(games.ChanceState); ok && cs.IsChanceNode() {
			b.WriteString(games.FormatMove(st, a) + ":")
		} else {
			b.WriteString(games.FormatMove(st, a))
			if i+1 < len(p.Moves) {
				b.WriteByte(';')
			}
		}
		st.ApplyAction(a)
	}
	p.Notation = b.String()
}

// checkerSteps returns the checker moves of decision a with the dice hi, lo
// (see the backgammon package's action encoding), as [from, to] in the
// mover's point numbers: 25 the bar, 0 off.
func checkerSteps(a, hi, lo int) [][2]int {
	x, y, order := a%676/26, a%26, a/676
	type sd struct{ src, d int }
	seq := []sd{{x, hi}, {y, lo}}
	if order == 1 && hi != lo {
		seq[0], seq[1] = seq[1], seq[0]
	}
	out := [][2]int{}
	for _, m := range seq {
		if m.src == backgammon.NoMove {
			continue
		}
		from := m.src + 1 // the bar (source 24) is 25
		out = append(out, [2]int{from, max(from-m.d, 0)})
	}
	return out
}
