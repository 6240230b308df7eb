package gogame_test

import (
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
	"tabula/games/gogame"
)

func FuzzParseActions(f *testing.F) {
	for _, s := range []string{"D4 C3 pass", "a1,b2", "T19", "I5", "pass,,PASS", "J10", "A01", "\t\n", "é"} {
		f.Add(uint8(9), s)
	}
	f.Fuzz(func(t *testing.T, size uint8, text string) {
		g, err := gogame.New(int(size%18)+2, 0.5, 0)
		if err != nil {
			t.Fatal(err)
		}
		gamestest.CheckParse(t, g, text)
	})
}

func FuzzSpec(f *testing.F) {
	for _, s := range []string{"size=9", "size=5,komi=0.5", "komi=-400", "max_moves=1", "size=19,max_moves=7220", "komi=1e3", "komi=0x10", "size=+5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		g, err := games.New("go:" + params)
		if err != nil {
			return
		}
		g2, err := games.New(g.Name())
		if err != nil || g2.Name() != g.Name() {
			t.Fatalf("spec %q: Name %q does not rebuild the game: %v", params, g.Name(), err)
		}
		gg := g.(*gogame.Game)
		if gg.Size() < gogame.MinSize || gg.Size() > gogame.MaxSize || !(gg.Komi() >= -gogame.MaxKomi && gg.Komi() <= gogame.MaxKomi) || g.MaxGameLength() < 1 {
			t.Fatalf("spec %q built out-of-range game %s", params, g.Name())
		}
	})
}

func FuzzFromText(f *testing.F) {
	f.Add(". X O\n. . .\nO X .", 0)
	f.Add("XO.\nO..\n...", 1)
	f.Fuzz(func(t *testing.T, text string, toMove int) {
		g, err := gogame.New(3, 0.5, 0)
		if err != nil {
			t.Fatal(err)
		}
		s, err := gogame.FromText(g, text, toMove)
		if err != nil {
			return
		}
		again, err := gogame.FromText(g, boardText(s), toMove)
		if err != nil || again.BoardHash() != s.BoardHash() {
			t.Fatalf("round trip of %q: %v", text, err)
		}
		for _, a := range s.LegalActions(nil) {
			c := s.Clone()
			if err := games.Play(c, a); err != nil {
				t.Fatalf("legal action %d refused: %v", a, err)
			}
		}
	})
}
