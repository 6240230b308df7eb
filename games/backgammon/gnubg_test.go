package backgammon

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tabula/internal/refdata/refdatatest"
)

// gnubgPositions is the number of (position, roll) pairs checked against
// gnubg: about 15 s in one gnubg process (3000 took 30 s, all equal).
const gnubgPositions = 1500

// TestMovesMatchGnubg checks move generation against GNU Backgammon: for
// thousands of positions from random games (bar, hits and bear-offs
// included) and random rolls, the set of positions our legal turns reach
// (both halves of doubles played out) must equal the set gnubg's legal
// moves reach, compared by gnubg position ID; and for non-doubles each of
// gnubg's move strings must parse to the turn reaching its position and be
// what FormatMove writes for that turn.
func TestMovesMatchGnubg(t *testing.T) {
	gnubg := refdatatest.Program(t, "gnubg", "apt-get install gnubg")
	// gnubg fails ("File exists") when another gnubg, e.g. another
	// package's test, creates its settings folder while it starts.
	if err := EnsureGnubgHome(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(13, 17))
	type query struct {
		pos    Position
		d1, d2 int
	}
	var qs []query
	var in strings.Builder
	for _, q := range randomPositions(rng, gnubgPositions) {
		d1, d2 := 1+rng.IntN(6), 1+rng.IntN(6)
		qs = append(qs, query{q, max(d1, d2), min(d1, d2)})
		fmt.Fprintf(&in, "%s %d %d\n", PositionID(&q, 0), max(d1, d2), min(d1, d2))
	}
	start := time.Now()
	data := runGnubgScript(t, gnubg, "testdata/gnubg_moves.py", in.String())
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != len(qs) {
		t.Fatalf("gnubg answered %d positions, want %d", len(lines), len(qs))
	}
	turnsTotal, textChecked := 0, 0
	for i, line := range lines {
		q := qs[i]
		fields := strings.Split(line, "\t")
		if want := fmt.Sprintf("%s %d %d", PositionID(&q.pos, 0), q.d1, q.d2); fields[0] != want {
			t.Fatalf("gnubg line %d is for %q, want %q", i, fields[0], want)
		}
		theirs := map[string]string{} // position ID after -> move
		for _, f := range fields[1:] {
			mv, id, _ := strings.Cut(f, "|")
			theirs[id] = mv
		}
		s := decision(t, q.pos, q.d1, q.d2)
		ours := map[string]bool{}
		for after := range turns(s) {
			ours[PositionID(&after, 0)] = true
		}
		if len(theirs) == 0 { // gnubg lists no move: we must only pass
			theirs[PositionID(&q.pos, 0)] = "pass"
		}
		var missing, extra []string
		for id, mv := range theirs {
			if !ours[id] {
				missing = append(missing, mv)
			}
		}
		for id := range ours {
			if _, ok := theirs[id]; !ok {
				extra = append(extra, id)
			}
		}
		if len(missing)+len(extra) > 0 {
			slices.Sort(missing)
			t.Fatalf("position %s roll %d-%d:\n%s\ngnubg's moves we lack: %q\npositions we reach that gnubg does not: %q",
				PositionID(&q.pos, 0), q.d1, q.d2, s, missing, extra)
		}
		turnsTotal += len(ours)
		if q.d1 == q.d2 {
			continue
		}
		for id, mv := range theirs {
			if mv == "pass" {
				continue
			}
			a, err := s.ParseMove(mv)
			if err != nil {
				t.Fatalf("position %s roll %d-%d: gnubg's move %q: %v", PositionID(&q.pos, 0), q.d1, q.d2, mv, err)
			}
			c := s.Clone().(*State)
			c.ApplyAction(a)
			if got := PositionID(&c.pos, 0); got != id {
				t.Fatalf("position %s roll %d-%d: gnubg's move %q parsed to a turn reaching %s, want %s", PositionID(&q.pos, 0), q.d1, q.d2, mv, got, id)
			}
			if got := s.FormatMove(a); got != mv {
				t.Errorf("position %s roll %d-%d: FormatMove writes %q, gnubg %q", PositionID(&q.pos, 0), q.d1, q.d2, got, mv)
			}
			textChecked++
		}
	}
	t.Logf("%d positions and rolls, %d legal turns equal to gnubg's; %d move strings equal; gnubg took %v",
		len(qs), turnsTotal, textChecked, time.Since(start).Round(time.Millisecond))
}

// runGnubgScript runs gnubg's embedded Python on script with in as the file
// named by TABULA_GNUBG_IN, and returns what the script wrote to the file
// named by TABULA_GNUBG_OUT.
func runGnubgScript(t *testing.T, gnubg, script, in string) []byte {
	t.Helper()
	dir := t.TempDir()
	inPath, outPath := filepath.Join(dir, "in.txt"), filepath.Join(dir, "out.txt")
	if err := os.WriteFile(inPath, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gnubg, "-t", "-q", "-p", abs)
	cmd.Stdin = strings.NewReader("")
	cmd.Env = append(os.Environ(), "TABULA_GNUBG_IN="+inPath, "TABULA_GNUBG_OUT="+outPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gnubg: %v\n%s", err, out)
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
