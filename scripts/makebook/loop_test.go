package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tabula/games"
	"tabula/players/playerstest"
	"tabula/search/book"
)

// readLoopRecords reads the loop's records file.
func readLoopRecords(t *testing.T, path string) []loopRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []loopRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r loopRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestLoop runs the book-learning loop on a tiny budget (alpha-beta depth
// 1, 6 games a round, one random ply, which the book's symmetries fold
// into one position): one round, then the same command with -iterate 2.
// The second run plays only round 2, adding its games after round 1's
// untouched; the book grows; every move of round 2 in a position of round
// 1's book is one of that book's moves within the margin, and some are
// the book's deviations (moves no game of round 1 played there), so the
// players followed the book and explored from it. Rerun, the loop plays
// nothing; with its book removed it learns the same book again, from the
// search cache.
func TestLoop(t *testing.T) {
	g := playerstest.MustGame(t, "othello")
	dir := t.TempDir()
	out, recs := filepath.Join(dir, "loop.book"), filepath.Join(dir, "loop.jsonl")
	gopts := gameOptions{game: "othello", eval: "alphabeta:depth=1", cfg: book.LearnConfig{MaxPly: 10, MinGame: 1}}
	const margin = 0.3
	lo := loopOptions{rounds: 1, games: 6, player: "alphabeta:depth=1", records: recs, margin: margin,
		randomPlies: 1, seed: 5, parallel: 2}
	if err := runLoop(out, gopts, lo, nil); err != nil {
		t.Fatal(err)
	}
	r1 := readLoopRecords(t, recs)
	if len(r1) != lo.games {
		t.Fatalf("round 1 wrote %d records, want %d", len(r1), lo.games)
	}
	raw1, _ := os.ReadFile(recs)
	b1, err := book.LoadGameBook(out, g)
	if err != nil {
		t.Fatal(err)
	}

	lo.rounds = 2
	if err := runLoop(out, gopts, lo, nil); err != nil {
		t.Fatal(err)
	}
	all := readLoopRecords(t, recs)
	raw2, _ := os.ReadFile(recs)
	if len(all) != 2*lo.games || !bytes.HasPrefix(raw2, raw1) {
		t.Fatalf("after round 2: %d records (want %d), round 1's kept as they were: %v", len(all), 2*lo.games, bytes.HasPrefix(raw2, raw1))
	}
	for i, r := range all {
		if want := 1 + i/lo.games; r.BookRound != want {
			t.Errorf("record %d: round %d, want %d", i, r.BookRound, want)
		}
	}
	b2, err := book.LoadGameBook(out, g)
	if err != nil {
		t.Fatal(err)
	}
	if b2.Len() <= b1.Len() {
		t.Errorf("the book has %d entries after round 2, %d after round 1: it did not grow", b2.Len(), b1.Len())
	}
	inBook, deviations := followed(t, g, b1, all[lo.games:], margin)
	if inBook < lo.games || deviations == 0 {
		t.Errorf("round 2: %d moves in round 1's book (want at least one a game), %d of them its deviations (want some)", inBook, deviations)
	}
	t.Logf("book entries %d -> %d; round 2: %d moves from round 1's book, %d deviations", b1.Len(), b2.Len(), inBook, deviations)

	// Resuming a finished loop plays nothing; a lost book is learnt again.
	if err := runLoop(out, gopts, lo, nil); err != nil {
		t.Fatal(err)
	}
	if raw3, _ := os.ReadFile(recs); !bytes.Equal(raw3, raw2) {
		t.Error("rerunning a finished loop changed the records")
	}
	os.Remove(out)
	if err := runLoop(out, gopts, lo, nil); err != nil {
		t.Fatal(err)
	}
	if raw3, _ := os.ReadFile(recs); !bytes.Equal(raw3, raw2) {
		t.Error("resuming with the book lost changed the records")
	}
	b3, err := book.LoadGameBook(out, g)
	if err != nil {
		t.Fatalf("the book was not learnt again: %v", err)
	}
	if a, b := b3.Entries(), b2.Entries(); !slices.Equal(a, b) {
		t.Errorf("the book learnt again (%d entries, the searches from the cache) differs from the loop's (%d)", len(a), len(b))
	}
	if _, err := os.Stat(out + ".searches"); err != nil {
		t.Errorf("no search cache: %v", err)
	}

	// Bad settings are named.
	for _, c := range []struct {
		lo   loopOptions
		want string
	}{
		{loopOptions{rounds: 1, games: 1, player: "alphabeta:depth=1", records: filepath.Join(dir, "x.txt"), parallel: 1}, ".jsonl"},
		{loopOptions{rounds: 1, games: 1, player: `alphabeta:depth=1,book="x"`, records: recs, parallel: 1}, "leave out book"},
		{loopOptions{rounds: 1, games: 0, player: "alphabeta:depth=1", records: recs, parallel: 1}, "-games 0"},
		{loopOptions{rounds: 1, games: 1, player: "alphabeta:depth=1", records: recs, parallel: 1, margin: 3}, "-book-margin"},
		{loopOptions{rounds: 1, games: 1, player: "alphabeta:depth=1", parallel: 1}, "-records"},
	} {
		if err := runLoop(out, gopts, c.lo, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %q", c.lo, err, c.want)
		}
	}
}

// followed checks that every move of games recs played in a position of
// book b (after their opening plies) is one of b's moves within margin of
// the best, and returns how many there were and how many of them were
// b's deviations.
func followed(t *testing.T, g games.Game, b *book.GameBook, recs []loopRecord, margin float64) (inBook, deviations int) {
	t.Helper()
	for _, r := range recs {
		acts, err := g.(games.Notation).ParseActions(r.Moves)
		if err != nil {
			t.Fatal(err)
		}
		s := g.NewInitialState()
		for ply, a := range acts {
			moves := b.Moves(g, s)
			if ply >= r.OpeningPlies && len(moves) > 0 {
				best := -2.0
				for _, m := range moves {
					best = max(best, m.Value)
				}
				found := false
				for _, m := range moves {
					if m.Action == a && m.Value >= best-margin-1e-6 {
						found = true
						if m.Deviation {
							deviations++
						}
					}
				}
				if !found {
					t.Errorf("game %d (round %d) ply %d: played %d, not among the book's moves within %v of the best: %+v", r.Index, r.BookRound, ply, a, margin, moves)
				}
				inBook++
			}
			s.ApplyAction(a)
		}
	}
	return inBook, deviations
}

// TestLoopSeeded starts a loop from records already on disk that carry no
// round (arena's own, here a loop's with the tags removed): round 1 is
// played with the book of those games, and its games go after them.
func TestLoopSeeded(t *testing.T) {
	g := playerstest.MustGame(t, "othello")
	dir := t.TempDir()
	gopts := gameOptions{game: "othello", eval: "alphabeta:depth=1", cfg: book.LearnConfig{MaxPly: 10, MinGame: 1}}
	lo := loopOptions{rounds: 1, games: 4, player: "alphabeta:depth=1", records: filepath.Join(dir, "a.jsonl"),
		randomPlies: 1, seed: 8, parallel: 1}
	outA := filepath.Join(dir, "a.book")
	if err := runLoop(outA, gopts, lo, nil); err != nil {
		t.Fatal(err)
	}
	bookA, err := book.LoadGameBook(outA, g)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(lo.records)
	seed := bytes.ReplaceAll(raw, []byte(`,"book_round":1`), nil)
	if bytes.Equal(seed, raw) {
		t.Fatal("no round tag to remove")
	}
	lo.records = filepath.Join(dir, "b.jsonl")
	os.WriteFile(lo.records, seed, 0o644)
	if err := runLoop(filepath.Join(dir, "b.book"), gopts, lo, nil); err != nil {
		t.Fatal(err)
	}
	all := readLoopRecords(t, lo.records)
	if len(all) != 2*lo.games || all[0].BookRound != 0 || all[lo.games].BookRound != 1 {
		t.Fatalf("%d records, rounds %d and %d, want the %d seed games (round 0) then round 1's", len(all), all[0].BookRound, all[len(all)-1].BookRound, lo.games)
	}
	if inBook, _ := followed(t, g, bookA, all[lo.games:], 0); inBook < lo.games {
		t.Errorf("round 1: %d moves in the seed games' book, want at least one a game", inBook)
	}
}

// TestRoundOpenings checks that the rounds go on through the openings: 3
// pairs a round over 4 openings.
func TestRoundOpenings(t *testing.T) {
	ops := [][]int{{0}, {1}, {2}, {3}}
	for r, want := range []int{0, 3, 2, 1} {
		got := roundOpenings(ops, r+1, 6)
		if len(got) != 4 || got[0][0] != want || got[1][0] != (want+1)%4 {
			t.Errorf("round %d: %v, want the openings from %d on", r+1, got, want)
		}
	}
	if roundOpenings(nil, 2, 6) != nil {
		t.Error("no openings gave some")
	}
}

// TestExactOf checks -exact: the solver for Othello (valuing a position
// of 10 empties, passing over the start), an error for a game without one
// when the flag was given, nothing when it was left at its default.
func TestExactOf(t *testing.T) {
	g := playerstest.MustGame(t, "othello")
	ex, err := gameOptions{exact: 14}.exactOf(g)
	if err != nil || ex == nil {
		t.Fatalf("othello -exact 14: %v, %v", ex != nil, err)
	}
	if _, ok, err := ex(g.NewInitialState()); ok || err != nil {
		t.Errorf("the start: ok %v err %v, want left to the search", ok, err)
	}
	s := randomPosition(t, g, 50)
	if v, ok, err := ex(s); !ok || err != nil || (v != 1 && v != 0 && v != -1) {
		t.Errorf("10 empties: %v %v %v, want a solved result", v, ok, err)
	}
	c4 := playerstest.MustGame(t, "connect4")
	if _, err := (gameOptions{exact: 14, exactSet: true}).exactOf(c4); err == nil || !strings.Contains(err.Error(), "-exact") {
		t.Errorf("connect4 -exact 14: %v, want an error naming -exact", err)
	}
	if ex, err := (gameOptions{exact: 14}).exactOf(c4); ex != nil || err != nil {
		t.Errorf("connect4, -exact at its default: %v %v, want none", ex != nil, err)
	}
	if _, err := (gameOptions{exact: 30}).exactOf(g); err == nil {
		t.Error("-exact 30 accepted")
	}
}

// randomPosition returns the position of g after plies random moves (seeded).
func randomPosition(t *testing.T, g games.Game, plies int) games.State {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	s := g.NewInitialState()
	for range plies {
		if s.IsTerminal() {
			t.Fatal("the game ended early")
		}
		legal := s.LegalActions(nil)
		s.ApplyAction(legal[rng.IntN(len(legal))])
	}
	return s
}
