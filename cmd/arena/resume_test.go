package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tabula/internal/progress"
	"tabula/match"
)

// untimed returns match records or a match's table without the players'
// times, which differ from run to run.
func untimed(s string) string {
	s = regexp.MustCompile(`,"think":\{[^}]*\}`).ReplaceAllString(s, "")
	return regexp.MustCompile(`(?m)^wall time a move: .*\n`).ReplaceAllString(s, "")
}

// TestMatchResume stops a match's records part way (whole games, then a
// line cut off mid-write, as a killed run leaves them) and resumes it: the
// file ends with the very games a run from start to end writes, and the
// same table; the PGN-like -pons file holds every game. Resuming a
// finished match plays nothing; records of another match are refused and
// the file is left as it was.
func TestMatchResume(t *testing.T) {
	dir := t.TempDir()
	args := func(out string, extra ...string) []string {
		return append([]string{"match", "-game", "connect4", "-players", "alphabeta:depth=2 greedy", "-games", "8",
			"-parallel", "2", "-seed", "9", "-random-plies", "2", "-out", out, "-quiet"}, extra...)
	}
	full := filepath.Join(dir, "full.jsonl")
	wantTable, _, err := runCmd(t, "", args(full)...)
	if err != nil {
		t.Fatal(err)
	}
	fullData, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(fullData), "\n")
	if len(lines) != 9 || lines[8] != "" {
		t.Fatalf("%d lines in the full run's records, want 8 games", len(lines)-1)
	}

	part := filepath.Join(dir, "part.jsonl")
	cut := strings.Join(lines[:3], "") + lines[3][:len(lines[3])/2]
	if err := os.WriteFile(part, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	pons := filepath.Join(dir, "games.pons")
	table, stderr, err := runCmd(t, "", args(part, "-resume", "-pons", pons)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dropped an unfinished last line", "3 of 8 games played already; playing the other 5"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if got, _ := os.ReadFile(part); untimed(string(got)) != untimed(string(fullData)) {
		t.Fatalf("resumed records:\n%s\nwant the full run's:\n%s", got, fullData)
	}
	if untimed(table) != untimed(wantTable) {
		t.Errorf("resumed table:\n%s\nwant the full run's:\n%s", table, wantTable)
	}
	if p, _ := os.ReadFile(pons); strings.Count(string(p), "\n") != 8 {
		t.Errorf("-pons holds %d games, want all 8:\n%s", strings.Count(string(p), "\n"), p)
	}

	// A finished match: nothing to play, the same table.
	table, stderr, err = runCmd(t, "", args(part, "-resume")...)
	if err != nil || untimed(table) != untimed(wantTable) || !strings.Contains(stderr, "playing the other 0") {
		t.Errorf("resuming a finished match: %v, stderr %q, table\n%s", err, stderr, table)
	}
	// A missing file starts the match.
	fresh := filepath.Join(dir, "fresh.jsonl")
	if table, _, err = runCmd(t, "", args(fresh, "-resume")...); err != nil || untimed(table) != untimed(wantTable) {
		t.Errorf("-resume with no file yet: %v, table\n%s", err, table)
	}

	// Another seed's records are refused, and kept.
	before, _ := os.ReadFile(part)
	wantError(t, "", append(args(part, "-resume"), "-seed", "10"), "-resume", "is not a game of this match", "another seed")
	wantError(t, "", []string{"match", "-game", "connect4", "-players", "greedy random", "-resume"}, "-resume needs -out")
	junk := filepath.Join(dir, "junk.jsonl")
	os.WriteFile(junk, []byte("{\"index\":0}\nnot json\n"), 0o644)
	wantError(t, "", args(junk, "-resume"), "junk.jsonl:1", "a game of \"\"")
	if after, _ := os.ReadFile(part); string(after) != string(before) {
		t.Fatal("a refused resume changed the records")
	}
}

// TestTallyDropForfeits tallies a match with a forfeited game: with
// -drop-forfeits the forfeit and its mirror game are left out and said so,
// the rest counted; without, the forfeit counts and is listed.
func TestTallyDropForfeits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "games.jsonl")
	if _, _, err := runCmd(t, "", "match", "-game", "connect4", "-players", "alphabeta:depth=2 greedy", "-games", "6",
		"-seed", "3", "-random-plies", "2", "-out", path, "-quiet"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	var r match.GameRecord
	if err := json.Unmarshal([]byte(lines[3]), &r); err != nil {
		t.Fatal(err)
	}
	r.Winner = 1
	r.Forfeit = &match.ForfeitRecord{Side: 0, Player: r.Players[0], Reason: "engine timed out"}
	b, _ := json.Marshal(r)
	lines[3] = string(b) + "\n"
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)

	all, _, err := runCmd(t, "", "tally", "-in", path)
	if err != nil || !strings.Contains(all, "1 game(s) forfeited") {
		t.Fatalf("tally: %v\n%s", err, all)
	}
	kept, _, err := runCmd(t, "", "tally", "-in", path, "-drop-forfeits")
	if err != nil {
		t.Fatal(err)
	}
	total := regexp.MustCompile(`\[0\] alphabeta:depth=2 +- +(\d+)-(\d+)-(\d+)`).FindStringSubmatch(kept)
	if !strings.Contains(kept, "2 game(s) left out: forfeits and their mirror games") || strings.Contains(kept, "forfeited") ||
		total == nil || atoi(total[1])+atoi(total[2])+atoi(total[3]) != 4 || !strings.Contains(kept, "2 pairs") {
		t.Errorf("tally -drop-forfeits:\n%s", kept)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// TestMatchResumeProgress checks that a resumed match's progress counts the
// games this run plays, so that its time estimate comes from them alone.
func TestMatchResumeProgress(t *testing.T) {
	defer func(d time.Duration) { progress.LineEvery = d }(progress.LineEvery)
	progress.LineEvery = 0
	out := filepath.Join(t.TempDir(), "games.jsonl")
	args := []string{"match", "-game", "connect4", "-players", "alphabeta:depth=2 greedy", "-games", "4",
		"-parallel", "1", "-seed", "9", "-out", out}
	if _, _, err := runCmd(t, "", args...); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(out, []byte(strings.Join(lines[:3], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runCmd(t, "", append(args, "-resume")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "games (3 played before): 1/1") || strings.Contains(stderr, "4/4") {
		t.Errorf("resumed progress does not count this run's games alone:\n%s", stderr)
	}
}
