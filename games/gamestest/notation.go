package gamestest

import (
	"fmt"
	"slices"
	"testing"

	"tabula/games"
)

// CheckParse is the body of a fuzz test of a game's notation: it fails t
// unless every action g's ParseActions reads from text is in
// [0, NumActions), formatting and parsing them again gives the same
// actions, ParseAction (where it accepts text) reads the single action
// ParseActions does, and replaying them through the checked path either
// fails with an error or plays them all. Text that ParseActions rejects is
// fine.
func CheckParse(t *testing.T, g games.Game, text string) {
	t.Helper()
	if err := verifyParse(g, text); err != nil {
		t.Fatal(err)
	}
}

// verifyParse is CheckParse without the testing.T.
func verifyParse(g games.Game, text string) error {
	n, ok := g.(games.Notation)
	if !ok {
		return fmt.Errorf("%s has no notation (games.Notation)", g.Name())
	}
	actions, err := n.ParseActions(text)
	if err != nil {
		return nil
	}
	for _, a := range actions {
		if a < 0 || a >= g.NumActions() {
			return fmt.Errorf("ParseActions(%q) gave action %d out of range", text, a)
		}
	}
	again, err := n.ParseActions(n.FormatActions(actions))
	if err != nil || !slices.Equal(again, actions) {
		return fmt.Errorf("round trip of %q: %v, %v; want %v", text, again, err, actions)
	}
	if a, err := n.ParseAction(text); err == nil && (len(actions) != 1 || actions[0] != a) {
		return fmt.Errorf("ParseAction(%q) = %d but ParseActions gave %v", text, a, actions)
	}
	if s, err := games.Replay(g, actions); err == nil && s.MoveNumber() != len(actions) {
		return fmt.Errorf("replay of %q has %d moves, want %d", text, s.MoveNumber(), len(actions))
	}
	return nil
}
