package match

import (
	"context"
	"os"
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/chess"
	"tabula/players"
)

// randomPair builds two random players; it stands apart from the package's
// shared test helpers so that this file builds on its own.
func randomPair(t *testing.T, g games.Game) []*players.Factory {
	t.Helper()
	fs, err := players.BuildAll(g, []players.Spec{{Kind: "random"}, {Kind: "random"}})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestOpenings: each opening is played twice per pairing, once with each
// colour, then random plies follow it; the records start with it.
func TestOpenings(t *testing.T) {
	g, err := games.New("chess:maxplies=40")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../data/chess/openings.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	openings, err := ReadOpenings(g, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(openings) < 10 {
		t.Fatalf("%d openings in data/chess/openings.txt", len(openings))
	}
	openings = openings[:2]
	var recs []GameRecord
	cfg := MatchConfig{Games: 6, Parallel: 2, Seed: 1, RandomPlies: 1, Openings: openings,
		Record: func(r GameRecord) error { recs = append(recs, r); return nil }}
	if _, err := Match(context.Background(), cfg, g, randomPair(t, g)); err != nil {
		t.Fatal(err)
	}
	texts := []string{"e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 ", "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 "}
	for i, r := range recs {
		want := texts[i/2%2]
		if !strings.HasPrefix(r.Moves, want) {
			t.Errorf("game %d starts %q, want opening %q", i, r.Moves[:min(len(r.Moves), 60)], want)
		}
		if r.Seats[0] != i%2 {
			t.Errorf("game %d: seats %v, want colours alternating", i, r.Seats)
		}
	}
	if recs[0].Moves == recs[1].Moves {
		t.Error("the random ply after the opening is the same in two games")
	}
	for _, bad := range []string{"e2e4 e7e5 e1e3\n", "# only a comment\n", "e2e4 zz\n", "f2f3 e7e5 g2g4 d8h4\n"} {
		if _, err := ReadOpenings(g, strings.NewReader(bad)); err == nil {
			t.Errorf("ReadOpenings(%q) accepted", bad)
		}
	}
	if _, err := Match(context.Background(), MatchConfig{Games: 2, Openings: [][]int{{0}}}, g, randomPair(t, g)); err == nil || !strings.Contains(err.Error(), "opening 1") {
		t.Errorf("an illegal opening: %v", err)
	}
}
