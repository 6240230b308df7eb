package games

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrIllegalMove is wrapped by every error Play returns for an illegal move.
var ErrIllegalMove = errors.New("illegal move")

// Play is the checked path: it applies action a to s if it is legal and
// returns an error naming the move otherwise. Every boundary that a person or
// a file reaches (CLI, GTP, web, replay files) uses Play, never ApplyAction.
func Play(s State, a int) error {
	g := s.Game()
	if s.IsTerminal() {
		return fmt.Errorf("%w: %s: the game is over", ErrIllegalMove, describe(g, a))
	}
	if a < 0 || a >= g.NumActions() {
		return fmt.Errorf("%w: action %d is outside [0, %d)", ErrIllegalMove, a, g.NumActions())
	}
	if !s.IsLegal(a) {
		return fmt.Errorf("%w: %s is not legal here; %s", ErrIllegalMove, describe(g, a), LegalMoves(s, maxListedMoves))
	}
	s.ApplyAction(a)
	return nil
}

// Replay plays actions from the initial state of g through the checked path.
// The error names the first illegal move and its index.
func Replay(g Game, actions []int) (State, error) {
	s := g.NewInitialState()
	for i, a := range actions {
		if err := Play(s, a); err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	return s, nil
}

// ParseAndReplay reads a move sequence in g's notation and replays it through
// the checked path.
func ParseAndReplay(g Game, text string) (State, []int, error) {
	n, ok := g.(Notation)
	if !ok {
		return nil, nil, fmt.Errorf("game %s has no move notation", g.Name())
	}
	actions, err := n.ParseActions(text)
	if err != nil {
		return nil, nil, fmt.Errorf("game %s: %w", g.Name(), err)
	}
	s, err := Replay(g, actions)
	if err != nil {
		return nil, nil, fmt.Errorf("game %s: %w", g.Name(), err)
	}
	return s, actions, nil
}

// describe names action a in g's notation where it has one.
func describe(g Game, a int) string {
	if n, ok := g.(Notation); ok && a >= 0 && a < g.NumActions() {
		return n.FormatAction(a)
	}
	return fmt.Sprintf("action %d", a)
}

// maxListedMoves is how many legal moves an illegal move's error lists.
const maxListedMoves = 20

// LegalMoves lists the legal moves of s in its notation (FormatMove) and
// in action order, for a person who tried an illegal one: "legal moves: c4
// d3 e6 f5", at most limit of them and then how many more, or "no legal
// moves" when the game is over.
func LegalMoves(s State, limit int) string {
	if s.IsTerminal() {
		return "no legal moves: the game is over"
	}
	legal := slices.Clone(s.LegalActions(nil))
	slices.Sort(legal)
	names := make([]string, 0, min(len(legal), limit))
	for _, a := range legal[:min(len(legal), limit)] {
		names = append(names, FormatMove(s, a))
	}
	text := "legal moves: " + strings.Join(names, " ")
	if len(legal) > limit {
		text += fmt.Sprintf(" and %d more", len(legal)-limit)
	}
	return text
}
