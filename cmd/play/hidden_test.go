package main

import (
	"regexp"
	"strings"
	"testing"

	"tabula/games/whist"
)

// TestTerminalWhistHidesEngineCards plays a whist deal against PIMC; the
// person types every card of the deck in turn, so the illegal ones are
// refused. No line the person is shown before the end names one of the
// engine's cards before the engine has played it (lines echoing the
// person's own refused typing aside), and the end shows the result in
// tricks and the whole deal.
func TestTerminalWhistHidesEngineCards(t *testing.T) {
	g := whist.Default()
	var script strings.Builder
	script.WriteString("undo\n")
	for range 6 {
		for c := 0; c < g.DeckSize(); c++ {
			script.WriteString(g.CardName(c) + "\n")
		}
	}
	out, err := playSession(t, script.String(), "-game", "whist", "-player", "pimc:samples=4", "-human", "second", "-seed", "7")
	if err != nil {
		t.Fatal(err)
	}
	end := strings.Index(out, "result: ")
	if end < 0 || !regexp.MustCompile(`result: .*\(you [-+]\d+ tricks\)`).MatchString(out) {
		t.Fatalf("no result in tricks:\n%s", out)
	}
	m := regexp.MustCompile(`game \(whist\): ((?:\S\S ){12}\S\S)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no game record:\n%s", out)
	}
	deal, err := g.ParseActions(m[1])
	if err != nil {
		t.Fatal(err)
	}
	var shown strings.Builder // what the person was shown before the end
	for _, line := range strings.Split(out[:end], "\n") {
		if !strings.Contains(line, "illegal move") {
			shown.WriteString(line + "\n")
		}
	}
	text := shown.String()
	for _, c := range deal[:6] { // the engine, player 0, holds the first six
		name := g.CardName(c)
		first := regexp.MustCompile(`\b` + name + `\b`).FindStringIndex(text)
		played := strings.Index(text, "engine plays "+name)
		if first != nil && (played < 0 || first[0] < played) {
			t.Errorf("the engine's %s is shown before it is played:\n%s", name, text[:first[0]+2])
		}
	}
	if !strings.Contains(out, "no undo in a game of hidden information") {
		t.Errorf("undo was not refused")
	}
	if !strings.Contains(out, "your hand: ") || !strings.Contains(out, "engine plays ") {
		t.Errorf("the session lacks the person's hand or the engine's plays:\n%s", out)
	}
}

// TestTerminalPokerShowsOwnCardOnly plays Kuhn hands: before the end the
// person sees its card and the betting, never the whole deal; the end
// shows both cards and the result in chips.
func TestTerminalPokerShowsOwnCardOnly(t *testing.T) {
	for _, seed := range []string{"1", "2", "3", "4"} {
		out, err := playSession(t, "check\ncall\ncall\n", "-game", "kuhn", "-player", "cfr:iters=500", "-seed", seed)
		if err != nil {
			t.Fatal(err)
		}
		end := strings.Index(out, "result: ")
		if end < 0 || !regexp.MustCompile(`result: .*\(you [-+]\d+ chips\)`).MatchString(out) {
			t.Fatalf("no result in chips:\n%s", out)
		}
		// Only the last line before the result, the finished hand, shows
		// both cards.
		whole := regexp.MustCompile(`^[JQK] [JQK] \|`)
		lines := strings.Split(strings.TrimRight(out[:end], "\n"), "\n")
		for i, line := range lines {
			if whole.MatchString(line) != (i == len(lines)-1) {
				t.Errorf("line %d %q: the whole deal shown before the end, or not at the end:\n%s", i, line, out)
			}
		}
		if !strings.Contains(out[:end], "your card: ") || strings.Contains(out[:end], "chance: ") {
			t.Errorf("the person's view:\n%s", out)
		}
	}
}
