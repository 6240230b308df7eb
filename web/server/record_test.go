package server

import (
	"fmt"
	"strings"
	"testing"

	"tabula/games/sgf"
	"tabula/web"
)

// TestRecordAPI checks /api/record: SGF for Go and Othello that games/sgf
// reads back with the same moves and result (a resignation as B+R/W+R), the
// Pons string for Connect Four, cell numbers for tic-tac-toe, and 400 for
// bad input.
func TestRecordAPI(t *testing.T) {
	s := newTestServer(t, nil)

	var rec web.GameRecord
	code, body := do(t, s, "POST", "/api/record", `{"game":"go:size=9","moves":[40,30,81],"human":0,"player":"alphabeta:depth=2","resigned":0}`, &rec)
	if code != 200 {
		t.Fatalf("go record: %d %s", code, body)
	}
	if rec.Filename != "tabula-go.sgf" {
		t.Errorf("go record file name %q", rec.Filename)
	}
	r, err := sgf.Parse([]byte(rec.Text))
	if err != nil {
		t.Fatalf("sgf.Parse(%q): %v", rec.Text, err)
	}
	if got := r.Actions(); len(got) != 3 || got[0] != 40 || got[1] != 30 || got[2] != 81 {
		t.Errorf("go record moves %v, want [40 30 81]", got)
	}
	if r.Result != "W+R" || r.Black != "you" || r.White != "alphabeta:depth=2" {
		t.Errorf("go record: RE %q PB %q PW %q, want W+R, you, alphabeta:depth=2", r.Result, r.Black, r.White)
	}

	// Othello 6x6, the person second and resigning: black wins.
	code, body = do(t, s, "POST", "/api/record", `{"game":"othello:size=6","moves":[8],"human":1,"resigned":1}`, &rec)
	if code != 200 {
		t.Fatalf("othello record: %d %s", code, body)
	}
	if r, err = sgf.Parse([]byte(rec.Text)); err != nil || r.Result != "B+R" || len(r.Actions()) != 1 {
		t.Fatalf("othello record %q: %v, result %q", rec.Text, err, r.Result)
	}

	code, body = do(t, s, "POST", "/api/record", `{"game":"connect4","moves":[3,3,4,2]}`, &rec)
	if code != 200 || rec.Text != "4453\n" || rec.Filename != "tabula-connect4.txt" {
		t.Errorf("connect4 record: %d %s, text %q file %q", code, body, rec.Text, rec.Filename)
	}
	code, body = do(t, s, "POST", "/api/record", `{"game":"tictactoe","moves":[4,0,8]}`, &rec)
	if code != 200 || rec.Text != "519\n" {
		t.Errorf("tictactoe record: %d %s, text %q", code, body, rec.Text)
	}

	// Backgammon: the rolls and turns in gnubg notation.
	var p web.Position
	if code, body := do(t, s, "POST", "/api/state", `{"game":"backgammon","moves":[]}`, &p); code != 200 {
		t.Fatalf("backgammon state: %d %s", code, body)
	}
	code, body = do(t, s, "POST", "/api/record", fmt.Sprintf(`{"game":"backgammon","moves":[%d,%d],"deal":%q}`, p.Moves[0], p.Legal[0], p.Deal), &rec)
	if want := fmt.Sprintf("%d-%d: %s\n", p.Backgammon.Dice[0], p.Backgammon.Dice[1], p.LegalText[0]); code != 200 || rec.Text != want || rec.Filename != "tabula-backgammon.txt" {
		t.Errorf("backgammon record: %d %s, text %q file %q, want %q", code, body, rec.Text, rec.Filename, want)
	}
	// Without its dice token the rolls are not the server's: refused.
	code, body = do(t, s, "POST", "/api/record", fmt.Sprintf(`{"game":"backgammon","moves":[%d,%d]}`, p.Moves[0], p.Legal[0]), nil)
	if code != 400 || !strings.Contains(body, "dice token") {
		t.Errorf("backgammon record without its dice token: %d %s", code, body)
	}

	for _, c := range []struct{ body, want string }{
		{`{"game":"go:size=9","moves":[40,40]}`, "move 2"},
		{`{"game":"go:size=9","moves":[],"resigned":2}`, "resigned: player 2"},
		{`{"game":"connect4","moves":[3],"human":5}`, "human: seat 5"},
		{`{"game":"go:size=9","moves":[],"player":"gnugo"}`, "gnugo"},
		{`{"game":"kuhn","moves":[]}`, "not offered"},
		{`{"game":"go:size=9","moves":[],"path":"/etc/passwd"}`, "unknown field"},
		{`{"game":"tictactoe","moves":[0,3,1,4,2],"resigned":1}`, "already over"},
	} {
		code, body := do(t, s, "POST", "/api/record", c.body, nil)
		if code != 400 || !strings.Contains(body, c.want) {
			t.Errorf("POST /api/record %s: %d %s, want 400 naming %q", c.body, code, body, c.want)
		}
	}
}

// TestStateResigned checks that /api/state with resigned answers a finished
// game lost by the resigning player, and that /api/move refuses to move in it.
func TestStateResigned(t *testing.T) {
	s := newTestServer(t, nil)
	var p web.Position
	code, body := do(t, s, "POST", "/api/state", `{"game":"connect4","moves":[3],"resigned":1}`, &p)
	if code != 200 {
		t.Fatalf("state: %d %s", code, body)
	}
	if !p.Over || p.Returns != [2]float64{1, -1} || len(p.Legal) != 0 || !strings.Contains(p.Result, "Yellow resigned") {
		t.Errorf("resigned position: over %v returns %v legal %v result %q", p.Over, p.Returns, p.Legal, p.Result)
	}
	code, body = do(t, s, "POST", "/api/move", `{"game":"connect4","moves":[3],"player":"random","resigned":1}`, nil)
	if code != 400 || !strings.Contains(body, "resigned") {
		t.Errorf("move after resignation: %d %s, want 400", code, body)
	}
}
