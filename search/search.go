// Package search holds the classical players from the textbook: depth-limited
// minimax and alpha-beta over games.State, scored at the horizon by the game's
// games.Heuristic, and a Searcher that adds iterative deepening under a depth,
// node or time budget, a transposition table, move ordering (hash move,
// killer moves, history heuristic) and principal-variation search.
//
// Values are from the point of view of the player to move. A terminal state
// scores its true result: a win is worth 2 - n/10^6 where n is the terminal
// state's MoveNumber (so faster wins score higher and slower losses lose less),
// a loss the negative, a draw 0. The heuristic lies strictly inside (-1, 1),
// so every proven result orders beyond every heuristic score. Because a win's
// value depends on the absolute move number, not on the distance from the
// root, transposition-table entries need no adjustment. (Where equal hashes
// can occur at different move numbers, e.g. Othello positions reached with
// and without two separate passes, a table entry may carry a win value a few
// millionths off: it can change only which of two wins is played.)
//
// Searcher's table cuts off only on entries searched to exactly the depth
// asked for, so its value at a fixed depth always equals plain alpha-beta's
// and minimax's (tests check this with every feature on and off).
//
// Games where one player may move twice in a row are handled: a child's value
// is negated only when the player to move changes.
package search

import (
	"fmt"
	"math"

	"tabula/games"
)

// WinValue is the value of a win at move number 0; a win at move n is worth
// WinValue - n*MoveDecay.
const (
	WinValue  = 2.0
	MoveDecay = 1e-6
)

// IsProven reports whether a value is a proven win or loss rather than a
// heuristic estimate.
func IsProven(v float64) bool { return v > 1 || v < -1 }

// terminalValue scores terminal state t for player me.
func terminalValue(t games.State, me int) float64 {
	r := t.Returns()[me]
	switch {
	case r > 0:
		return WinValue - float64(t.MoveNumber())*MoveDecay
	case r < 0:
		return -WinValue + float64(t.MoveNumber())*MoveDecay
	}
	return 0
}

// heuristicOf returns g's heuristic or an error naming the game.
func heuristicOf(g games.Game) (games.Heuristic, error) {
	h, ok := g.(games.Heuristic)
	if !ok {
		return nil, fmt.Errorf("search: game %s has no heuristic evaluation (games.Heuristic)", g.Name())
	}
	return h, nil
}

// Minimax returns the depth-limited minimax value of s for the player to move
// and the number of nodes visited (s itself included). It is the plain
// reference implementation, clear rather than fast: it clones a state per
// node.
func Minimax(s games.State, depth int) (value float64, nodes int64, err error) {
	return negamax(s, depth, "minimax", false)
}

// AlphaBeta returns the same value as Minimax by fail-soft negamax alpha-beta
// over the moves in their natural order, without a transposition table, and
// the number of nodes visited. It is the plain reference that Searcher is
// tested against.
func AlphaBeta(s games.State, depth int) (value float64, nodes int64, err error) {
	return negamax(s, depth, "alpha-beta", true)
}

// negamax is Minimax, and with prune AlphaBeta: a fail-soft negamax over the
// moves in their natural order that, without prune, never cuts off and so
// visits every node. name names the search in errors.
func negamax(s games.State, depth int, name string, prune bool) (value float64, nodes int64, err error) {
	if err := games.RequireDeterministic(s.Game(), "search ("+name+")"); err != nil {
		return 0, 0, err
	}
	h, err := heuristicOf(s.Game())
	if err != nil {
		return 0, 0, err
	}
	if s.IsTerminal() {
		return 0, 0, fmt.Errorf("search: %s of a terminal state", name)
	}
	var ab func(s games.State, depth int, alpha, beta float64) float64
	ab = func(s games.State, depth int, alpha, beta float64) float64 {
		nodes++
		if depth <= 0 {
			return h.Evaluate(s)
		}
		me := s.CurrentPlayer()
		best := math.Inf(-1)
		for _, a := range s.LegalActions(nil) {
			c := s.Clone()
			c.ApplyAction(a)
			var v float64
			switch {
			case c.IsTerminal():
				nodes++
				v = terminalValue(c, me)
			case c.CurrentPlayer() == me:
				v = ab(c, depth-1, alpha, beta)
			default:
				v = -ab(c, depth-1, -beta, -alpha)
			}
			if v > best {
				best = v
			}
			if best > alpha {
				alpha = best
			}
			if prune && alpha >= beta {
				break
			}
		}
		return best
	}
	return ab(s, depth, math.Inf(-1), math.Inf(1)), nodes, nil
}
