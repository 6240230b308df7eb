package sgf_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gogame"
	"tabula/games/othello"
	"tabula/games/sgf"
)

// randomGame plays up to n random moves of g (passes only when nothing
// else is legal, or at random one time in 30) and returns the actions and
// a value per move, NaN for every third move.
func randomGame(g games.Game, n int, rng *rand.Rand, pass int) ([]int, []float64) {
	s := g.NewInitialState()
	var acts []int
	var vals []float64
	var buf []int
	for len(acts) < n && !s.IsTerminal() {
		buf = s.LegalActions(buf[:0])
		a := buf[rng.IntN(len(buf))]
		for a == pass && len(buf) > 1 && rng.IntN(30) != 0 {
			a = buf[rng.IntN(len(buf))]
		}
		s.ApplyAction(a)
		acts = append(acts, a)
		v := math.Round((rng.Float64()*2-1)*1e4) / 1e4
		if len(acts)%3 == 0 {
			v = math.NaN()
		}
		vals = append(vals, v)
	}
	return acts, vals
}

func roundTrip(t *testing.T, g games.Game, acts []int, vals []float64) *sgf.Record {
	t.Helper()
	rec, err := sgf.FromActions(g, acts, vals)
	if err != nil {
		t.Fatal(err)
	}
	rec.Black, rec.White, rec.Date, rec.Rules = "net:sims=8 [a]", `gnugo\level`, "2024-05-01", "Chinese"
	rec.Moves[0].Comment = "first move\nsecond line ]"
	var b bytes.Buffer
	if err := sgf.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	got, err := sgf.Read(&b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if got.Game.Name() != g.Name() && !strings.HasPrefix(g.Name(), "othello") {
		// The length cap is not part of SGF; size and komi are.
		if gg, ok := got.Game.(*gogame.Game); !ok || gg.Size() != g.(*gogame.Game).Size() || gg.Komi() != g.(*gogame.Game).Komi() {
			t.Errorf("game %s, want %s", got.Game.Name(), g.Name())
		}
	}
	if got.Black != rec.Black || got.White != rec.White || got.Date != rec.Date || got.Result != rec.Result {
		t.Errorf("game information %q %q %q %q, want %q %q %q %q", got.Black, got.White, got.Date, got.Result, rec.Black, rec.White, rec.Date, rec.Result)
	}
	if len(got.Moves) != len(rec.Moves) {
		t.Fatalf("%d moves read, %d written", len(got.Moves), len(rec.Moves))
	}
	for i, m := range got.Moves {
		w := rec.Moves[i]
		if m.Color != w.Color || m.Action != w.Action || m.HasValue != w.HasValue || m.Comment != w.Comment || (m.HasValue && m.Value != w.Value) {
			t.Fatalf("move %d read as %+v, written %+v", i+1, m, w)
		}
	}
	want, _ := rec.Replay()
	fin, err := got.Replay()
	if err != nil || fin.String() != want.String() {
		t.Errorf("final position differs (%v):\n%s\nwant\n%s", err, fin, want)
	}
	return rec
}

func TestRoundTripGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{5, 9, 19} {
		g, err := gogame.New(size, 7.5, 0)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			acts, vals := randomGame(g, 1000, rng, g.Pass())
			rec := roundTrip(t, g, acts, vals)
			if s, _ := rec.Replay(); s.IsTerminal() && rec.Result == "?" {
				t.Errorf("finished game without a result")
			}
		}
	}
}

func TestRoundTripOthello(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	passes := 0
	for _, size := range []int{6, 8} {
		g, err := othello.New(size)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			acts, vals := randomGame(g, 1000, rng, g.Pass())
			roundTrip(t, g, acts, vals)
			for _, a := range acts {
				if a == g.Pass() {
					passes++
				}
			}
		}
	}
	if passes == 0 {
		t.Errorf("no pass in the games: the test does not cover them")
	}
}

// TestOthelloOmittedPass reads a file that leaves a forced pass out, as
// some programs write them, and the same game with the pass written.
func TestOthelloOmittedPass(t *testing.T) {
	g, _ := othello.New(8)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		acts, _ := randomGame(g, 1000, rng, g.Pass())
		i := -1
		for k, a := range acts {
			if a == g.Pass() && k+1 < len(acts) && acts[k+1] != g.Pass() {
				i = k
				break
			}
		}
		if i < 0 {
			continue
		}
		rec, err := sgf.FromActions(g, acts, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := sgf.Write(&b, rec); err != nil {
			t.Fatal(err)
		}
		color := "B"
		if rec.Moves[i].Color == 1 {
			color = "W"
		}
		text := strings.Replace(b.String(), ";"+color+"[]", "", 1)
		if text == b.String() {
			t.Fatalf("no pass node %s[] in\n%s", color, b.String())
		}
		got, err := sgf.Parse([]byte(text))
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		if len(got.Moves) != len(acts) || got.Moves[i].Action != g.Pass() {
			t.Fatalf("the forced pass was not restored: %d moves, want %d", len(got.Moves), len(acts))
		}
		return
	}
	t.Fatal("no game with a pass followed by a move")
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "no game tree"},
		{"hello", "outside a game tree"},
		{"(;GM[1]SZ[9]", "not closed"},
		{"(;GM[1]SZ[9];B[ee", "value opened here is not closed"},
		{"(;GM[3])", "GM[3]: the game is not go"},
		{"(;FF[9])", "FF[9]"},
		{"(;SZ[9:13])", "not square"},
		{"(;SZ[30])", "size=30 out of range"},
		{"(;SZ[9]KM[x])", "KM[x]"},
		{"(;SZ[9];B[ee];B[dd])", "move 2 B[dd]: white to move"},
		{"(;SZ[9];B[ee];W[ee])", "move 2 W[ee]: illegal move"},
		{"(;SZ[9];B[ee]W[dd])", "both B and W"},
		{"(;SZ[9];B[zz])", "off the 9x9 board"},
		{"(;SZ[9];B[abc])", "want a point of two letters"},
		{"(;SZ[9];B[ee]B[dd])", "appears twice"},
		{"(;SZ[9];B[ee];AB[dd])", "setup property AB after the first node"},
		{"(;SZ[9]AE[aa])", "AE"},
		{"(;SZ[9]AB[aa]AW[aa])", "black and a white stone"},
		{"(;SZ[9];b[ee])", "want a property name in capital letters"},
		{"(;SZ[9];B)", "has no value"},
		{"(;SZ[9];B[ee][dd])", "has 2 values"},
		{"(;GM[2]SZ[8];B[aa])", "illegal move"},
		{"(;GM[2]SZ[8]AB[aa])", "not those of the initial position"},
		{"(;GM[2]SZ[7])", "must be 6 or 8"},
		{"(;SZ[9](;B[ee]);W[dd])", "node after a variation"},
		{"(;SZ[9]PL[X])", "PL[X]"},
		{"()", "empty game tree"},
	} {
		_, err := sgf.Parse([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", c.in, err, c.want)
		}
		var se *sgf.SyntaxError
		if err != nil && strings.Contains(c.in, "[") && !errors.As(err, &se) {
			t.Errorf("Parse(%q): error %v is not a *SyntaxError with a line and column", c.in, err)
		}
	}
}

// TestReadsOthers reads files of the shapes other programs write: FF[3]
// with "tt" passes and variations (the main line is the first), a BOM,
// soft line breaks, and a GNU Go position with setup stones and white to
// move.
func TestReadsOthers(t *testing.T) {
	rec, err := sgf.Parse([]byte("\xef\xbb\xbf(;FF[3]GM[1]SZ[9]KM[6.5]PB[Some\\\nOne]C[a \\] b]\n;B[ee](;W[tt];B[cc])(;W[dd]))"))
	if err != nil {
		t.Fatal(err)
	}
	g := rec.Game.(*gogame.Game)
	if g.Komi() != 6.5 || rec.Black != "SomeOne" || rec.Comment != "a ] b" || len(rec.Moves) != 3 || rec.Moves[1].Action != g.Pass() {
		t.Errorf("read %+v", rec)
	}
	rec, err = sgf.Parse([]byte("(;GM[1]FF[4]\nSZ[9]\nGN[GNU Go 3.8 load and print]\nKM[0.0]HA[0]RU[Japanese]AP[GNU Go:3.8]AW[cf][cg]\nAB[de][ee]\nPL[W]\n;W[dd])"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := rec.Replay()
	if err != nil {
		t.Fatal(err)
	}
	want := ".........\n.........\n.........\n...O.....\n...XX....\n..O......\n..O......\n.........\n.........\n"
	gs := s.(*gogame.State)
	var b strings.Builder
	for p := range 81 {
		b.WriteByte(".XO"[gs.At(p)])
		if p%9 == 8 {
			b.WriteByte('\n')
		}
	}
	if b.String() != want {
		t.Errorf("position\n%s\nwant\n%s", b.String(), want)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("(;GM[1]SZ[9]KM[7.5];B[ee];W[];B[dd]C[value: 0.5])"))
	f.Add([]byte("(;GM[2]SZ[8];B[fe];W[de])"))
	f.Add([]byte("(;SZ[9]AB[aa][bb]PL[W](;W[cc])(;W[dd]))"))
	if fs, err := filepath.Glob("testdata/*.sgf"); err == nil {
		for _, p := range fs {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		rec, err := sgf.Parse(src)
		if err != nil {
			return
		}
		// What reads writes, and what it writes reads back the same.
		var b bytes.Buffer
		if err := sgf.Write(&b, rec); err != nil {
			t.Fatalf("read %q but cannot write it: %v", src, err)
		}
		back, err := sgf.Parse(b.Bytes())
		if err != nil {
			t.Fatalf("cannot read back %q: %v", b.String(), err)
		}
		if len(back.Moves) != len(rec.Moves) {
			t.Fatalf("%d moves read back, %d written", len(back.Moves), len(rec.Moves))
		}
	})
}
