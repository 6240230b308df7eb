package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEPDCommand scores a small search on the first positions of Win At
// Chess, and on a suite of two positions whose answers are sure at depth 2
// (a back-rank mate to find, a pawn capture that allows one to avoid).
func TestEPDCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "wac.jsonl")
	stdout, _, err := runCmd(t, "", "epd", "-file", "../../data/chess/wac.epd", "-player", "alphabeta:depth=2", "-n", "4", "-out", out, "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`alphabeta:depth=2 solved [0-4]/4 \(.*95% Wilson interval`).MatchString(stdout) {
		t.Errorf("epd output: %s", stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"id":"WAC.00`); n != 4 {
		t.Errorf("%d JSON lines of WAC positions, want 4:\n%s", n, data)
	}

	suite := filepath.Join(t.TempDir(), "mini.epd")
	const mini = "# two sure answers\n" +
		`6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm Ra8#; id "mate";` + "\n" +
		`4r1k1/5ppp/8/3p4/8/8/5PPP/3R2K1 w - - am Rxd5; id "avoid";` + "\n"
	if err := os.WriteFile(suite, []byte(mini), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, err = runCmd(t, "", "epd", "-file", suite, "-player", "alphabeta:depth=2", "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "solved 2/2 (100.0%, 95% Wilson interval 34.2-100.0%)") || strings.Contains(stdout, "failed") {
		t.Errorf("epd output on the sure suite: %s", stdout)
	}

	bad := filepath.Join(t.TempDir(), "bad.epd")
	if err := os.WriteFile(bad, []byte("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm Ra9;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "", "epd", "-file", bad, "-player", "alphabeta:depth=2"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad suite: %v, want an error naming line 1", err)
	}
	if _, _, err := runCmd(t, "", "epd", "-player", "alphabeta:depth=2"); err == nil || !strings.Contains(err.Error(), "-file") {
		t.Errorf("no -file: %v", err)
	}
}
