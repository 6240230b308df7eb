package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"tabula/web"
)

func body(r web.Request) string {
	b, _ := json.Marshal(r)
	return string(b)
}

// TestCardGamesOverAPI plays a Kuhn hand through the API against CFR and a
// whist deal's first trick against PIMC, and checks the players offered
// and refused for the card games.
func TestCardGamesOverAPI(t *testing.T) {
	s := newTestServer(t, nil)
	var pos web.Position
	if code, b := do(t, s, "POST", "/api/state", body(web.Request{Game: "kuhn", Human: 1}), &pos); code != 200 || pos.Deal == "" || pos.ToMove != 0 {
		t.Fatalf("new kuhn deal: %d %s", code, b)
	}
	if code, b := do(t, s, "POST", "/api/player", body(web.Request{Game: "kuhn", Player: "cfr:iters=2000"}), nil); code != 200 {
		t.Fatalf("cfr on kuhn: %d %s", code, b)
	}
	var rep web.Reply
	if code, b := do(t, s, "POST", "/api/move", body(web.Request{Game: "kuhn", Player: "cfr:iters=2000", Deal: pos.Deal}), &rep); code != 200 || rep.Position.Deal == "" {
		t.Fatalf("cfr's bet: %d %s", code, b)
	}
	if rep.Policy != nil || rep.Value != nil {
		t.Errorf("cfr's policy or value shown in a card game: %+v", rep)
	}
	if code, _ := do(t, s, "POST", "/api/move", body(web.Request{Game: "kuhn", Player: "cfr:iters=2000", Deal: rep.Position.Deal}), nil); code != http.StatusBadRequest {
		t.Errorf("the engine moved on the person's turn: %d", code)
	}
	// whist: the person leads; PIMC answers.
	if code, b := do(t, s, "POST", "/api/state", body(web.Request{Game: "whist"}), &pos); code != 200 || len(pos.Legal) != 6 {
		t.Fatalf("new whist deal: %d %s", code, b)
	}
	a := pos.Legal[0]
	if code, b := do(t, s, "POST", "/api/state", body(web.Request{Game: "whist", Deal: pos.Deal, Play: &a}), &pos); code != 200 || pos.ToMove != 1 {
		t.Fatalf("the person's card: %d %s", code, b)
	}
	if code, b := do(t, s, "POST", "/api/move", body(web.Request{Game: "whist", Player: "pimc:samples=10", Deal: pos.Deal}), &rep); code != 200 || len(rep.Position.Moves) != 2 {
		t.Fatalf("pimc's card: %d %s", code, b)
	}
	for spec, want := range map[string]string{
		"cfr":                 "kuhn and leduc only",
		"pimc:samples=500":    "more than this server allows",
		"ismcts:iters=100000": "more than this server allows",
	} {
		code, b := do(t, s, "POST", "/api/player", body(web.Request{Game: "whist", Player: spec}), nil)
		if code != http.StatusBadRequest || !strings.Contains(b, want) {
			t.Errorf("%s on whist: %d %s, want a 400 naming %q", spec, code, b, want)
		}
	}
	var opp map[string][]Opponent
	do(t, s, "GET", "/api/players?game=whist", "", &opp)
	var specs []string
	for _, o := range opp["builtin"] {
		specs = append(specs, o.Spec)
	}
	if got := strings.Join(specs, " "); !strings.Contains(got, "pimc") || !strings.Contains(got, "cardrules") || strings.Contains(got, "alphabeta") {
		t.Errorf("players offered for whist: %s", got)
	}
}
