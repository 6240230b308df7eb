package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"tabula/bench"
	"tabula/internal/refdata/refdatatest"
)

// TestRateCommand rates recorded games and freshly played ones with gnubg:
// both players get a line, random loses more equity a turn than pubeval,
// and -out holds one verdict a turn.
func TestRateCommand(t *testing.T) {
	gnubg := refdatatest.Program(t, "gnubg", "apt-get install gnubg")
	dir := t.TempDir()
	games := filepath.Join(dir, "games.jsonl")
	if _, _, err := runCmd(t, "", "match", "-game", "backgammon", "-players", "pubeval random", "-games", "3", "-seed", "4", "-out", games, "-quiet"); err != nil {
		t.Fatal(err)
	}
	verdicts := filepath.Join(dir, "rated.jsonl")
	line := regexp.MustCompile(`(?m)^(pubeval|random)\s+(\d+)\s+(\d+)\s+([0-9.]+) \[`)
	loss := func(stdout string) map[string]float64 {
		t.Helper()
		got := map[string]float64{}
		for _, m := range line.FindAllStringSubmatch(stdout, -1) {
			v, err := strconv.ParseFloat(m[4], 64)
			if err != nil {
				t.Fatal(err)
			}
			got[m[1]] = v
		}
		if len(got) != 2 || got["random"] <= got["pubeval"] {
			t.Errorf("losses per unforced turn %v, want both players and random's the larger:\n%s", got, stdout)
		}
		return got
	}
	stdout, _, err := runCmd(t, "", "rate", "-in", games, "-games", "2", "-gnubg", gnubg, "-out", verdicts, "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	loss(stdout)
	if !strings.Contains(stdout, "gnubg 0-ply referee, backgammon, 2 games") {
		t.Errorf("output:\n%s", stdout)
	}
	f, err := os.Open(verdicts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, turns := 0, 0
	for sc.Scan() {
		var r bench.TurnRating
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Game > 1 || r.Before == "" || r.After == "" || r.Loss < -1e-9 {
			t.Fatalf("verdict %+v", r)
		}
		n++
	}
	for _, m := range line.FindAllStringSubmatch(stdout, -1) {
		k, _ := strconv.Atoi(m[2])
		turns += k
	}
	if n != turns || n == 0 {
		t.Errorf("%d verdicts written, the table counts %d turns", n, turns)
	}
	stdout, _, err = runCmd(t, "", "rate", "-players", "pubeval random", "-games", "2", "-seed", "4", "-gnubg", gnubg, "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	loss(stdout)
	for _, want := range []string{"mirrored pairs", "wins by points", "[0] pubeval"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestRateBadInput checks rate's errors (no gnubg needed).
func TestRateBadInput(t *testing.T) {
	dir := t.TempDir()
	c4 := filepath.Join(dir, "c4.jsonl")
	if _, _, err := runCmd(t, "", "match", "-game", "connect4", "-players", "random random", "-games", "2", "-out", c4, "-quiet"); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.jsonl")
	if err := os.WriteFile(junk, []byte("{\"game\":\"backgammon\"}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rate"}, "either -players"},
		{[]string{"rate", "-players", "pubeval random", "-in", c4}, "either -players"},
		{[]string{"rate", "-players", "pubeval random", "-plies", "9"}, "plies = 9"},
		{[]string{"rate", "-players", "pubeval"}, "want 2"},
		{[]string{"rate", "-in", c4}, `a game of "connect4", want backgammon`},
		{[]string{"rate", "-in", junk}, "junk.jsonl:2: not a game record"},
		{[]string{"rate", "-in", filepath.Join(dir, "missing.jsonl")}, "missing.jsonl"},
		{[]string{"rate", "-game", "connect4", "-players", "random random", "-games", "1"}, "gnubg rates backgammon"},
		{[]string{"rate", "-players", "pubeval random", "-games", "-1"}, "-games -1"},
	} {
		_, _, err := runCmd(t, "", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

// TestTallyCommand checks that tally prints what the match printed, from
// its records alone.
func TestTallyCommand(t *testing.T) {
	games := filepath.Join(t.TempDir(), "games.jsonl")
	match, _, err := runCmd(t, "", "match", "-game", "backgammon", "-players", "pubeval random greedy", "-games", "3", "-seed", "2", "-out", games, "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	tally, _, err := runCmd(t, "", "tally", "-in", games)
	if err != nil {
		t.Fatal(err)
	}
	pointPairs := regexp.MustCompile(`nets [+-][0-9.]+ points a game; over \d+ mirrored pairs [+-][0-9.]+ \[[+-][0-9.]+, [+-][0-9.]+\]`)
	if tally != match || !strings.Contains(tally, "mirrored pairs") || !strings.Contains(tally, "wins by points") || !pointPairs.MatchString(tally) {
		t.Errorf("tally printed\n%s\nthe match\n%s", tally, match)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tally"}, "-in FILE is required"},
		{[]string{"tally", "-in", games, "-anchor", "3"}, "-anchor 3"},
		{[]string{"tally", "-in", games, "-game", "connect4"}, `a game of "backgammon", want connect4`},
	} {
		if _, _, err := runCmd(t, "", tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

// TestRateMoneyRecords rates the recorded games of backgammon:scoring=money
// without -game: the game is the records', and -game backgammon refuses them.
func TestRateMoneyRecords(t *testing.T) {
	gnubg := refdatatest.Program(t, "gnubg", "apt-get install gnubg")
	games := filepath.Join(t.TempDir(), "money.jsonl")
	if _, _, err := runCmd(t, "", "match", "-game", "backgammon:scoring=money", "-players", "pubeval random", "-games", "2", "-seed", "3", "-out", games, "-quiet"); err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runCmd(t, "", "rate", "-in", games, "-games", "0", "-gnubg", gnubg, "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "gnubg 0-ply referee, backgammon:scoring=money, 2 games") {
		t.Errorf("output:\n%s", stdout)
	}
	if _, _, err := runCmd(t, "", "rate", "-game", "backgammon", "-in", games, "-gnubg", gnubg, "-quiet"); err == nil || !strings.Contains(err.Error(), `a game of "backgammon:scoring=money", want backgammon`) {
		t.Errorf("money records rated as -game backgammon: %v", err)
	}
}
