package main

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
	"tabula/match"
	"tabula/players"
	"tabula/players/playerstest"
	"tabula/replay"
	"tabula/search/book"
)

// TestOthelloBookFromArena plays a short alpha-beta match in Othello (two
// random plies a game, so the games differ), writes its games as arena's
// JSON lines and as a records file, and builds a book from each: the two
// books are the same; every game passes through the root's one move (the
// four first moves are one under the symmetries); the book has deviations
// from the -eval search; an alpha-beta player with the book plays its best
// move at the start without searching.
func TestOthelloBookFromArena(t *testing.T) {
	g := playerstest.MustGame(t, "othello")
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "games.jsonl")
	f, err := os.Create(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	var recs []replay.GameRecord
	const n = 8
	_, err = match.Match(context.Background(), match.MatchConfig{Games: n, Parallel: 1, Seed: 3, RandomPlies: 2,
		Record: func(r match.GameRecord) error {
			acts, err := g.(games.Notation).ParseActions(r.Moves)
			if err != nil {
				return err
			}
			recs = append(recs, replay.GameRecord{Kind: "ladder", Game: r.Game, Players: r.Players, Actions: acts,
				Moves: r.Moves, Values: make([]float32, len(acts)), Returns: r.Result})
			return enc.Encode(r)
		}}, g, playerstest.MustFactories(t, g, "alphabeta:depth=1 alphabeta:depth=2"))
	if err != nil {
		t.Fatal(err)
	}
	// A game of another kind and a forfeit are passed over.
	enc.Encode(map[string]any{"game": "connect4", "moves": "4 4", "result": []float64{1, -1}, "winner": 0})
	enc.Encode(map[string]any{"game": "othello", "moves": "f5", "result": []float64{-1, 1}, "winner": 1, "forfeit": map[string]any{"seat": 0}})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "records", "ladder-0.rec")
	os.Mkdir(filepath.Dir(rec), 0o755)
	if err := replay.WriteRecords(rec, recs); err != nil {
		t.Fatal(err)
	}
	opts := gameOptions{game: "othello", eval: "alphabeta:depth=1", cfg: book.LearnConfig{MaxPly: 6, MinGame: 2}}
	var books []*book.GameBook
	for _, in := range []string{jsonl, dir} { // the folder: its records folder
		out := filepath.Join(dir, filepath.Base(in)+".book")
		if err := runGame(out, opts, []string{in}); err != nil {
			t.Fatal(err)
		}
		b, err := book.LoadGameBook(out, g)
		if err != nil {
			t.Fatal(err)
		}
		books = append(books, b)
	}
	if a, b := books[0].Entries(), books[1].Entries(); len(a) != len(b) || len(a) == 0 {
		t.Fatalf("books of %d and %d entries, want the same non-empty book from both inputs", len(a), len(b))
	} else {
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("entry %d: %+v from arena lines, %+v from records", i, a[i], b[i])
			}
		}
	}
	b := books[0]
	var root, dev []book.BookMove
	for _, m := range b.Moves(g, g.NewInitialState()) {
		if m.Deviation {
			dev = append(dev, m)
		} else {
			root = append(root, m)
		}
	}
	if len(root) != 1 || root[0].Count != n || len(dev) != 0 {
		t.Errorf("root moves %+v, want one move of %d games and no deviation (every first move is the same up to symmetry)", b.Moves(g, g.NewInitialState()), n)
	}
	devs := 0
	for _, e := range b.Entries() {
		if e.Flags&book.FlagDeviation != 0 {
			devs++
		}
	}
	if devs == 0 {
		t.Error("no deviation in the book")
	}
	sp, err := players.ParseSpec(`alphabeta:depth=2,book="` + filepath.Join(dir, "games.jsonl.book") + `"`)
	if err != nil {
		t.Fatal(err)
	}
	fac, err := players.Build(g, sp)
	if err != nil {
		t.Fatal(err)
	}
	p, err := fac.New(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := b.Choose(g, g.NewInitialState(), 0, nil)
	if a, err := p.ChooseAction(context.Background(), g.NewInitialState()); err != nil || a != want || p.(players.SearchReporter).LastSearch().Nodes != 0 {
		t.Errorf("the booked player's first move %d (%v) after %d nodes, want the book's %d without a search", a, err, p.(players.SearchReporter).LastSearch().Nodes, want)
	}

	// Bad input is named.
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"game":"othello","moves":"a1","result":[1,-1],"winner":0}`+"\n"), 0o644)
	if err := runGame(filepath.Join(dir, "x.book"), opts, []string{bad}); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("an illegal move: %v, want an error naming line 1", err)
	}
	if err := runGame(filepath.Join(dir, "x.book"), gameOptions{game: "othello", eval: "random", cfg: opts.cfg}, []string{jsonl}); err == nil || !strings.Contains(err.Error(), "no value") {
		t.Errorf("-eval random: %v, want an error saying it reports no value", err)
	}
}
