package backgammon

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tabula/games"
	"tabula/internal/refdata/refdatatest"
)

// randomGame plays a random game of g to its end and returns its actions.
func randomGame(g *Game, rng *rand.Rand) []int {
	s := g.NewInitialState().(*State)
	var acts, buf []int
	for !s.IsTerminal() {
		var a int
		if s.chance {
			a, _ = games.SampleChance(s, rng)
		} else {
			buf = s.LegalActions(buf)
			a = buf[rng.IntN(len(buf))]
		}
		acts = append(acts, a)
		s.ApplyAction(a)
	}
	return acts
}

// matGames returns n random games whose records hold hits, entering from
// the bar, rolls that cannot be played and gammons between them (checked).
func matGames(t *testing.T, n int) [][]int {
	rng := rand.New(rand.NewPCG(5, 8))
	var out [][]int
	var text strings.Builder
	for range n {
		acts := randomGame(money, rng)
		out = append(out, acts)
		text.WriteString(money.FormatActions(acts) + "\n")
	}
	all := text.String()
	for _, want := range []string{"*", "bar/", ": pass", "(2)"} {
		if !strings.Contains(all, want) {
			t.Fatalf("the test games have no %q", want)
		}
	}
	return out
}

// TestMatRoundTrip writes random games as .mat files and reads them back:
// the same actions, players, scores and results.
func TestMatRoundTrip(t *testing.T) {
	acts := matGames(t, 20)
	for i, a := range acts {
		m := &Mat{Event: "test", Date: "2026.12.02", Games: []MatGame{{Players: [2]string{"net:path=a b", "gnubg"}, Score: [2]int{i, 2}, Actions: a}}}
		var b bytes.Buffer
		if err := WriteMat(&b, money, m); err != nil {
			t.Fatal(err)
		}
		back, err := ReadMat(bytes.NewReader(b.Bytes()), money)
		if err != nil {
			t.Fatalf("game %d: %v\n%s", i, err, b.String())
		}
		if back.Length != 0 || back.Event != "test" || back.Date != "2026.12.02" || len(back.Games) != 1 {
			t.Fatalf("game %d: read %+v", i, back)
		}
		got, want := back.Games[0], m.Games[0]
		if !slices.Equal(got.Actions, want.Actions) {
			t.Fatalf("game %d: actions differ\nwrote %s\nread  %s\n%s", i, money.FormatActions(want.Actions), money.FormatActions(got.Actions), b.String())
		}
		// The other player named as the winner: refused.
		text := b.String()
		left, right := "\n      Wins", "\n"+strings.Repeat(" ", 6+matColumn)+"Wins"
		if strings.Contains(text, right) {
			text = strings.Replace(text, right, left, 1)
		} else {
			text = strings.Replace(text, left, right, 1)
		}
		if _, err := ReadMat(strings.NewReader(text), money); err == nil || !strings.Contains(err.Error(), "the moves give") {
			t.Errorf("game %d with the wrong winner: error %v", i, err)
		}
		if got.Players != [2]string{"net_path=a_b", "gnubg"} || got.Score != want.Score || got.Winner != want.Winner || got.Points != want.Points || want.Winner < 0 || want.Points < 1 {
			t.Errorf("game %d: read %v %v %d %d, wrote %v %v %d %d", i, got.Players, got.Score, got.Winner, got.Points, want.Players, want.Score, want.Winner, want.Points)
		}
	}
}

// TestMatCutShort writes every beginning of a game, cut after a roll, a
// turn or the first half of doubles, and reads it back (except a cut
// after a roll that cannot be played: the file reads as the pass).
func TestMatCutShort(t *testing.T) {
	acts := matGames(t, 20)
	halves := 0
	for _, game := range acts[:3] {
		s := money.NewInitialState().(*State)
		for n := range len(game) {
			if s.half {
				halves++
			}
			if n > 0 && game[n] == PassAction && !s.IsChanceNode() {
				// A roll without moves reads as the pass it allows.
				s.ApplyAction(game[n])
				continue
			}
			var b bytes.Buffer
			if err := WriteMat(&b, money, &Mat{Games: []MatGame{{Actions: game[:n]}}}); err != nil {
				t.Fatal(err)
			}
			m, err := ReadMat(&b, money)
			if err != nil || !slices.Equal(m.Games[0].Actions, game[:n]) || m.Games[0].Winner != -1 {
				t.Fatalf("the first %d actions: %v", n, err)
			}
			s.ApplyAction(game[n])
		}
	}
	if halves == 0 {
		t.Error("no game cut after the first half of doubles")
	}
}

// TestMatErrors checks that malformed or illegal records are refused with
// the line named.
func TestMatErrors(t *testing.T) {
	head := "\n 0 point match\n\n Game 1\n a : 0                            b : 0\n"
	for _, c := range []struct{ text, want string }{
		{"Game 1\n a : 0  b : 0\n", "no \"N point match\""},
		{" x point match\n", "line 1"},
		{head + "  1) 31: 8/4 6/5\n", "not a legal move"},
		{head + "  1) 33: 8/5 6/3\n", "double"},
		{head + "  1) 31: 8/5 6/5   Doubles => 2\n", "cube"},
		{head + "  1) 8/5 6/5\n", "without a roll"},
		{head + "  1) 31:                     42: 8/4 6/4\n", "has no moves"},
		{head + "  1) 31: 8/5 6/5            42: 8/4 6/4 8/6\n", "not a legal move"},
	} {
		_, err := ReadMat(strings.NewReader(c.text), money)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.text, err, c.want)
		}
	}
}

// TestMatGnubgImport has GNU Backgammon import our .mat files (a money
// session and a 1-point match) and compares what it read with our games:
// every turn's player, dice and position before it, and each game's winner
// and, for money play, the points won.
func TestMatGnubgImport(t *testing.T) {
	gnubg := refdatatest.Program(t, "gnubg", "apt-get install gnubg")
	if err := EnsureGnubgHome(); err != nil {
		t.Fatal(err)
	}
	acts := matGames(t, 8)
	dir := t.TempDir()
	var paths []string
	for i, a := range acts {
		m := &Mat{Games: []MatGame{{Players: [2]string{"tabula", "other"}, Actions: a}}}
		if i%2 == 1 {
			m.Length = 1
		}
		var b bytes.Buffer
		if err := WriteMat(&b, money, m); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("game-%d.mat", i))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	data := runGnubgScript(t, gnubg, "testdata/gnubg_import_mat.py", strings.Join(paths, "\n")+"\n")
	files := strings.Split(string(data), "file ")[1:]
	if len(files) != len(acts) {
		t.Fatalf("gnubg read %d files, want %d:\n%s", len(files), len(acts), data)
	}
	for i, f := range files {
		lines := strings.Split(strings.TrimSpace(f), "\n")[1:]
		// Our turns: the player, dice and position ID before each.
		var want []string
		s := money.NewInitialState().(*State)
		for _, a := range acts[i] {
			if s.chance {
				h, l := ActionRoll(a)
				s.ApplyAction(a)
				want = append(want, fmt.Sprintf("turn %s %d %d %s", "XO"[s.player:s.player+1], h, l, s.PositionID()))
				continue
			}
			s.ApplyAction(a)
		}
		w, pts := s.Points()
		wantGame := fmt.Sprintf("game %s %d", "XO"[w:w+1], pts)
		if len(lines) != len(want)+2 {
			t.Fatalf("file %d: gnubg read %d lines, want %d turns:\n%s", i, len(lines), len(want), strings.Join(lines, "\n"))
		}
		if got := lines[0]; (i%2 == 0 && got != wantGame) || (i%2 == 1 && !strings.HasPrefix(got, wantGame[:6])) {
			t.Errorf("file %d: gnubg has %q, want %q", i, got, wantGame)
		}
		for k, wl := range want {
			if lines[k+1] != wl {
				t.Fatalf("file %d turn %d: gnubg read %q, want %q", i, k+1, lines[k+1], wl)
			}
		}
		t.Logf("file %d: %d turns, %s; gnubg's final position %s, ours %s", i, len(want), lines[0], lines[len(lines)-1], PositionID(&s.pos, 1-w))
		if got := strings.TrimPrefix(lines[len(lines)-1], "end "); got != PositionID(&s.pos, 1-w) {
			t.Errorf("file %d: gnubg ends at %s, we at %s", i, got, PositionID(&s.pos, 1-w))
		}
	}
}

// TestMatReadsGnubgExports reads files gnubg wrote ("export match mat" of a
// 1 point match gnubg played against itself, cube off): one where the left
// column's player opened, one where the right column's did. ReadMat checks
// each move's legality and the "Wins" line against the position reached.
func TestMatReadsGnubgExports(t *testing.T) {
	for _, c := range []struct {
		file, opener string
		resigned     bool
	}{
		{"testdata/gnubg-left-opens.mat", "gnubg", false},
		{"testdata/gnubg-right-opens.mat", "root", true}, // gnubg resigned before the end
	} {
		f, err := os.Open(c.file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ReadMat(f, money)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if m.Length != 1 || len(m.Games) != 1 || m.Games[0].Players[0] != c.opener || m.Games[0].Winner < 0 || m.Games[0].Resigned != c.resigned {
			t.Errorf("%s: length %d, %d games, players %v, winner %d", c.file, m.Length, len(m.Games), m.Games[0].Players, m.Games[0].Winner)
		}
		var b bytes.Buffer
		if err := WriteMat(&b, money, m); err != nil {
			t.Fatal(err)
		}
		back, err := ReadMat(&b, money)
		if err != nil || !slices.Equal(back.Games[0].Actions, m.Games[0].Actions) || back.Games[0].Winner != map[bool]int{false: m.Games[0].Winner, true: -1}[c.resigned] {
			t.Errorf("%s: written again and read: %v", c.file, err)
		}
	}
}
