package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two games of the network against GRhino level 5 (arena match -out,
// 2026-12-04): in game 12 the network, winning by 6 with 12 empty squares,
// played a move that only draws; in game 18, winning by 2 at 10 empties,
// one that loses by 6. Solved from 12 empties, each throw is found, with
// its scores, and credited to the network, none to GRhino.
const twoGames = `{"index":12,"game":"othello:size=8","players":["net:model=othello8,sims=200,search=gumbel","grhino:level=5"],"seats":[0,1],"moves":"c4c3c2f4d3c6d6c5e6e3b4d2b6b3d1a4b5a5a6a7f3f7g5e7f6f5g4c1b1h5h6h7g6g7d8e8d7c8h8h3h4e2h2c7f1e1f2g3g8a1b2a2f8g1b7a8b8a3g2h1","result":[0,-0],"winner":-1,"opening_plies":4}
{"index":18,"game":"othello:size=8","players":["net:model=othello8,sims=200,search=gumbel","grhino:level=5"],"seats":[0,1],"moves":"e6f6f5f4g5d6f7h5c6f8e3f3c4e2d3c2d2c1f2f1g6c3g3h3h6h7e1d1g4c7d7h4b3c5b6a5a6a7b4c8e7b5b2e8g7a1d8a2b1a3g2h2a4b7g8h8a8b8h1g1","result":[-1,1],"winner":1,"opening_plies":4}
`

func TestThrows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "games.jsonl")
	if err := os.WriteFile(path, []byte(twoGames), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(&out, 12, []string{path}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"game 12: +6 for net:model=othello8,sims=200,search=gumbel at 12 empties; net:model=othello8,sims=200,search=gumbel threw it at 12 empties (+6 to +0 for it)",
		"threw it at 10 empties (+2 to -6 for it)",
		"grhino:level=5: 2 games, 0 thrown, 0 won at 12 empties, 0 of them not won",
		"net:model=othello8,sims=200,search=gumbel: 2 games, 2 thrown, 2 won at 12 empties, 2 of them not won",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if err := run(&out, 0, []string{path}); err == nil {
		t.Error("-empties 0 accepted")
	}
	bad := filepath.Join(t.TempDir(), "c4.jsonl")
	os.WriteFile(bad, []byte(`{"index":0,"game":"connect4","moves":"4"}`+"\n"), 0o644)
	if err := run(&out, 12, []string{bad}); err == nil || !strings.Contains(err.Error(), "want othello:size=8") {
		t.Errorf("a Connect Four record: %v", err)
	}
}
