package gtp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"tabula/games"
	"tabula/games/gogame"
	"tabula/games/othello"
)

// Dialect is how one game reads in GTP: its vertices, its board sizes and
// its komi. Go and Othello have one.
type Dialect struct {
	game games.Game
	gog  *gogame.Game  // set for Go
	oth  *othello.Game // set for Othello
	// maxMoves is the Go length cap the user asked for (0: the default of
	// the board size), kept when boardsize or komi rebuild the game.
	maxMoves int
}

// NewDialect returns g's dialect, or an error for a game that has none.
func NewDialect(g games.Game) (*Dialect, error) {
	switch gg := g.(type) {
	case *gogame.Game:
		d := &Dialect{game: g, gog: gg}
		if n := gg.Size() * gg.Size(); gg.MaxGameLength() != 3*n {
			d.maxMoves = gg.MaxGameLength()
		}
		return d, nil
	case *othello.Game:
		return &Dialect{game: g, oth: gg}, nil
	case nil:
		return nil, errors.New("gtp: no game")
	}
	return nil, fmt.Errorf("gtp: game %s has no GTP dialect: GTP plays go and othello", g.Name())
}

// Game returns the game.
func (d *Dialect) Game() games.Game { return d.game }

// IsGo reports whether the game is Go.
func (d *Dialect) IsGo() bool { return d.gog != nil }

// Size returns the board size.
func (d *Dialect) Size() int {
	if d.gog != nil {
		return d.gog.Size()
	}
	return d.oth.Size()
}

// Komi returns the komi (0 for Othello).
func (d *Dialect) Komi() float64 {
	if d.gog != nil {
		return d.gog.Komi()
	}
	return 0
}

// Pass returns the game's pass action.
func (d *Dialect) Pass() int {
	if d.gog != nil {
		return d.gog.Pass()
	}
	return d.oth.Pass()
}

// FormatMove writes action a as a GTP vertex: "D4" or "pass" in Go, "f5"
// or "pass" in Othello.
func (d *Dialect) FormatMove(a int) string {
	if d.gog != nil {
		return d.gog.FormatAction(a)
	}
	return d.oth.FormatAction(a)
}

// ParseMove reads a GTP vertex in either case. It checks syntax and range,
// not legality.
func (d *Dialect) ParseMove(text string) (int, error) {
	if d.gog != nil {
		return d.gog.ParseAction(text)
	}
	if strings.EqualFold(text, "pass") {
		return d.oth.Pass(), nil
	}
	if len(text) != 2 {
		return 0, fmt.Errorf("othello move %q: want a column letter and a row number (e.g. f5) or pass", clip(text))
	}
	return d.oth.ParseAction(text)
}

// WithSize returns the dialect of the same game on a size x size board.
func (d *Dialect) WithSize(size int) (*Dialect, error) {
	if d.gog != nil {
		g, err := gogame.New(size, d.gog.Komi(), d.maxMoves)
		if err != nil {
			return nil, err
		}
		return &Dialect{game: g, gog: g, maxMoves: d.maxMoves}, nil
	}
	g, err := othello.New(size)
	if err != nil {
		return nil, err
	}
	return &Dialect{game: g, oth: g}, nil
}

// WithKomi returns the dialect of the same game with komi k. Othello has no
// komi: only 0 is accepted.
func (d *Dialect) WithKomi(k float64) (*Dialect, error) {
	if d.gog != nil {
		g, err := gogame.New(d.gog.Size(), k, d.maxMoves)
		if err != nil {
			return nil, err
		}
		return &Dialect{game: g, gog: g, maxMoves: d.maxMoves}, nil
	}
	if k != 0 {
		return nil, fmt.Errorf("othello has no komi (got %v)", k)
	}
	return d, nil
}

// Score returns the score of s for black, the first mover: the area score
// with komi in Go (Tromp-Taylor: every stone counts as alive), the disc
// difference in Othello.
func (d *Dialect) Score(s games.State) float64 {
	switch st := s.(type) {
	case *gogame.State:
		return st.Score()
	case *othello.State:
		return float64(st.DiscDifference())
	}
	return 0
}

// FormatScore writes a score for black as GTP's final_score does: "B+3.5",
// "W+2" or "0".
func FormatScore(score float64) string {
	switch {
	case score > 0:
		return "B+" + strconv.FormatFloat(score, 'f', -1, 64)
	case score < 0:
		return "W+" + strconv.FormatFloat(-score, 'f', -1, 64)
	}
	return "0"
}

// ParseScore reads a final_score answer ("B+3.5", "W+2", "0", "Draw") as a
// score for black.
func ParseScore(text string) (float64, error) {
	t := strings.TrimSpace(text)
	if t == "0" || strings.EqualFold(t, "draw") || strings.EqualFold(t, "jigo") {
		return 0, nil
	}
	if len(t) > 2 && t[1] == '+' {
		v, err := strconv.ParseFloat(t[2:], 64)
		if err == nil {
			switch t[0] | 0x20 {
			case 'b':
				return v, nil
			case 'w':
				return -v, nil
			}
		}
	}
	return 0, fmt.Errorf("gtp: score %q is not of the form B+n, W+n or 0", clip(t))
}
