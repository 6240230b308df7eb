// Package sgf writes and reads game records in the Smart Game Format
// (SGF FF[4], https://www.red-bean.com/sgf/) for Go (GM[1]) and Othello
// (GM[2]).
//
// A record is the main line of one game: the root node's game information
// (SZ, KM, RU, RE, PB, PW, DT, ...) and one node per move. Points are two
// letters, column then row, both counted from "a" at the top left, which is
// how both games number their actions (row*size + col from the top), so an
// action maps to a point directly.
//
// Passes are an empty move value, B[] or W[], in both games. In Go the
// reader also accepts the older "tt" for a pass on boards up to 19x19. In
// Othello a pass is a real move of the game (the player with no legal move
// passes); the writer writes every pass as B[] or W[], and the reader also
// accepts files that leave forced passes out (two moves in a row by one
// colour where the other had no legal move) and inserts them.
//
// The search's value of a move, where the player reported one, is written
// as the move node's comment "value: V" (V the player's value of the
// position for itself, before the move, in the player's own units: a PUCT
// player's root value in [-1, 1]); Read gives it back as Move.Value.
//
// The reader is strict: every move is checked against the rules, properties
// are checked for their syntax and place (setup stones, a non-square board,
// two moves in one node are errors naming the property and where it was),
// and unknown properties are skipped, as the format asks.
package sgf

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"tabula/games"
	"tabula/games/gogame"
	"tabula/games/othello"
)

// Game type numbers of the SGF GM property.
const (
	GMGo      = 1
	GMOthello = 2
)

// Move is one move of a record.
type Move struct {
	Color  int // 0 black, 1 white
	Action int // the game's action; its pass action for a pass
	// Value is the mover's value of the position before the move, when
	// HasValue; see the package comment.
	Value    float64
	HasValue bool
	// Comment is the node's other comment text, if any.
	Comment string
}

// Record is one game.
type Record struct {
	// Game is a *gogame.Game or an *othello.Game.
	Game         games.Game
	Black, White string // PB, PW
	Result       string // RE: "B+3.5", "W+R", "B+F", "0" (draw), "Void", "?"
	Date         string // DT, e.g. "2024-05-01"
	Rules        string // RU (Go), e.g. "Chinese" or "Tromp-Taylor"
	Event        string // EV
	Comment      string // the root's C
	// Application is AP: "name:version" of the program that wrote the file.
	Application string
	// SetupBlack and SetupWhite are Go stones on the board before the
	// first move (AB and AW: handicap stones, or a position written by
	// another program), and SetupToMove the player to move there (PL; 0
	// black, 1 white). Empty for a game from the empty board.
	SetupBlack, SetupWhite []int
	SetupToMove            int
	Moves                  []Move
}

// Start returns the position before the first move: the game's initial
// state, or the Go position set up by SetupBlack, SetupWhite and
// SetupToMove.
func (r *Record) Start() (games.State, error) {
	if _, _, err := gameType(r.Game); err != nil {
		return nil, err
	}
	if len(r.SetupBlack) == 0 && len(r.SetupWhite) == 0 && r.SetupToMove == 0 {
		return r.Game.NewInitialState(), nil
	}
	g, ok := r.Game.(*gogame.Game)
	if !ok {
		return nil, fmt.Errorf("sgf: a set-up position is supported in go only")
	}
	n := g.Size()
	board := []byte(strings.Repeat(".", n*n))
	for _, pts := range []struct {
		list []int
		c    byte
	}{{r.SetupBlack, 'X'}, {r.SetupWhite, 'O'}} {
		for _, a := range pts.list {
			if a < 0 || a >= n*n {
				return nil, fmt.Errorf("sgf: setup point %d is off the board", a)
			}
			if board[a] != '.' {
				return nil, fmt.Errorf("sgf: setup point %s is set twice", g.FormatAction(a))
			}
			board[a] = pts.c
		}
	}
	var text strings.Builder
	for row := 0; row < n; row++ {
		text.Write(board[row*n : row*n+n])
		text.WriteByte('\n')
	}
	s, err := gogame.FromText(g, text.String(), r.SetupToMove)
	if err != nil {
		return nil, fmt.Errorf("sgf: setup: %w", err)
	}
	return s, nil
}

// Actions returns the record's actions in order.
func (r *Record) Actions() []int {
	out := make([]int, len(r.Moves))
	for i, m := range r.Moves {
		out[i] = m.Action
	}
	return out
}

// Replay plays the record's moves from Start, each checked against the
// rules, and returns the final state.
func (r *Record) Replay() (games.State, error) {
	s, err := r.Start()
	if err != nil {
		return nil, err
	}
	for i, m := range r.Moves {
		if s.IsTerminal() {
			return nil, fmt.Errorf("sgf: move %d: the game is already over", i+1)
		}
		if m.Color != s.CurrentPlayer() {
			return nil, fmt.Errorf("sgf: move %d: %s to move, not %s", i+1, colorName(s.CurrentPlayer()), colorName(m.Color))
		}
		if err := games.Play(s, m.Action); err != nil {
			return nil, fmt.Errorf("sgf: move %d: %w", i+1, err)
		}
	}
	return s, nil
}

// FromActions makes a record of game g from its actions, which must be legal
// from the initial state; values, if not nil, holds each move's value (NaN
// where unknown) and may be shorter than actions.
func FromActions(g games.Game, actions []int, values []float64) (*Record, error) {
	if _, _, err := gameType(g); err != nil {
		return nil, err
	}
	r := &Record{Game: g, Moves: make([]Move, len(actions))}
	s := g.NewInitialState()
	for i, a := range actions {
		if s.IsTerminal() {
			return nil, fmt.Errorf("sgf: move %d: the game is already over", i+1)
		}
		r.Moves[i] = Move{Color: s.CurrentPlayer(), Action: a}
		if i < len(values) && !math.IsNaN(values[i]) {
			r.Moves[i].Value, r.Moves[i].HasValue = values[i], true
		}
		if err := games.Play(s, a); err != nil {
			return nil, fmt.Errorf("sgf: move %d: %w", i+1, err)
		}
	}
	if s.IsTerminal() {
		r.Result = ResultOf(s)
	}
	return r, nil
}

// ResultOf returns the RE value of a finished Go or Othello game: "B+n" or
// "W+n" with n the winning margin (Go: the area score with komi; Othello:
// the disc difference), "0" for a draw, "?" for a game not over or of
// another kind.
func ResultOf(s games.State) string {
	if !s.IsTerminal() {
		return "?"
	}
	var score float64
	switch st := s.(type) {
	case *gogame.State:
		score = st.Score()
	case *othello.State:
		score = float64(st.DiscDifference())
	default:
		return "?"
	}
	switch {
	case score > 0:
		return "B+" + strconv.FormatFloat(score, 'f', -1, 64)
	case score < 0:
		return "W+" + strconv.FormatFloat(-score, 'f', -1, 64)
	}
	return "0"
}

// gameType returns GM and the board size of g.
func gameType(g games.Game) (gm, size int, err error) {
	switch gg := g.(type) {
	case *gogame.Game:
		return GMGo, gg.Size(), nil
	case *othello.Game:
		return GMOthello, gg.Size(), nil
	case nil:
		return 0, 0, fmt.Errorf("sgf: no game")
	}
	return 0, 0, fmt.Errorf("sgf: game %s has no SGF form here: SGF is written for go and othello", g.Name())
}

// Supports reports whether g's records can be written as SGF.
func Supports(g games.Game) bool {
	_, _, err := gameType(g)
	return err == nil
}

func colorName(c int) string {
	if c == 0 {
		return "black"
	}
	return "white"
}

// pass returns g's pass action.
func pass(g games.Game) int {
	switch gg := g.(type) {
	case *gogame.Game:
		return gg.Pass()
	case *othello.Game:
		return gg.Pass()
	}
	return -1
}

// point writes action a of a size x size board as an SGF point.
func point(a, size int) string {
	return string([]byte{byte('a' + a%size), byte('a' + a/size)})
}

// formatValue writes a move's value for its comment.
func formatValue(v float64) string {
	return "value: " + strconv.FormatFloat(v, 'f', 4, 64)
}

// splitValue reads a comment written by formatValue, possibly followed by a
// newline and more text.
func splitValue(c string) (v float64, rest string, ok bool) {
	first, rest, _ := strings.Cut(c, "\n")
	num, found := strings.CutPrefix(first, "value: ")
	if !found {
		return 0, c, false
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, c, false
	}
	return v, rest, true
}
