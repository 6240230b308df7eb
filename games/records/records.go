// Package records writes a finished game in its game's standard record
// format: SGF for Go and Othello (games/sgf), gnubg's .mat match files for
// backgammon (games/backgammon), Pons move strings for Connect Four
// (games/connect4). The arena, self-play records and the play command
// share it.
package records

import (
	"bytes"
	"fmt"
	"io"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/games/connect4"
	"tabula/games/gogame"
	"tabula/games/sgf"
)

// Game is one game to write.
type Game struct {
	// Players names the first mover and the other player.
	Players [2]string
	// Actions are the game's actions from the initial state (chance
	// outcomes included).
	Actions []int
	// Values holds each action's value for the mover (NaN where there is
	// none); it may be nil or shorter than Actions. Only SGF keeps them.
	Values []float64
	// Event and Date (YYYY-MM-DD) go to the record's header where the
	// format has one; Comment to SGF's root comment.
	Event, Date, Comment string
}

// Format returns the name of g's record format and its file name
// extension ("sgf", ".sgf"; "mat", ".mat"; "pons", ".txt"), or "", "" when
// g has none.
func Format(g games.Game) (name, ext string) {
	switch g.(type) {
	case *backgammon.Game:
		return "mat", ".mat"
	case connect4.Game:
		return "pons", ".txt"
	}
	if sgf.Supports(g) {
		return "sgf", ".sgf"
	}
	return "", ""
}

// Formats lists the games with a record format, for error messages.
const Formats = "go and othello (SGF), backgammon (gnubg .mat), connect4 (Pons move strings)"

// Write writes rec of game g in g's format: an SGF file, a .mat file of
// one game (a money session, "0 point match", for scoring=money; a 1 point
// match otherwise), or one Pons line (a file of them holds many games).
func Write(w io.Writer, g games.Game, rec Game) error {
	switch name, _ := Format(g); name {
	case "pons":
		return connect4.WritePons(w, rec.Actions)
	case "mat":
		bg := g.(*backgammon.Game)
		m := &backgammon.Mat{Event: rec.Event, Games: []backgammon.MatGame{{Players: rec.Players, Actions: rec.Actions}}}
		if rec.Date != "" {
			m.Date = dotted(rec.Date)
		}
		if !bg.Money() {
			m.Length = 1
		}
		return backgammon.WriteMat(w, bg, m)
	case "sgf":
		r, err := sgf.FromActions(g, rec.Actions, rec.Values)
		if err != nil {
			return err
		}
		r.Black, r.White = rec.Players[0], rec.Players[1]
		r.Date, r.Event, r.Comment = rec.Date, rec.Event, rec.Comment
		if _, ok := g.(*gogame.Game); ok {
			r.Rules = "Tromp-Taylor"
		}
		var b bytes.Buffer
		if err := sgf.Write(&b, r); err != nil {
			return err
		}
		_, err = w.Write(b.Bytes())
		return err
	}
	return fmt.Errorf("records: game %s has no record format (%s have)", g.Name(), Formats)
}

// dotted writes a date YYYY-MM-DD as .mat headers do, YYYY.MM.DD.
func dotted(date string) string {
	b := []byte(date)
	for i, c := range b {
		if c == '-' {
			b[i] = '.'
		}
	}
	return string(b)
}
