package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games/chess"
	"tabula/internal/refdata/refdatatest"
	"tabula/match"
	"tabula/search/book"
)

// TestMatchPGN writes a chess match (from data/chess/openings.txt, with a
// ply cap) to a PGN file and reads it back with games/chess's reader: the
// same moves and results as the JSON records, the Seven Tag Roster with the
// players' names, alphabeta's values as comments on its moves and none on
// random's. Debian's polyglot make-book then reads the file and must build
// the same book as search/book from the games read back.
func TestMatchPGN(t *testing.T) {
	dir := t.TempDir()
	out, pgnPath := filepath.Join(dir, "games.jsonl"), filepath.Join(dir, "games.pgn")
	if _, _, err := runCmd(t, "", "match", "-game", "chess:maxplies=40", "-players", "alphabeta:depth=1 random",
		"-games", "4", "-openings", "../../data/chess/openings.txt", "-out", out, "-pgn", pgnPath, "-quiet"); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(pgnPath)
	if err != nil {
		t.Fatal(err)
	}
	pgn, err := chess.ParsePGN(string(text))
	if err != nil {
		t.Fatalf("reading back %s: %v\n%s", pgnPath, err, text)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []match.GameRecord
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r match.GameRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 4 || len(pgn) != 4 {
		t.Fatalf("%d JSON records and %d PGN games, want 4 of each", len(recs), len(pgn))
	}
	for i, r := range recs {
		g := pgn[i]
		var uci []string
		for _, m := range g.Moves {
			uci = append(uci, m.String())
		}
		if got := strings.Join(uci, " "); got != r.Moves {
			t.Errorf("game %d: PGN moves %s, JSON %s", r.Index, got, r.Moves)
		}
		want := map[int]string{0: "1-0", 1: "0-1", -1: "1/2-1/2"}[r.Winner]
		if g.Result != want || g.Tag("Result") != want {
			t.Errorf("game %d: result %q, tag %q, want %s", r.Index, g.Result, g.Tag("Result"), want)
		}
		if g.Tag("White") != r.Players[0] || g.Tag("Black") != r.Players[1] || g.Tag("Event") == "" || g.Tag("Date") == "" || g.Tag("Site") == "" {
			t.Errorf("game %d: tags %v", r.Index, g.Tags)
		}
		if len(g.Comments) != len(g.Moves) {
			t.Fatalf("game %d: %d comments for %d moves", r.Index, len(g.Comments), len(g.Moves))
		}
		valued := 0
		for k, c := range g.Comments {
			mover := r.Players[k%2]
			switch {
			case c != "" && mover == "random":
				t.Errorf("game %d: comment %q on random's move %d", r.Index, c, k+1)
			case strings.HasPrefix(c, "value "):
				valued++
			}
		}
		if valued == 0 {
			t.Errorf("game %d: no move carries alphabeta's value", r.Index)
		}
	}

	if _, _, err := runCmd(t, "", "match", "-game", "connect4", "-players", "random random", "-games", "1", "-pgn", pgnPath, "-quiet"); err == nil || !strings.Contains(err.Error(), "no PGN") {
		t.Errorf("connect4 -pgn: error %v, want a refusal", err)
	}

	prog := refdatatest.Program(t, "polyglot", "apt-get install polyglot")
	bin := filepath.Join(dir, "book.bin")
	cmd := exec.Command(prog, "make-book", "-pgn", pgnPath, "-bin", bin, "-min-game", "1")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("polyglot make-book: %v\n%s", err, msg)
	}
	theirs, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := book.Build(pgn, book.BuildConfig{MaxPly: 1024, MinGame: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(theirs) == 0 || !bytes.Equal(theirs, book.Marshal(entries)) {
		t.Errorf("polyglot's book from the PGN file (%d bytes) differs from search/book's from the games read back (%d entries)", len(theirs), len(entries))
	}
}
