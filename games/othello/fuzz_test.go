package othello

import (
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

func FuzzParseActions(f *testing.F) {
	for _, s := range []string{"f5d6c3", "F5 D6 pass", "ps--", "a1,h8", "i9", "f", "", "pass f5\tE6"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	g8, _ := New(8)
	g6, _ := New(6)
	f.Fuzz(func(t *testing.T, text string, big bool) {
		g := g6
		if big {
			g = g8
		}
		gamestest.CheckParse(t, g, text)
	})
}

func FuzzSpec(f *testing.F) {
	for _, s := range []string{"size=6", "size=8", "size=7", "size=", "size=6,size=8", "x=1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		g, err := games.New("othello:" + params)
		if err != nil {
			return
		}
		if n := g.(*Game).Size(); n != 6 && n != 8 {
			t.Fatalf("spec %q built size %d", params, n)
		}
		g2, err := games.New(g.Name())
		if err != nil || g2.Name() != g.Name() {
			t.Fatalf("Name %q does not rebuild the game: %v", g.Name(), err)
		}
	})
}

func FuzzParseOBF(f *testing.F) {
	f.Add("--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;")
	f.Add(strings.Repeat("-", 64) + " O; PS:-2")
	f.Add("X O")
	f.Fuzz(func(t *testing.T, line string) {
		p, err := ParseOBF(line)
		if err != nil {
			return
		}
		if p.Black&p.White != 0 || (p.Player != Black && p.Player != White) {
			t.Fatalf("ParseOBF(%q) = %+v", line, p)
		}
		g, _ := New(8)
		if _, err := g.NewState(p.Black, p.White, p.Player, 0); err != nil {
			t.Fatalf("parsed position rejected: %v", err)
		}
		for _, m := range p.Moves {
			if m.Square < 0 || m.Square > 64 || m.Score < -64 || m.Score > 64 {
				t.Fatalf("ParseOBF(%q): bad move %+v", line, m)
			}
		}
	})
}
