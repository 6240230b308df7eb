package main

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/sgf"
	"tabula/internal/refdata/refdatatest"
	"tabula/match"
	"tabula/nn"
)

// TestMatchSGF writes a Go match as SGF files and reads them back: the same
// moves as the JSON records, the players' names, the net player's values.
func TestMatchSGF(t *testing.T) {
	g, _ := games.New("go:size=5")
	p, h, w := g.ObservationShape()
	cfg := nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}
	wt, err := nn.NewWeights(cfg, nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.tbn")
	if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: g.Name(), Weights: wt}); err != nil {
		t.Fatal(err)
	}
	out, sgfDir := filepath.Join(dir, "games.jsonl"), filepath.Join(dir, "sgf")
	if _, _, err := runCmd(t, "", "match", "-players", "net:path="+path+",sims=4 random", "-games", "2", "-out", out, "-sgf", sgfDir, "-quiet"); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for ; sc.Scan(); n++ {
		var r match.GameRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(filepath.Join(sgfDir, "game-0000"+string(rune('0'+r.Index))+".sgf"))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := sgf.Read(file)
		file.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := g.(games.Notation).FormatActions(rec.Actions()); got != r.Moves {
			t.Errorf("game %d: SGF moves %s, JSON %s", r.Index, got, r.Moves)
		}
		if rec.Black != r.Players[0] || rec.White != r.Players[1] || rec.Result == "?" || rec.Result == "" {
			t.Errorf("game %d: PB %q PW %q RE %q", r.Index, rec.Black, rec.White, rec.Result)
		}
		valued := 0
		for _, m := range rec.Moves {
			if m.HasValue {
				valued++
				if m.Value < -1 || m.Value > 1 || (r.Players[m.Color] == "random") {
					t.Errorf("game %d: value %v on a move of %s", r.Index, m.Value, r.Players[m.Color])
				}
			}
		}
		if valued == 0 {
			t.Errorf("game %d: no move has the net's value", r.Index)
		}
	}
	if n != 2 {
		t.Fatalf("%d records, want 2", n)
	}
	_, _, err = runCmd(t, "", "match", "-game", "connect4", "-players", "random random", "-games", "1", "-sgf", sgfDir, "-quiet")
	if err == nil || !strings.Contains(err.Error(), "no SGF") {
		t.Errorf("connect4 -sgf: error %v", err)
	}
}

// TestMatchResignation plays a shell-script GTP engine that resigns at its
// first genmove: arena reports the games as resignations, not forfeits,
// and the SGF files say W+R or B+R.
func TestMatchResignation(t *testing.T) {
	sh := refdatatest.Program(t, "sh", "a POSIX shell")
	dir := t.TempDir()
	script := filepath.Join(dir, "resigner.sh")
	body := "#!" + sh + `
while read -r id cmd rest; do
  case "$cmd" in
    genmove) printf '=%s resign\n\n' "$id" ;;
    *) printf '=%s \n\n' "$id" ;;
  esac
done
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	sgfDir := filepath.Join(dir, "sgf")
	stdout, _, err := runCmd(t, "", "match", "-game", "go:size=5", "-players", "gtp:cmd="+script+",timeout=10s random", "-games", "2", "-sgf", sgfDir, "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "2 game(s) ended by resignation") || strings.Contains(stdout, "forfeit") {
		t.Errorf("arena's report:\n%s", stdout)
	}
	for i, want := range []string{"RE[W+R]", "RE[B+R]"} { // the engine is black in game 0, white in game 1
		b, err := os.ReadFile(filepath.Join(sgfDir, "game-0000"+string(rune('0'+i))+".sgf"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) || !strings.Contains(string(b), "resigned") {
			t.Errorf("game %d: %s lacks %s", i, b, want)
		}
	}
}
