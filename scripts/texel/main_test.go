package main

import (
	"bytes"
	"context"
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games/connect4"
	"tabula/match"
	"tabula/players"
)

// writeRecords plays n Connect Four games between a depth-2 alpha-beta
// player and random play and writes them as arena match -out does.
func writeRecords(t *testing.T, path string, n int) {
	t.Helper()
	specs, err := players.ParseSpecs("alphabeta:depth=2 random")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := players.BuildAll(connect4.Game{}, specs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	cfg := match.MatchConfig{Games: n, Parallel: 1, Seed: 3, RandomPlies: 2, Record: func(r match.GameRecord) error {
		return json.NewEncoder(&b).Encode(r)
	}}
	if _, err := match.Match(context.Background(), cfg, connect4.Game{}, fs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunWritesWeights fits Connect Four weights to recorded games and
// checks the Go source written, the report, and the errors for records of
// another game, an unknown game or term, and a missing file.
func TestRunWritesWeights(t *testing.T) {
	dir := t.TempDir()
	rec, out := filepath.Join(dir, "games.jsonl"), filepath.Join(dir, "tuned.go")
	writeRecords(t, rec, 40)
	var stdout bytes.Buffer
	if err := run("connect4", rec, 2, "cross-entropy", -1, "", out, &stdout); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), out, src, 0); err != nil {
		t.Fatalf("generated source: %v\n%s", err, src)
	}
	if !strings.Contains(string(src), "var TunedWeights = [NumFeatures]float64{") {
		t.Errorf("generated source lacks TunedWeights:\n%s", src)
	}
	if !strings.Contains(stdout.String(), "40 games") {
		t.Errorf("report does not count 40 games:\n%s", stdout.String())
	}

	for _, c := range []struct {
		game, fix, want string
	}{
		{"chess", "", `a game of "connect4", want "chess"`},
		{"go", "", `-game "go"`},
		{"connect4", "nosuch", `no term name starts with "nosuch"`},
	} {
		err := run(c.game, rec, 2, "cross-entropy", -1, c.fix, "", &stdout)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("-game %s -fix %q: error %v, want one containing %q", c.game, c.fix, err, c.want)
		}
	}
	if err := run("connect4", filepath.Join(dir, "missing.jsonl"), 2, "ce", -1, "", "", &stdout); err == nil {
		t.Error("a missing records file: no error")
	}
}
