package gtp

import (
	"errors"
	"fmt"
	"slices"

	"tabula/games"
)

// ErrGameOver is returned for a move asked or given when the game cannot go
// on (Othello with no moves left, or Go at its length cap).
var ErrGameOver = errors.New("the game is over")

// Position is a game as a GTP controller sees it: moves of either colour in
// any order, not only alternating ones, and play that goes on after two
// passes, as GNU Go allows. It maps them onto the game's strictly
// alternating rules:
//   - a move by the colour not to move is preceded by a pass of the other
//     colour (in Othello only where that pass is the other colour's only
//     legal move);
//   - a move after two passes in Go removes the two passes (they change
//     nothing on the board, and the same colour is to move again), so the
//     game continues with its superko history intact.
//
// Every move is checked against the rules (games.Play).
type Position struct {
	d     *Dialect
	moves []Move // as given, for undo
	eff   []int  // the actions the state was built from
	state games.State
}

// Move is one move as a controller gave it.
type Move struct {
	Color  int // 0 black, 1 white
	Action int
}

// NewPosition returns the empty board of d's game.
func NewPosition(d *Dialect) *Position {
	return &Position{d: d, state: d.Game().NewInitialState()}
}

// State returns the current state; the caller must not change it.
func (p *Position) State() games.State { return p.state }

// Dialect returns the position's dialect.
func (p *Position) Dialect() *Dialect { return p.d }

// Moves returns the moves as given, oldest first; the slice is the
// position's.
func (p *Position) Moves() []Move { return p.moves }

// Actions returns the actions the state was built from, from the initial
// state (passes inserted or removed as described at Position); the slice
// is the position's.
func (p *Position) Actions() []int { return p.eff }

// Clear empties the board.
func (p *Position) Clear() {
	p.moves, p.eff = p.moves[:0], p.eff[:0]
	p.state = p.d.Game().NewInitialState()
}

// rebuild replays eff from the initial state.
func (p *Position) rebuild() {
	s := p.d.Game().NewInitialState()
	for _, a := range p.eff {
		s.ApplyAction(a)
	}
	p.state = s
}

// endedByPasses reports whether the game is over after two passes in Go.
func (p *Position) endedByPasses() bool {
	n := len(p.eff)
	pass := p.d.Pass()
	return p.d.IsGo() && p.state.IsTerminal() && n >= 2 && p.eff[n-1] == pass && p.eff[n-2] == pass &&
		n < p.d.Game().MaxGameLength()
}

// ready makes color the player to move, inserting or removing passes as
// described at Position.
func (p *Position) ready(color int) error {
	for range 3 {
		if p.state.IsTerminal() {
			if !p.endedByPasses() {
				return ErrGameOver
			}
			p.eff = p.eff[:len(p.eff)-2]
			p.rebuild()
			continue
		}
		if p.state.CurrentPlayer() == color {
			return nil
		}
		pass := p.d.Pass()
		if !p.state.IsLegal(pass) {
			return fmt.Errorf("it is %s's turn", colorWord(p.state.CurrentPlayer()))
		}
		p.state.ApplyAction(pass)
		p.eff = append(p.eff, pass)
	}
	if p.state.IsTerminal() || p.state.CurrentPlayer() != color {
		return fmt.Errorf("cannot give %s the move", colorWord(color))
	}
	return nil
}

// Ready makes color the player to move (see Position) and returns the
// state. On an error the position is unchanged.
func (p *Position) Ready(color int) (games.State, error) {
	old := slices.Clone(p.eff)
	if err := p.ready(color); err != nil {
		p.restore(old)
		return nil, err
	}
	return p.state, nil
}

// restore sets the actions back to old and rebuilds the state.
func (p *Position) restore(old []int) {
	p.eff = append(p.eff[:0], old...)
	p.rebuild()
}

// Play plays action a for color, checked against the rules. On an error the
// position is unchanged; an illegal move's error wraps games.ErrIllegalMove.
func (p *Position) Play(color, a int) error {
	old := slices.Clone(p.eff)
	if err := p.ready(color); err != nil {
		p.restore(old)
		return fmt.Errorf("%w: %w", games.ErrIllegalMove, err)
	}
	if err := games.Play(p.state, a); err != nil {
		p.restore(old)
		return err
	}
	p.eff = append(p.eff, a)
	p.moves = append(p.moves, Move{Color: color, Action: a})
	return nil
}

// Undo takes back the last move given.
func (p *Position) Undo() error {
	if len(p.moves) == 0 {
		return errors.New("no move to undo")
	}
	moves := slices.Clone(p.moves[:len(p.moves)-1])
	p.Clear()
	for _, m := range moves {
		if err := p.Play(m.Color, m.Action); err != nil {
			return fmt.Errorf("replaying after undo: %w", err) // unreachable: these moves were legal
		}
	}
	return nil
}

// Replay clears the board and plays the given moves in d's game, keeping
// the longest prefix that is legal there; it returns how many were kept.
// Moves are carried over by their vertex text, so they keep their place on
// the board when its size changes.
func (p *Position) Replay(d *Dialect, moves []Move) int {
	old := p.d
	p.d = d
	p.Clear()
	for i, m := range moves {
		a, err := d.ParseMove(old.FormatMove(m.Action))
		if err != nil || p.Play(m.Color, a) != nil {
			return i
		}
	}
	return len(moves)
}

func colorWord(c int) string {
	if c == 0 {
		return "black"
	}
	return "white"
}
