package backgammon

import (
	"testing"

	"tabula/games"
)

// FuzzParseMove feeds arbitrary text to the move and roll parsers: they
// must not panic, and a move they accept must be legal and written back to
// text that parses to it again.
func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"8/5 6/5", "bar/22* 13/7(2)", "24/18*/13", "6/off", "pass", "", "6-3", "13/7(9", "25/1", "off/3"} {
		f.Add(s)
	}
	start := decision(&testing.T{}, StartPosition(), 3, 1)
	q := StartPosition()
	q.Board[0][23], q.Bar[0] = 1, 1
	bar := decision(&testing.T{}, q, 6, 6)
	roll := winLoss.NewInitialState().(*State)
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range []*State{start, bar, roll} {
			a, err := s.ParseMove(text)
			if err != nil {
				continue
			}
			if !s.IsLegal(a) {
				t.Fatalf("ParseMove(%q) = %d, not legal", text, a)
			}
			back, err := s.ParseMove(s.FormatMove(a))
			if err != nil || back != a {
				t.Fatalf("ParseMove(FormatMove(%d) = %q) = %d, %v", a, s.FormatMove(a), back, err)
			}
		}
	})
}

// FuzzParsePositionID checks that any text is either refused or a valid
// position whose ID is the text.
func FuzzParsePositionID(f *testing.F) {
	for _, s := range []string{"4HPwATDgc/ABMA", "/38AAADg/w8AAA", "", "AAAAAAAAAAAAAA", "//////////////"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		q, err := ParsePositionID(id, 0)
		if err != nil {
			return
		}
		if err := q.Check(); err != nil {
			t.Fatalf("%q parsed to a bad position: %v", id, err)
		}
		if got := PositionID(&q, 0); got != id {
			t.Fatalf("%q parsed and written back as %q", id, got)
		}
	})
}

// FuzzParseActions checks the whole-game reader: no panic, and accepted text
// replays.
func FuzzParseActions(f *testing.F) {
	for _, s := range []string{"31: 8/5 6/5; 66: 24/18(2); 13/7(2)", "#5; #7", "11:", "63: 24/15; 55:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		actions, err := winLoss.ParseActions(text)
		if err != nil {
			return
		}
		legalSoFar := true
		s := winLoss.NewInitialState()
		for _, a := range actions {
			if legalSoFar && games.Play(s, a) != nil {
				legalSoFar = false
			}
		}
	})
}
