package records

import (
	"bytes"
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/all"
	"tabula/games/backgammon"
	"tabula/games/connect4"
	"tabula/games/sgf"
)

// TestWrite writes a short game of each format and reads it back with the
// format's reader.
func TestWrite(t *testing.T) {
	for _, c := range []struct{ spec, format, ext string }{
		{"connect4", "pons", ".txt"}, {"othello:size=6", "sgf", ".sgf"}, {"go:size=5", "sgf", ".sgf"},
		{"backgammon", "mat", ".mat"}, {"tictactoe", "", ""},
	} {
		g, err := games.New(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if f, ext := Format(g); f != c.format || ext != c.ext {
			t.Errorf("%s: format %q %q, want %q %q", c.spec, f, ext, c.format, c.ext)
		}
		s := g.NewInitialState()
		var acts, buf []int
		for len(acts) < 6 && !s.IsTerminal() {
			buf = s.LegalActions(buf)
			acts = append(acts, buf[0])
			s.ApplyAction(buf[0])
		}
		var b bytes.Buffer
		err = Write(&b, g, Game{Players: [2]string{"a", "b"}, Actions: acts, Date: "2026-12-02", Event: "test"})
		if c.format == "" {
			if err == nil || !strings.Contains(err.Error(), "no record format") {
				t.Errorf("%s: error %v", c.spec, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		var back []int
		switch c.format {
		case "pons":
			recs, err := connect4.ReadPons(&b)
			if err != nil || len(recs) != 1 {
				t.Fatalf("%s: %v", c.spec, err)
			}
			back = recs[0].Actions
		case "sgf":
			rec, err := sgf.Read(&b)
			if err != nil || rec.Black != "a" || rec.White != "b" {
				t.Fatalf("%s: %v", c.spec, err)
			}
			back = rec.Actions()
		case "mat":
			m, err := backgammon.ReadMat(&b, g.(*backgammon.Game))
			if err != nil || m.Length != 1 || m.Date != "2026.12.02" || m.Event != "test" {
				t.Fatalf("%s: %v %+v", c.spec, err, m)
			}
			back = m.Games[0].Actions
		}
		if !slicesEqual(back, acts) {
			t.Errorf("%s: read %v, wrote %v", c.spec, back, acts)
		}
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
