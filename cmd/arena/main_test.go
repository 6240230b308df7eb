package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"tabula/bench"
	"tabula/games"
	"tabula/internal/refdata/refdatatest"
	"tabula/nn"
	"tabula/search/c4solver"
)

func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, e strings.Builder
	err = run(context.Background(), args, strings.NewReader(stdin), &o, &e)
	return o.String(), e.String(), err
}

func TestMatchOutputAndRecords(t *testing.T) {
	out := filepath.Join(t.TempDir(), "games.jsonl")
	stdout, _, err := runCmd(t, "", "match", "-game", "connect4", "-players", "alphabeta:depth=2,random greedy",
		"-games", "4", "-parallel", "2", "-seed", "5", "-out", out, "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[0] alphabeta:depth=2", "[1] random", "[2] greedy", "Elo (anchor [0] = 0; 95% interval)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// Each row's total equals the sum of its cells.
	row := regexp.MustCompile(`(?m)^\[(\d)\] \S+\s+(.*)$`)
	rows := 0
	for _, m := range row.FindAllStringSubmatch(stdout, -1) {
		cells := strings.Fields(m[2])
		if len(cells) != 4 { // three opponents' cells (one "-") and the total
			continue
		}
		rows++
		var sum [3]int
		for _, c := range cells[:3] {
			if c == "-" {
				continue
			}
			var w, d, l int
			if _, err := fmtSscanWDL(c, &w, &d, &l); err != nil {
				t.Fatalf("cell %q: %v", c, err)
			}
			sum[0], sum[1], sum[2] = sum[0]+w, sum[1]+d, sum[2]+l
		}
		var w, d, l int
		if _, err := fmtSscanWDL(cells[3], &w, &d, &l); err != nil || [3]int{w, d, l} != sum || w+d+l != 8 {
			t.Errorf("row %s: total %s, cells sum to %v (8 games each)", m[1], cells[3], sum)
		}
	}
	if rows != 3 {
		t.Errorf("found %d table rows, want 3:\n%s", rows, stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, _ := games.New("connect4")
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var rec struct {
			Index   int
			Players [2]string
			Moves   string
			Result  [2]float64
			Winner  int
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if rec.Index != n {
			t.Errorf("line %d has index %d", n+1, rec.Index)
		}
		s, _, err := games.ParseAndReplay(g, rec.Moves)
		if err != nil || !s.IsTerminal() || s.Returns() != rec.Result {
			t.Errorf("line %d: moves %q do not replay to result %v (err %v)", n+1, rec.Moves, rec.Result, err)
		}
		n++
	}
	if n != 12 {
		t.Errorf("%d JSON lines, want 12", n)
	}
}

func fmtSscanWDL(s string, w, d, l *int) (int, error) {
	parts := strings.Split(s, "-")
	if len(parts) != 3 {
		return 0, os.ErrInvalid
	}
	for i, p := range []*int{w, d, l} {
		n := 0
		for _, c := range parts[i] {
			if c < '0' || c > '9' {
				return 0, os.ErrInvalid
			}
			n = 10*n + int(c-'0')
		}
		*p = n
	}
	return 3, nil
}

func TestMatchWithNet(t *testing.T) {
	g, _ := games.New("connect4")
	p, h, w := g.ObservationShape()
	cfg := nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}
	wt, err := nn.NewWeights(cfg, nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "my runs, all")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tiny.tbn")
	if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: g.Name(), Weights: wt}); err != nil {
		t.Fatal(err)
	}
	// A path with a space and a comma, quoted; no -game: the checkpoint's.
	quoted := `net:path="` + path + `",sims=16`
	stdout, _, err := runCmd(t, "", "match", "-players", quoted+",random", "-games", "2", "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, quoted) || !strings.Contains(stdout, "connect4:") {
		t.Errorf("output lacks the net player or the game:\n%s", stdout)
	}
	// A file that is not a checkpoint says so.
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("not a network\n"), 0o644)
	_, _, err = runCmd(t, "", "match", "-game", "connect4", "-players", `net:path="`+notes+`" random`, "-games", "1", "-quiet")
	if err == nil || !strings.Contains(err.Error(), "not a tabula checkpoint") {
		t.Errorf("a text file as a checkpoint: error %v", err)
	}
	// The checkpoint is for connect4: othello refuses it, naming the file.
	_, _, err = runCmd(t, "", "match", "-game", "othello:size=6", "-players", quoted+" random", "-games", "1", "-quiet")
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("net for the wrong game: error %v", err)
	}
}

func TestBenchCommand(t *testing.T) {
	src := refdatatest.Path(t, "connect4", "Test_L3_R1")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", 9)[:8]
	dir := t.TempDir()
	pos := filepath.Join(dir, "pos.txt")
	if err := os.WriteFile(pos, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bench.jsonl")
	stdout, _, err := runCmd(t, "", "bench", "-game", "connect4", "-player", "solver:tt=16", "-positions", pos, "-out", out, "-scores", "-solver-tt", "18", "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "8 positions, 0 mistakes (0.0% [0.0%, 32.4%])") || !strings.Contains(stdout, "4 positions (50.0%) admit a mistake") {
		t.Errorf("bench output: %s", stdout)
	}
	f, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	jl := strings.Split(strings.TrimSpace(string(f)), "\n")
	if len(jl) != 8 {
		t.Fatalf("%d JSON lines, want 8", len(jl))
	}
	for i, l := range jl {
		var rec struct {
			Position string
			Move     int
			Value    *float64
			Outcomes [7]int
			Scores   *[7]int
			Mistake  bool
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(lines[i])
		best := -1000
		for _, s := range rec.Scores {
			best = max(best, s)
		}
		if rec.Position != want[0] || rec.Scores == nil || rec.Value == nil || rec.Mistake || want[1] != itoa(best) {
			t.Errorf("line %d: %s (file: %s)", i+1, l, lines[i])
		}
	}
	// random makes mistakes somewhere in these.
	stdout, _, err = runCmd(t, "", "bench", "-player", "random", "-positions", pos, "-solver-tt", "18", "-quiet")
	if err != nil || !strings.Contains(stdout, "random on") {
		t.Errorf("bench random: %v\n%s", err, stdout)
	}
}

// TestBenchShippedVerdicts: without -verdicts, bench judges by the shipped
// verdicts of the positions file when they cover it, and says so on stderr
// when none do. The shipped file here has every outcome negated, so the
// solver's best moves count as mistakes: only a bench that read it finds any.
func TestBenchShippedVerdicts(t *testing.T) {
	src := refdatatest.Path(t, "connect4", "Test_L3_R1")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pos := filepath.Join(dir, "pos.txt")
	if err := os.WriteFile(pos, []byte(strings.Join(strings.SplitN(string(data), "\n", 9)[:8], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(pos)
	if err != nil {
		t.Fatal(err)
	}
	positions, err := bench.ReadPositions(f, pos)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	v, err := bench.SolveVerdicts(context.Background(), positions, 18, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v.Outcomes {
		for c, o := range v.Outcomes[i] {
			if o != c4solver.Invalid {
				v.Outcomes[i][c] = -o
			}
		}
	}
	known := filepath.Join(dir, "verdicts")
	if err := os.Mkdir(known, 0o755); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(known, "pos.txt.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runCmd(t, "", "bench", "-player", "solver:tt=16", "-positions", pos, "-known-verdicts", known, "-n", "6", "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, " 0 mistakes") || strings.Contains(stderr, "no shipped verdicts") {
		t.Errorf("bench did not judge by the shipped verdicts:\n%s%s", stdout, stderr)
	}
	stdout, stderr, err = runCmd(t, "", "bench", "-player", "solver:tt=16", "-positions", pos, "-known-verdicts", "", "-solver-tt", "18", "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "8 positions, 0 mistakes") || !strings.Contains(stderr, "no -verdicts file and no shipped verdicts for "+pos) {
		t.Errorf("bench without verdicts:\n%s%s", stdout, stderr)
	}
}

// TestBenchOthelloCommand benches the exact solver (no mistakes, no disc
// lost) and random on shipped Othello sets.
func TestBenchOthelloCommand(t *testing.T) {
	set8 := "../../data/othello/othello8-e08-12.txt"
	out := filepath.Join(t.TempDir(), "bench.jsonl")
	stdout, _, err := runCmd(t, "", "bench", "-game", "othello", "-player", "solver:tt=16", "-positions", set8, "-n", "10", "-out", out, "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	want := "solver:tt=16 on othello8-e08-12 (othello:size=8, 8-12 empties): 10 positions, 0 mistakes (0.0% [0.0%, 27.8%];"
	if !strings.Contains(stdout, want) || !strings.Contains(stdout, "mean disc loss 0.00, best move 100.0%") {
		t.Errorf("bench output: %s\nwant %q", stdout, want)
	}
	f, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	jl := strings.Split(strings.TrimSpace(string(f)), "\n")
	if len(jl) != 10 {
		t.Fatalf("%d JSON lines, want 10", len(jl))
	}
	for _, l := range jl {
		var rec struct {
			Set, Bucket, Position, Move string
			Empties, Best, Score, Loss  int
			Scores                      []struct{ Move string }
			Mistake                     bool
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Set != "othello8-e08-12" || rec.Bucket != "8-12" || rec.Empties < 8 || rec.Empties > 12 ||
			rec.Loss != 0 || rec.Score != rec.Best || rec.Mistake || len(rec.Scores) < 2 {
			t.Errorf("record %s", l)
		}
	}
	stdout, _, err = runCmd(t, "", "bench", "-game", "othello", "-player", "random", "-positions", set8+","+set8, "-n", "50", "-quiet")
	if err != nil || strings.Count(stdout, "random on othello8-e08-12 (othello:size=8, 8-12 empties): 50 positions") != 2 {
		t.Errorf("bench random on two sets: %v\n%s", err, stdout)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestSolveCommand(t *testing.T) {
	src := refdatatest.Path(t, "connect4", "Test_L2_R1")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", 7)[:6]
	stdout, _, err := runCmd(t, strings.Join(lines, "\n"), "solve", "-game", "connect4", "-tt", "18")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(stdout); got != strings.Join(lines, "\n") {
		t.Errorf("solve output\n%s\nwant the file's lines\n%s", got, strings.Join(lines, "\n"))
	}
	stdout, _, err = runCmd(t, strings.Fields(lines[0])[0]+"\n", "solve", "-all", "-tt", "18")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(stdout)
	best := -1000
	for _, s := range f[1:] {
		var v int
		_ = json.Unmarshal([]byte(s), &v)
		best = max(best, v)
	}
	if len(f) != 8 || itoa(best) != strings.Fields(lines[0])[1] {
		t.Errorf("-all output %q: want moves and 7 scores whose best is %s", stdout, strings.Fields(lines[0])[1])
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	badPos := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(badPos, []byte("4453\n4444444\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	goodPos := filepath.Join(dir, "good.txt")
	if err := os.WriteFile(goodPos, []byte("2252576253462244111563365343671351441 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		stdin string
		want  []string
	}{
		{nil, "", []string{"no subcommand"}},
		{[]string{"duel"}, "", []string{`unknown subcommand "duel"`, "match, bench, solve"}},
		{[]string{"match", "-game", "shogi", "-players", "random random"}, "", []string{`unknown game "shogi"`, "connect4"}},
		{[]string{"match", "-players", "random random"}, "", []string{"-game is required", "no net player"}},
		{[]string{"match", "-game", "connect4", "-players", "random random", "-random-plies", "42"}, "", []string{"-random-plies 42", "0 to 41"}},
		{[]string{"match", "-game", "connect4", "-players", "alphabeta:depth=2,nodes=5 random"}, "", []string{"one limit"}},
		{[]string{"bench", "-player", "random", "-positions", goodPos, "-verdicts", filepath.Join(dir, "nonexistent", "v.json")}, "", []string{"does not exist"}},
		{[]string{"solve"}, "", []string{"no positions"}},
		{[]string{"solve", "-all"}, "1212121\n", []string{"stdin:1", "game is over"}},
		{[]string{"solve"}, "1212121\n", []string{"stdin:1", "game is over"}},
		{[]string{"match", "-game", "connect4", "-players", "random rnd"}, "", []string{`unknown kind "rnd"`, "valid kinds"}},
		{[]string{"match", "-game", "connect4", "-players", "random"}, "", []string{"at least 2"}},
		{[]string{"match", "-game", "connect4", "-players", "alphabeta:depth=99 random"}, "", []string{`depth="99"`, "1..64"}},
		{[]string{"match", "-game", "connect4", "-players", "random random", "-games", "0", "-quiet"}, "", []string{"games = 0"}},
		{[]string{"match", "-game", "go:size=5", "-players", "solver random"}, "", []string{"connect4 and othello only"}},
		{[]string{"match", "-game", "connect4", "-players", "random random", "-out", filepath.Join(dir, "no", "such", "dir", "x.jsonl")}, "", []string{"no/such/dir"}},
		{[]string{"bench", "-player", "random", "-positions", filepath.Join(dir, "missing.txt")}, "", []string{"missing.txt"}},
		{[]string{"bench", "-player", "random", "-positions", badPos}, "", []string{"bad.txt:2", "illegal move"}},
		{[]string{"bench", "-game", "othello", "-player", "random", "-positions", badPos}, "", []string{"bad.txt:1:", "othello move"}},
		{[]string{"bench", "-game", "othello:size=6", "-player", "random", "-positions", "../../data/othello/othello8-e08-12.txt"}, "", []string{"othello8-e08-12.txt:2", "othello:size=8, not othello:size=6"}},
		{[]string{"bench", "-game", "go:size=5", "-player", "random", "-positions", badPos}, "", []string{"needs connect4 or othello"}},
		{[]string{"solve", "-tt", "12"}, "2252576253462244111563365343671351441\nxyz\n", []string{"stdin:2"}},
		{[]string{"solve", "-game", "go"}, "", []string{"connect4 only"}},
		{[]string{"solve", "-tt", "99"}, "", []string{"table size"}},
		{[]string{"solve", "extra"}, "", []string{`unexpected argument "extra"`}},
		{[]string{"match", "-game", "chess", "-players", "random random", "-openings", filepath.Join(dir, "missing.epd")}, "", []string{"-openings", "missing.epd"}},
		{[]string{"match", "-game", "connect4", "-players", "random random", "-openings", "../../data/chess/openings.txt"}, "", []string{"openings line 10", "connect4"}},
	} {
		wantError(t, tc.stdin, tc.args, tc.want...)
	}
}

// wantError runs arena with args and checks that it fails with an error
// containing every string of want.
func wantError(t *testing.T, stdin string, args []string, want ...string) {
	t.Helper()
	_, _, err := runCmd(t, stdin, args...)
	if err == nil {
		t.Errorf("%q: no error", args)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q: error %q does not contain %q", args, err, w)
		}
	}
}

// TestVerdictsNotOverwritten runs bench with a -verdicts file made for
// other positions: it is refused (asking for another name or -force) and
// left as it was, and -force replaces it.
func TestVerdictsNotOverwritten(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(refdatatest.Path(t, "connect4", "Test_L3_R1"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(src), "\n", 7)[:6]
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte(strings.Join(lines[:3], "\n")+"\n"), 0o644)
	os.WriteFile(b, []byte(strings.Join(lines[3:], "\n")+"\n"), 0o644)
	v := filepath.Join(dir, "v.json")
	if _, _, err := runCmd(t, "", "bench", "-player", "random", "-positions", a, "-verdicts", v, "-solver-tt", "16", "-quiet"); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(v)
	_, _, err = runCmd(t, "", "bench", "-player", "random", "-positions", b, "-verdicts", v, "-solver-tt", "16", "-quiet")
	if err == nil || !strings.Contains(err.Error(), "other positions") || !strings.Contains(err.Error(), "-force") {
		t.Fatalf("verdicts of other positions: error %v, want a refusal naming -force", err)
	}
	if after, _ := os.ReadFile(v); string(after) != string(before) {
		t.Fatal("the verdicts file was overwritten")
	}
	if _, _, err := runCmd(t, "", "bench", "-player", "random", "-positions", b, "-verdicts", v, "-force", "-solver-tt", "16", "-quiet"); err != nil {
		t.Fatalf("-force: %v", err)
	}
	if after, _ := os.ReadFile(v); string(after) == string(before) {
		t.Fatal("-force did not replace the verdicts file")
	}
}

// TestMatchInterrupted cancels a long match: the table of the games played
// so far is still printed, and the error says it was interrupted.
func TestMatchInterrupted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Interrupt once a few games are on record.
	out := filepath.Join(t.TempDir(), "games.jsonl")
	go func() {
		for ctx.Err() == nil {
			if data, _ := os.ReadFile(out); strings.Count(string(data), "\n") >= 3 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	var o, e strings.Builder
	err := run(ctx, []string{"match", "-game", "connect4", "-players", "random greedy", "-games", "100000", "-parallel", "1", "-out", out, "-quiet"}, strings.NewReader(""), &o, &e)
	if err == nil || !strings.Contains(err.Error(), "interrupted after") || !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want interrupted", err)
	}
	for _, want := range []string{"interrupted: ", "[0] random", "[1] greedy", "Elo"} {
		if !strings.Contains(o.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, o.String())
		}
	}
}

// TestSolveLabelsAndFinished checks the column header on stderr (stdout
// stays one position a line) and that help states the score convention.
func TestSolveLabels(t *testing.T) {
	stdout, stderr, err := runCmd(t, "2252576253462244111563365343671351441\n", "solve", "-all", "-tt", "16")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "column 1 2 3 4 5 6 7") || strings.Contains(stdout, "#") || len(strings.Fields(stdout)) != 8 {
		t.Errorf("stdout %q stderr %q: want the header on stderr only", stdout, stderr)
	}
	stdout, stderr, err = runCmd(t, "2252576253462244111563365343671351441\n", "solve", "-tt", "16")
	if err != nil || !strings.Contains(stderr, "# moves score") || len(strings.Fields(stdout)) != 2 {
		t.Errorf("stdout %q stderr %q (%v)", stdout, stderr, err)
	}
	_, stderr, err = runCmd(t, "", "solve", "-h")
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr, "Pons' convention") || !strings.Contains(stderr, "22 minus the number of stones") {
		t.Errorf("solve -h: %v\n%s", err, stderr)
	}
}

// TestHelpFlags checks that -h on every subcommand prints its usage and
// exits 0, and that "arena help" lists every flag of every subcommand.
func TestHelpFlags(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"match", "-h"}, {"bench", "-h"}, {"solve", "-help"}} {
		stdout, stderr, err := runCmd(t, "", args...)
		var e strings.Builder
		if code := exitCode(err, &e); code != 0 || e.Len() != 0 {
			t.Errorf("%q: exit %d, %q", args, code, e.String())
		}
		if !strings.Contains(stdout+stderr, "usage") {
			t.Errorf("%q printed no usage", args)
		}
	}
	help, _, _ := runCmd(t, "", "help")
	for _, c := range commands {
		section := help[strings.Index(help, "\narena "+c.name+" "):]
		if next := strings.Index(section[1:], "\narena "); next >= 0 {
			section = section[:next+1]
		}
		fs := newFlags(c.name, io.Discard)
		c.define(fs)
		n := 0
		fs.VisitAll(func(f *flag.Flag) {
			n++
			if !strings.Contains(section, "  -"+f.Name+" ") && !strings.Contains(section, "  -"+f.Name+"\n") {
				t.Errorf("arena help: section %s lacks -%s", c.name, f.Name)
			}
		})
		if n < 2 {
			t.Errorf("%s defines %d flags", c.name, n)
		}
	}
	for _, want := range []string{"-known-verdicts", "-verdicts", "-force", "-n int", "-random-plies", "double quotes"} {
		if !strings.Contains(help, want) {
			t.Errorf("arena help lacks %q", want)
		}
	}
}

// TestErrorPrefix checks that an error names the command once.
func TestErrorPrefix(t *testing.T) {
	for _, args := range [][]string{
		{"match", "-game", "connect4", "-players", "random random", "-games", "0", "-quiet"},
		{"bench", "-player", "random", "-positions", "/nonexistent.txt"},
		{"solve", "-tt", "99"},
		{"match", "-bogus"},
	} {
		_, _, err := runCmd(t, "", args...)
		var e strings.Builder
		if code := exitCode(err, &e); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		msg := e.String()
		if !strings.HasPrefix(msg, "arena "+args[0]+": ") || strings.Count(msg, "arena") != 1 || strings.Count(msg, args[0]+":") != 1 {
			t.Errorf("%q: message %q, want one prefix \"arena %s: \"", args, msg, args[0])
		}
	}
}

func TestHelp(t *testing.T) {
	stdout, _, err := runCmd(t, "", "help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"arena match", "alphabeta", "depth", "connect4"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}
