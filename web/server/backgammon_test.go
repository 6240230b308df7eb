package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"tabula/games"
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
	if p.Deal == "" {
		t.Fatal("no dice token in a new backgammon game")
	}
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
	code, body = do(t, s, "POST", "/api/state", bgReq(t, web.Request{Moves: []int{p.Moves[0], bad}, Deal: p.Deal}), nil)
	if code != 400 || !strings.Contains(body, "move 2") {
		t.Errorf("illegal turn: %d %s", code, body)
	}
	// A legal turn, then the engine's reply, which ends with the first
	// player's next roll.
	code, body = do(t, s, "POST", "/api/state", bgReq(t, web.Request{Moves: []int{p.Moves[0], p.Legal[0]}, Deal: p.Deal}), &p)
	if code != 200 || p.ToMove != 1 || len(p.Moves) != 3 || len(p.Backgammon.Dice) != 2 {
		t.Fatalf("after a turn: %d %s", code, body)
	}
	// The engine moves until the first player is to move (twice after a
	// double: each half of the turn is a decision).
	var rep web.Reply
	var played []string
	for p.ToMove == 1 {
		code, body = do(t, s, "POST", "/api/move", bgReq(t, web.Request{Player: "pubeval", Moves: p.Moves, Deal: p.Deal}), &rep)
		if code != 200 {
			t.Fatalf("move: %d %s", code, body)
		}
		played = append(played, rep.MoveText)
		p = rep.Position
	}
	if p.Deal == "" {
		t.Error("the engine's reply carries no dice token")
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

// bgReq writes r as a backgammon request's body.
func bgReq(t *testing.T, r web.Request) string {
	t.Helper()
	if r.Game == "" {
		r.Game = "backgammon"
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBackgammonDiceSealed checks that the dice are the server's alone: the
// page's moves carry the rolls with the dice token of their game, and a
// request that changes a roll, comes without the token, or brings a forged,
// garbled or foreign token is refused on every endpoint, without telling
// the roll the server made.
func TestBackgammonDiceSealed(t *testing.T) {
	s := newTestServer(t, nil)
	var p web.Position
	if code, body := do(t, s, "POST", "/api/state", bgReq(t, web.Request{Moves: []int{}}), &p); code != 200 {
		t.Fatalf("state: %d %s", code, body)
	}
	// Play on to the engine's roll and the person's next one, so that the
	// moves hold three rolls.
	if code, body := do(t, s, "POST", "/api/state", bgReq(t, web.Request{Moves: []int{p.Moves[0], p.Legal[0]}, Deal: p.Deal}), &p); code != 200 {
		t.Fatalf("state: %d %s", code, body)
	}
	for p.ToMove == 1 {
		var rep web.Reply
		if code, body := do(t, s, "POST", "/api/move", bgReq(t, web.Request{Player: "pubeval", Moves: p.Moves, Deal: p.Deal}), &rep); code != 200 {
			t.Fatalf("move: %d %s", code, body)
		}
		p = rep.Position
	}
	moves, deal := p.Moves, p.Deal
	// The same moves and token are the same position, without a new roll.
	var again web.Position
	if code, body := do(t, s, "POST", "/api/state", bgReq(t, web.Request{Moves: moves, Deal: deal}), &again); code != 200 || len(again.Moves) != len(moves) {
		t.Fatalf("state of the page's own moves: %d %s", code, body)
	}
	// The rolls of the game: moves at chance nodes.
	g := mustGame(t, "backgammon")
	var rolls []int
	st := g.NewInitialState()
	for i, a := range moves {
		if games.IsChanceNode(st) {
			rolls = append(rolls, i)
		}
		st.ApplyAction(a)
	}
	if len(rolls) < 3 {
		t.Fatalf("moves %v hold %d rolls, want 3 or more", moves, len(rolls))
	}
	// A resignation takes the token as any request does.
	var over web.Position
	zero := 0
	if code, body := do(t, s, "POST", "/api/state", bgReq(t, web.Request{Moves: moves, Deal: deal, Resigned: &zero}), &over); code != 200 || !over.Over || over.Returns[0] != -1 {
		t.Errorf("resignation: %d %s", code, body)
	}
	if code, body := do(t, s, "POST", "/api/state", bgReq(t, web.Request{Moves: moves, Resigned: &zero}), nil); code != 400 || !strings.Contains(body, "dice token") {
		t.Errorf("resignation without the dice token: %d %s", code, body)
	}
	// A changed roll: every other roll in its place, at the opening, the
	// engine's roll and the person's last roll, is refused.
	for _, at := range []int{rolls[0], rolls[1], rolls[len(rolls)-1]} {
		st := mustReplay(t, g, moves[:at])
		for _, o := range st.(games.ChanceState).ChanceOutcomes(nil) {
			if o.Action == moves[at] {
				continue
			}
			changed := append(append([]int{}, moves[:at]...), o.Action)
			for _, ep := range []string{"/api/state", "/api/move", "/api/record", "/api/player"} {
				req := web.Request{Moves: changed, Deal: deal}
				if ep == "/api/move" || ep == "/api/player" {
					req.Player = "pubeval"
				}
				code, body := do(t, s, "POST", ep, bgReq(t, req), nil)
				if want := fmt.Sprintf("move %d is not the roll the server made", at+1); code != 400 || !strings.Contains(body, want) {
					t.Fatalf("%s with roll %d changed to %s: %d %s, want 400 %q", ep, at+1, games.FormatMove(st, o.Action), code, body, want)
				}
			}
		}
	}
	// A page that sends a roll of its own after the moves, where the
	// server would roll, is refused unless it guessed the server's roll:
	// the answer names no roll.
	before := moves[:rolls[len(rolls)-1]]
	last := mustReplay(t, g, before)
	serverRoll := games.FormatMove(last, moves[len(before)])
	refused := 0
	for _, o := range last.(games.ChanceState).ChanceOutcomes(nil) {
		code, body := do(t, s, "POST", "/api/state", bgReq(t, web.Request{Moves: append(append([]int{}, before...), o.Action), Deal: deal}), nil)
		if code == 400 {
			refused++
			if !strings.Contains(body, "is not the roll the server made") || strings.Contains(body, serverRoll) {
				t.Errorf("refused roll %s: %s, want a refusal that does not name the server's roll %s", games.FormatMove(last, o.Action), body, serverRoll)
			}
		}
	}
	if refused != 20 { // 21 rolls, one of them the server's
		t.Errorf("%d of the 21 rolls refused at move %d, want 20", refused, len(before)+1)
	}

	// Tokens: none with moves, forged, garbled, of another game, of a card
	// deal, over the length limit.
	var whist web.Position
	if code, body := do(t, s, "POST", "/api/state", `{"game":"whist","human":0}`, &whist); code != 200 {
		t.Fatalf("whist deal: %d %s", code, body)
	}
	var money web.Position
	if code, body := do(t, s, "POST", "/api/state", bgReq(t, web.Request{Game: "backgammon:scoring=money", Moves: []int{}}), &money); code != 200 {
		t.Fatalf("money game: %d %s", code, body)
	}
	raw, err := base64.RawURLEncoding.DecodeString(deal)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte{}, raw...)
	flipped[len(flipped)/2] ^= 1
	other := newTestServer(t, nil) // another server: another key
	var foreign web.Position
	if code, body := do(t, other, "POST", "/api/state", bgReq(t, web.Request{Moves: []int{}}), &foreign); code != 200 {
		t.Fatalf("other server: %d %s", code, body)
	}
	for _, c := range []struct{ name, deal, want string }{
		{"no token", "", "need the dice token"},
		{"a bit flipped", base64.RawURLEncoding.EncodeToString(flipped), "not issued by this server"},
		{"garbled", "not a token!", "malformed dice token"},
		{"too short", "AAAA", "malformed dice token"},
		{"another server's", foreign.Deal, "not issued by this server"},
		{"a card deal's", whist.Deal, "not issued by this server"},
		{"another game's", money.Deal, "dice token is of backgammon:scoring=money"},
		{"too long", strings.Repeat("A", 5000), "more than 4096"},
	} {
		for _, ep := range []string{"/api/state", "/api/move", "/api/record"} {
			req := web.Request{Moves: moves, Deal: c.deal}
			if ep == "/api/move" {
				req.Player = "pubeval"
			}
			if code, body := do(t, s, "POST", ep, bgReq(t, req), nil); code != 400 || !strings.Contains(body, c.want) {
				t.Errorf("%s, token %s: %d %s, want 400 %q", ep, c.name, code, body, c.want)
			}
		}
	}
	// The foreign token plays on its own server.
	if code, body := do(t, other, "POST", "/api/state", bgReq(t, web.Request{Moves: foreign.Moves, Deal: foreign.Deal}), nil); code != 200 {
		t.Errorf("a token on its own server: %d %s", code, body)
	}
}

func mustGame(t *testing.T, spec string) games.Game {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustReplay(t *testing.T, g games.Game, moves []int) games.State {
	t.Helper()
	s, err := games.Replay(g, moves)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
