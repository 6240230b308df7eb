package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games/connect4"
)

// TestTerminalRecord plays a whole Connect Four game with -record and
// reads the Pons line back: the moves printed at the end, and the result.
func TestTerminalRecord(t *testing.T) {
	file := filepath.Join(t.TempDir(), "game.txt")
	script := strings.Repeat("1\n2\n3\n4\n5\n6\n7\n", 30)
	out, err := playSession(t, script, "-game", "connect4", "-player", "random", "-record", file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("%v\n%s", err, out[max(0, len(out)-500):])
	}
	defer f.Close()
	recs, err := connect4.ReadPons(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Result == "*" {
		t.Fatalf("records %+v", recs)
	}
	line := "game (connect4): " + (connect4.Game{}).FormatActions(recs[0].Actions) + "\n"
	if !strings.Contains(out, line) || !strings.Contains(out, "game record written to "+file) {
		t.Errorf("record %q does not match the session:\n%s", line, out[max(0, len(out)-500):])
	}
	_, err = playSession(t, "", "-game", "tictactoe", "-player", "random", "-record", file)
	if err == nil || !strings.Contains(err.Error(), "no record format") {
		t.Errorf("tictactoe -record: error %v", err)
	}
}
