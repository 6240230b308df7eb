package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games/chess"
	"tabula/search/book"
)

// TestArenaRecords reads arena's JSON lines: a chess game won by the
// second mover, a draw, a forfeit and a Connect Four game (both passed
// over), then builds a negamax book from them; an illegal move is refused
// by line and move.
func TestArenaRecords(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "games.jsonl")
	lines := []string{
		`{"index":0,"game":"chess","players":["a","b"],"seats":[0,1],"moves":"f2f3 e7e5 g2g4 d8h4","result":[-1,1],"winner":1}`,
		`{"index":1,"game":"chess","players":["b","a"],"seats":[1,0],"moves":"e2e4 e7e5","result":[0,0],"winner":-1}`,
		`{"index":2,"game":"chess","players":["a","b"],"seats":[0,1],"moves":"d2d4","result":[-1,1],"winner":1,"forfeit":{"seat":0,"reason":"crash"}}`,
		`{"index":3,"game":"connect4","players":["a","b"],"seats":[0,1],"moves":"4 4 4","result":[1,-1],"winner":0}`,
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gs, err := readGames(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || gs[0].Result != "0-1" || len(gs[0].Moves) != 4 || gs[1].Result != "1/2-1/2" {
		t.Fatalf("games %+v, want the fool's mate won by Black and a draw", gs)
	}
	out := filepath.Join(dir, "book.bin")
	cfg := book.BuildConfig{MaxPly: 10, MinGame: 1, Mode: book.ModeNegamax}
	if err := run(out, cfg, []string{in}); err != nil {
		t.Fatal(err)
	}
	b, err := book.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	p := chess.StartPosition()
	if m, ok := b.Best(&p); !ok || p.SAN(m) != "e4" {
		t.Errorf("best first move %v %v, want e4 (a draw, where f3 lost)", m, ok)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"game":"chess","moves":"e2e4 e2e4","winner":0}`+"\n"), 0o644)
	if _, err := readGames(bad); err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), "move 2") {
		t.Errorf("illegal move: %v, want an error naming line 1, move 2", err)
	}
	if err := run(out, cfg, nil); err == nil {
		t.Error("no input files: no error")
	}
}
