package server

import (
	"fmt"
	"strings"
	"testing"

	"tabula/web"
)

// TestBackgammonAPI plays the start of a backgammon game through the API:
// the server rolls the dice, lists the legal turns with their checker moves,
// takes a legal turn and refuses an illegal one, and the engine's reply comes
// with the next roll.
func TestBackgammonAPI(t *testing.T) {
	s := newTestServer(t, nil)
	var p web.Position
	code, body := do(t, s, "POST", "/api/state", `{"game":"backgammon","moves":[]}`, &p)
	if code != 200 {
		t.Fatalf("state: %d %s", code, body)
	}
	v := p.Backgammon
	if v == nil || len(p.Moves) != 1 || len(v.Dice) != 2 || v.Dice[0] == v.Dice[1] || p.ToMove != 0 {
		t.Fatalf("opening: moves %v, view %+v, to move %d: want one (non-double) roll and the first player to move", p.Moves, v, p.ToMove)
	}
	if v.Points[23] != 2 || v.Points[5] != 5 || v.Points[0] != -2 || v.Points[18] != -5 {
		t.Errorf("start points %v", v.Points)
	}
	if len(v.Steps) != len(p.Legal) || len(p.Legal) == 0 {
		t.Fatalf("%d legal turns, %d step lists", len(p.Legal), len(v.Steps))
	}
	for i, st := range v.Steps {
		if len(st) != 2 {
			t.Errorf("turn %s: steps %v, want two checker moves", p.LegalText[i], st)
			continue
		}
		for _, m := range st {
			if d := m[0] - m[1]; d != v.Dice[0] && d != v.Dice[1] {
				t.Errorf("turn %s: step %v moves %d pips with dice %v", p.LegalText[i], m, d, v.Dice)
			}
		}
	}
	// An action that is not one of the legal turns is refused.
	bad := 675 // the pass, never legal at the start
	code, body = do(t, s, "POST", "/api/state", fmt.Sprintf(`{"game":"backgammon","moves":[%d,%d]}`, p.Moves[0], bad), nil)
	if code != 400 || !strings.Contains(body, "move 2") {
		t.Errorf("illegal turn: %d %s", code, body)
	}
	// A legal turn, then the engine's reply, which ends with the first
	// player's next roll.
	code, body = do(t, s, "POST", "/api/state", fmt.Sprintf(`{"game":"backgammon","moves":[%d,%d]}`, p.Moves[0], p.Legal[0]), &p)
	if code != 200 || p.ToMove != 1 || len(p.Moves) != 3 || len(p.Backgammon.Dice) != 2 {
		t.Fatalf("after a turn: %d %s", code, body)
	}
	// The engine moves until the first player is to move (twice after a
	// double: each half of the turn is a decision).
	var rep web.Reply
	var played []string
	for p.ToMove == 1 {
		req := fmt.Sprintf(`{"game":"backgammon","player":"pubeval","moves":%s}`, strings.ReplaceAll(fmt.Sprint(p.Moves), " ", ","))
		code, body = do(t, s, "POST", "/api/move", req, &rep)
		if code != 200 {
			t.Fatalf("move: %d %s", code, body)
		}
		played = append(played, rep.MoveText)
		p = rep.Position
	}
	if len(p.Backgammon.Dice) != 2 || len(played) == 0 || len(played) > 2 {
		t.Errorf("engine's reply: moves %v, dice %v, engine played %q", p.Moves, p.Backgammon.Dice, played)
	}
	for _, m := range played {
		if !strings.Contains(p.Notation, m) || !strings.Contains(m, "/") {
			t.Errorf("engine's move %q: want gnubg notation, shown in the move list %q", m, p.Notation)
		}
	}
}

// TestBackgammonMoneyPlayers checks the players offered for backgammon
// scored in points: the backgammon players, none that refuses dice.
func TestBackgammonMoneyPlayers(t *testing.T) {
	s := newTestServer(t, nil)
	var opp map[string][]Opponent
	if code, body := do(t, s, "GET", "/api/players?game=backgammon:scoring=money", "", &opp); code != 200 {
		t.Fatalf("players: %d %s", code, body)
	}
	var specs []string
	for _, o := range opp["builtin"] {
		specs = append(specs, o.Spec)
	}
	if got := strings.Join(specs, " "); !strings.Contains(got, "pubeval") || strings.Contains(got, "alphabeta") {
		t.Errorf("players offered for backgammon:scoring=money: %s", got)
	}
}
