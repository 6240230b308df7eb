package web

import (
	"bytes"
	"fmt"
	"time"

	"tabula/games"
	"tabula/games/sgf"
)

// Resign ends p, reached after r's moves, by r.Resigned's resignation: the
// game is over, the resigning player gets -1 and the other +1. It is a
// BadRequestError to resign for a player other than 0 or 1, or after the
// end of the game. Without r.Resigned, p is unchanged.
func (r Request) Resign(p *Position) error {
	if r.Resigned == nil {
		return nil
	}
	who := *r.Resigned
	if who != 0 && who != 1 {
		return badRequest("resigned: player %d, want 0 (first) or 1 (second)", who)
	}
	if p.Over {
		return badRequest("resigned: the game is already over (%s)", p.Result)
	}
	p.Over = true
	p.Returns = [2]float64{}
	p.Returns[who], p.Returns[1-who] = -1, 1
	p.Result = fmt.Sprintf("%s resigned: %s wins", p.Layout.Players[who], p.Layout.Players[1-who])
	p.Legal, p.LegalText = []int{}, []string{}
	return nil
}

// GameRecord is a game's record as the page downloads it.
type GameRecord struct {
	// Filename is the name the browser saves it under, made by the server
	// from the game's kind alone.
	Filename string `json:"filename"`
	// Type is the record's media type.
	Type string `json:"type"`
	// Text is the record: SGF for Go and Othello, the Pons move string
	// (columns 1-7, e.g. "4453") for Connect Four, the move list in the
	// game's notation otherwise.
	Text string `json:"text"`
}

// Record replays r's moves (and r.Resigned's resignation) and writes the
// game's record. player, when not empty, names the engine in the record
// (SGF PB or PW: the side the person did not play, r.Human).
func (r Request) Record(player string) (GameRecord, error) {
	g, l, s, err := r.Replay()
	if err != nil {
		return GameRecord{}, err
	}
	p := Describe(g, l, s, r.Moves)
	if err := r.Resign(&p); err != nil {
		return GameRecord{}, err
	}
	if r.Human != 0 && r.Human != 1 {
		return GameRecord{}, badRequest("human: seat %d, want 0 (first) or 1 (second)", r.Human)
	}
	if sgf.Supports(g) {
		rec, err := sgf.FromActions(g, r.Moves, nil)
		if err != nil {
			return GameRecord{}, &BadRequestError{Err: err}
		}
		if r.Resigned != nil {
			rec.Result = "BW"[1-*r.Resigned:2-*r.Resigned] + "+R"
		}
		names := [2]string{"you", player}
		if r.Human == 1 {
			names = [2]string{player, "you"}
		}
		rec.Black, rec.White = names[0], names[1]
		rec.Date = time.Now().UTC().Format("2006-01-02")
		var b bytes.Buffer
		if err := sgf.Write(&b, rec); err != nil {
			return GameRecord{}, err
		}
		return GameRecord{Filename: "tabula-" + l.Kind + ".sgf", Type: "application/x-go-sgf", Text: b.String()}, nil
	}
	if _, ok := g.(games.Notation); !ok {
		return GameRecord{}, badRequest("game %s has no notation to write its moves in", g.Name())
	}
	text := p.Notation + "\n"
	return GameRecord{Filename: "tabula-" + l.Kind + ".txt", Type: "text/plain", Text: text}, nil
}
