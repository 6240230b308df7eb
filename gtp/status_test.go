package gtp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tabula/games/sgf"
)

// deadStoneScript sets up a 5x5 position: two black groups with three
// single-point eyes each (rows 5 and 4, rows 2 and 1) and a lone white
// stone at C3 between them, which black captures in every playout.
const deadStoneScript = "boardsize 5\nclear_board\n" +
	"play b B5\nplay b D5\nplay b A4\nplay b B4\nplay b C4\nplay b D4\nplay b E4\n" +
	"play b A2\nplay b B2\nplay b C2\nplay b D2\nplay b E2\nplay b B1\nplay b D1\nplay w C3\n"

func TestFinalStatusList(t *testing.T) {
	e := newTestEngine(t, "go:size=5", &firstLegal{})
	resps := session(t, e, deadStoneScript+"final_status_list dead\nfinal_status_list alive\nfinal_status_list seki\nfinal_status_list bogus\nfinal_status_list\n")
	resps = resps[len(resps)-5:]
	if resps[0] != "= C3" {
		t.Errorf("dead: %q, want C3", resps[0])
	}
	alive := strings.Split(strings.TrimPrefix(resps[1], "= "), "\n")
	if len(alive) != 2 {
		t.Fatalf("alive: %q, want two groups", resps[1])
	}
	var stones []string
	for _, g := range alive {
		stones = append(stones, strings.Fields(g)...)
	}
	slices.Sort(stones)
	want := []string{"A2", "A4", "B1", "B2", "B4", "B5", "C2", "C4", "D1", "D2", "D4", "D5", "E2", "E4"}
	if !slices.Equal(stones, want) {
		t.Errorf("alive stones %v, want %v", stones, want)
	}
	if resps[2] != "= " {
		t.Errorf("seki: %q, want the empty list", resps[2])
	}
	if !strings.HasPrefix(resps[3], "? syntax error") || !strings.HasPrefix(resps[4], "? syntax error") {
		t.Errorf("bad arguments: %q %q", resps[3], resps[4])
	}
	// Othello has no dead stones.
	o := newTestEngine(t, "othello:size=8", &firstLegal{})
	if r := session(t, o, "final_status_list dead\n"); !strings.HasPrefix(r[0], "? final_status_list is for go") {
		t.Errorf("othello: %q", r)
	}
}

func TestKataGetRules(t *testing.T) {
	e := newTestEngine(t, "go:size=9,komi=6.5", &firstLegal{})
	r := session(t, e, "kata-get-rules\n")
	var rules map[string]any
	if err := json.Unmarshal([]byte(strings.TrimPrefix(r[0], "= ")), &rules); err != nil {
		t.Fatalf("%q: %v", r[0], err)
	}
	for k, v := range map[string]any{"ko": "POSITIONAL", "scoring": "AREA", "suicide": false, "tax": "NONE", "komi": 6.5, "hasButton": false} {
		if rules[k] != v {
			t.Errorf("%s = %v, want %v (%s)", k, rules[k], v, r[0])
		}
	}
}

func TestLoadAndPrintSGF(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "game.sgf")
	e := newTestEngine(t, "go:size=9,komi=7", &firstLegal{})
	resps := session(t, e, "boardsize 7\nkomi 5.5\nplay b D4\nplay w C3\nplay b E5\nprintsgf "+file+"\nprintsgf\nshowboard\n")
	if resps[5] != "= " {
		t.Fatalf("printsgf FILE: %q", resps[5])
	}
	written, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimPrefix(resps[6], "= "); got != strings.TrimRight(string(written), "\n") {
		t.Errorf("printsgf answered\n%s\nand wrote\n%s", got, written)
	}
	rec, err := sgf.Parse(written)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Moves) != 3 || !strings.HasPrefix(rec.Game.Name(), "go:size=7,komi=5.5") {
		t.Errorf("the written game: %s with %d moves", rec.Game.Name(), len(rec.Moves))
	}
	board := resps[7]

	// A fresh engine on another board loads the file: size, komi, moves.
	f := newTestEngine(t, "go:size=9,komi=7", &firstLegal{})
	bad := filepath.Join(dir, "bad.sgf")
	if err := os.WriteFile(bad, []byte("(;GM[1]SZ[7];B[zz"), 0o644); err != nil {
		t.Fatal(err)
	}
	oth := filepath.Join(dir, "othello.sgf")
	if err := os.WriteFile(oth, []byte("(;GM[2]FF[4]SZ[8];B[fe])"), 0o644); err != nil {
		t.Fatal(err)
	}
	setup := filepath.Join(dir, "handicap.sgf")
	if err := os.WriteFile(setup, []byte("(;GM[1]FF[4]SZ[9]AB[cc][gg];B[ee])"), 0o644); err != nil {
		t.Fatal(err)
	}
	resps = session(t, f, "loadsgf "+file+"\nshowboard\nfinal_score\nloadsgf "+file+" 3\nprintsgf\n"+
		"loadsgf "+filepath.Join(dir, "missing.sgf")+"\nloadsgf "+bad+"\nloadsgf "+oth+"\nloadsgf "+setup+"\nloadsgf "+file+" 0\nloadsgf\n")
	if resps[0] != "= " || resps[1] != board {
		t.Errorf("after loadsgf: %q\n%s\nwant\n%s", resps[0], resps[1], board)
	}
	if !strings.HasPrefix(f.Position().Dialect().Game().Name(), "go:size=7,komi=5.5") {
		t.Errorf("loadsgf set the game %s", f.Position().Dialect().Game().Name())
	}
	r2, err := sgf.Parse([]byte(strings.TrimPrefix(resps[4], "= ")))
	if err != nil || len(r2.Moves) != 2 {
		t.Errorf("loadsgf FILE 3 kept %v moves (%v), want the 2 before move 3", r2, err)
	}
	for i, want := range []string{
		"? cannot load file: open " + filepath.Join(dir, "missing.sgf"),
		"? cannot load file " + bad + ": sgf",
		"? cannot load file " + oth + ": it is a game of othello",
		"? cannot load file " + setup + ": it sets up stones",
		"? syntax error: loadsgf move number",
		"? syntax error: loadsgf takes FILE",
	} {
		if got := resps[5+i]; !strings.HasPrefix(got, want) {
			t.Errorf("got %q, want %q...", got, want)
		}
	}
	// A failed load leaves the game as it was.
	if !strings.HasPrefix(f.Position().Dialect().Game().Name(), "go:size=7,komi=5.5") || len(f.Position().Moves()) != 2 {
		t.Errorf("after failed loads: %s, %d moves", f.Position().Dialect().Game().Name(), len(f.Position().Moves()))
	}
	// printsgf to a folder that does not exist fails with the reason.
	if r := session(t, f, "printsgf "+filepath.Join(dir, "no", "such", "x.sgf")+"\n"); !strings.HasPrefix(r[0], "? cannot write file") {
		t.Errorf("printsgf into a missing folder: %q", r)
	}
}
