package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The minutes column is the run's time: old lines' wall_seconds restart in
// each process and are summed; newer lines carry run_seconds.
func TestTableMinutesAreRunTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.jsonl")
	lines := []string{
		`{"iteration":1,"wall_seconds":600,"ladder":{"players":["best","random"],"elo":[10,0]}}`,
		`{"iteration":2,"wall_seconds":60}`, // a restart
		`{"iteration":3,"wall_seconds":120,"ladder":{"players":["best","random"],"elo":[20,0]}}`,
		`{"iteration":4,"wall_seconds":30,"run_seconds":1200,"ladder":{"players":["best","random"],"elo":[30,0]}}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(path, &out); err != nil {
		t.Fatal(err)
	}
	var minutes []string
	for _, row := range strings.Split(strings.TrimSpace(out.String()), "\n")[2:] {
		minutes = append(minutes, strings.TrimSpace(strings.Split(row, "|")[2]))
	}
	if got := strings.Join(minutes, " "); got != "10.0 12.0 20.0" {
		t.Fatalf("minutes %s, want 10.0 12.0 20.0:\n%s", got, out.String())
	}
}

// A skipped benchmark ({"skipped": reason}) is no result: its line reads,
// and makes no row by itself. Values written as null leave their cells
// empty.
func TestSkippedBenchAndNulls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.jsonl")
	lines := []string{
		`{"iteration":1,"wall_seconds":60,"bench":{"skipped":"no reference data"}}`,
		`{"iteration":2,"wall_seconds":120,"bench":{"Test_L1_R1":0.25,"Test_L2_R1":null},"ladder":{"players":["best","random"],"elo":[null,0],"scores":{"random":null}}}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(path, &out); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(rows) != 3 || rows[2] != "| 2 | 2.0 | 0 |  |  |  | 25.0% |  |" {
		t.Fatalf("table:\n%s", out.String())
	}
}

// The score columns say what they count: the games, and for a ladder
// scored in points (backgammon on money scoring) the points as well.
func TestScoreColumnsSayTheirUnit(t *testing.T) {
	for _, tc := range []struct{ line, head, row string }{
		{`{"iteration":1,"wall_seconds":60,"ladder":{"players":["best","random"],"elo":[10,0],"scores":{"random":0.75}}}`,
			"| iteration | minutes | steps | best | Elo (95%) | vs random (games) |", "| 1 | 1.0 | 0 |  | 10 | 75% |"},
		{`{"iteration":1,"wall_seconds":60,"ladder":{"players":["best","pubeval"],"elo":[10,0],"scores":{"pubeval":0.39},"score_unit":"points","game_scores":{"pubeval":0.42}}}`,
			"| iteration | minutes | steps | best | Elo (95%) | vs pubeval (points) | vs pubeval (games) |", "| 1 | 1.0 | 0 |  | 10 | 39% | 42% |"},
	} {
		path := filepath.Join(t.TempDir(), "metrics.jsonl")
		if err := os.WriteFile(path, []byte(tc.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := run(path, &out); err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(rows) != 3 || rows[0] != tc.head || rows[2] != tc.row {
			t.Errorf("table:\n%s\nwant\n%s\n%s", out.String(), tc.head, tc.row)
		}
	}
}
