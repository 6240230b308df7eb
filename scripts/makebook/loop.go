package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"tabula/games"
	"tabula/internal/atomicfile"
	"tabula/match"
	"tabula/players"
	"tabula/search/book"
)

// loopOptions are the settings of makebook's book-learning loop
// (-iterate): Buro's incremental book learning, in which the games are
// played with the book learnt so far.
type loopOptions struct {
	rounds      int     // -iterate: the rounds the records file should hold
	games       int     // -games: games a round
	player      string  // -player: the spec that plays with the book
	opponent    string  // -opponent: its opponent; "" for self-play
	records     string  // -records: the JSON lines file the rounds add to
	margin      float64 // -book-margin: the player's book_margin
	openings    string  // -openings: a file of openings (match.ReadOpenings), rotated through the rounds
	randomPlies int     // -random-plies: random opening plies a game
	seed        uint64  // -seed: round r's match is seeded seed+r
	parallel    int     // -parallel: games at once
}

// loopRecord is one game of the loop in the records file: arena's record
// (match.GameRecord, so that every reader of arena's JSON lines reads
// it) and the round that played it.
type loopRecord struct {
	match.GameRecord
	BookRound int `json:"book_round"`
}

// runLoop runs the book-learning loop: while the records file holds fewer
// than opts.rounds rounds, it plays a round of opts.games games of
// opts.player with the current book (book=out, book_margin=opts.margin)
// against itself or opts.opponent, adds them to the records file
// (rewritten atomically, a round at a time) and learns the book again from
// all the records and the extra files, replacing out atomically. It
// prints a line a round. Rerun, it continues from the rounds on disk: a
// book older than the records (a run stopped between the two writes) is
// learnt again first. The -eval player's values are kept in
// out+".searches" and reused by a later run with the same -eval.
func runLoop(out string, gopts gameOptions, opts loopOptions, extra []string) error {
	if out == "" {
		return errors.New("-out FILE is required")
	}
	if opts.records == "" {
		return errors.New("-iterate needs -records FILE.jsonl, the file the rounds' games go to")
	}
	if !strings.HasSuffix(opts.records, ".jsonl") {
		return fmt.Errorf("-records %s: want a .jsonl file (arena's JSON lines)", opts.records)
	}
	if opts.rounds < 1 || opts.games < 1 {
		return fmt.Errorf("-iterate %d -games %d: want both >= 1", opts.rounds, opts.games)
	}
	if opts.margin < 0 || opts.margin > 2 {
		return fmt.Errorf("-book-margin %v: want 0..2", opts.margin)
	}
	if opts.randomPlies < 0 || opts.parallel < 1 {
		return fmt.Errorf("-random-plies %d -parallel %d: want >= 0 and >= 1", opts.randomPlies, opts.parallel)
	}
	if gopts.eval == "none" && gopts.cfg.LeafSearch {
		return errors.New("-leaf search needs -eval SPEC (not none)")
	}
	if err := gopts.cfg.Validate(); err != nil {
		return err
	}
	g, err := games.New(gopts.game)
	if err != nil {
		return err
	}
	if _, ok := g.(games.Notation); !ok {
		return fmt.Errorf("%s has no move notation for arena's records", g.Name())
	}
	player, err := players.ParseSpec(opts.player)
	if err != nil {
		return fmt.Errorf("-player: %w", err)
	}
	if player.Has("book") || player.Has("book_margin") {
		return errors.New("-player: leave out book and book_margin; the loop sets them (-out, -book-margin)")
	}
	var opponent players.Spec
	if opts.opponent != "" {
		if opponent, err = players.ParseSpec(opts.opponent); err != nil {
			return fmt.Errorf("-opponent: %w", err)
		}
	}
	// The player without a book must build: a bad spec fails here, not
	// after the first round's book.
	if _, err := players.Build(g, player); err != nil {
		return fmt.Errorf("-player: %w", err)
	}
	if gopts.cfg.Exact, err = gopts.exactOf(g); err != nil {
		return err
	}
	eval, err := gopts.evaluator(g)
	if err != nil {
		return err
	}
	memo := newEvalMemo(g, gopts.eval, eval)
	cache := out + ".searches"
	if eval != nil {
		reused, why, err := memo.load(cache)
		if err != nil {
			return err
		}
		if reused || why != "none yet" {
			fmt.Printf("search cache %s: %s\n", cache, why)
		}
	}
	gopts.cfg.Exact = memoExact(g, gopts.cfg.Exact)
	var openings [][]int
	if opts.openings != "" {
		f, err := os.Open(opts.openings)
		if err != nil {
			return fmt.Errorf("-openings: %w", err)
		}
		openings, err = match.ReadOpenings(g, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("-openings %s: %w", opts.openings, err)
		}
		if len(openings) == 0 {
			return fmt.Errorf("-openings %s: no opening in it", opts.openings)
		}
	}

	done, err := loopRounds(opts.records)
	if err != nil {
		return err
	}
	inputs := extra
	if _, err := os.Stat(opts.records); err == nil {
		inputs = append([]string{opts.records}, extra...)
	}
	// The book of the records and extra files; a book at out before the
	// first round is not known to be of them, and is learnt again.
	useBook := len(inputs) > 0
	if useBook {
		stale, err := bookStale(out, opts.records)
		if err != nil {
			return err
		}
		if stale || done == 0 {
			if _, err := learnBook(g, gopts, inputs, memo, cache, out, 0); err != nil {
				return err
			}
		}
	}
	if done >= opts.rounds {
		fmt.Printf("%s holds %d rounds, -iterate %d: nothing to play (raise -iterate to go on)\n", opts.records, done, opts.rounds)
		return nil
	}
	for r := done + 1; r <= opts.rounds; r++ {
		var bk *book.GameBook
		sp := player
		if useBook {
			if bk, err = book.LoadGameBook(out, g); err != nil {
				return err
			}
			sp.Params = append(append([]players.Param(nil), player.Params...),
				players.Param{Key: "book", Value: out}, players.Param{Key: "book_margin", Value: fmt.Sprint(opts.margin)})
		}
		fs := make([]*players.Factory, 2)
		for i, s := range []players.Spec{sp, opponent} {
			if i == 1 && opts.opponent == "" {
				s = sp
			}
			if fs[i], err = players.Build(g, s); err != nil {
				return fmt.Errorf("round %d: %w", r, err)
			}
		}
		var recs []match.GameRecord
		_, err := match.Match(context.Background(), match.MatchConfig{Games: opts.games, Parallel: opts.parallel,
			Seed: opts.seed + uint64(r), RandomPlies: opts.randomPlies, Openings: roundOpenings(openings, r, opts.games),
			Record: func(rec match.GameRecord) error { recs = append(recs, rec); return nil }}, g, fs)
		if err != nil {
			return fmt.Errorf("round %d: %w", r, err)
		}
		if len(recs) != opts.games {
			return fmt.Errorf("round %d: %d of %d games finished", r, len(recs), opts.games)
		}
		if err := appendRound(opts.records, r, recs); err != nil {
			return err
		}
		inputs, useBook = append([]string{opts.records}, extra...), true
		left, points, err := leftBook(g, bk, recs)
		if err != nil {
			return fmt.Errorf("round %d: %w", r, err)
		}
		b, err := learnBook(g, gopts, inputs, memo, cache, out, r)
		if err != nil {
			return err
		}
		root := "none"
		if moves := b.Moves(g, g.NewInitialState()); len(moves) > 0 {
			best := moves[0].Value
			for _, m := range moves {
				best = max(best, m.Value)
			}
			root = fmt.Sprintf("%+.3f", best)
		}
		score := ""
		if opts.opponent != "" {
			score = fmt.Sprintf(", the player scored %.1f of %d", points, len(recs))
		}
		fmt.Printf("round %d/%d: %d games%s, left the book at ply %s; book %d entries, root value %s\n",
			r, opts.rounds, len(recs), score, left, b.Len(), root)
	}
	return nil
}

// evaluator returns the Eval of opts.eval (nil for "none").
func (opts gameOptions) evaluator(g games.Game) (book.Eval, error) {
	if opts.eval == "none" {
		return nil, nil
	}
	return specEval(g, opts.eval)
}

// memoExact remembers exact's values by canonical key across the rounds.
// nil stays nil.
func memoExact(g games.Game, exact book.Exact) book.Exact {
	if exact == nil {
		return nil
	}
	type result struct {
		v  float64
		ok bool
	}
	seen := map[uint64]result{}
	return func(s games.State) (float64, bool, error) {
		key, _ := book.CanonicalKey(g, s)
		if r, hit := seen[key]; hit {
			return r.v, r.ok, nil
		}
		v, ok, err := exact(s)
		if err == nil {
			seen[key] = result{v, ok}
		}
		return v, ok, err
	}
}

// roundOpenings returns the openings of round r (1, 2, ...) of games
// games: the list rotated so that round r starts where round r-1 stopped
// (a mirrored pair of games plays one opening), so that the rounds go
// through all of them. nil stays nil.
func roundOpenings(openings [][]int, r, games int) [][]int {
	if len(openings) == 0 {
		return nil
	}
	start := (r - 1) * ((games + 1) / 2) % len(openings)
	return append(append([][]int(nil), openings[start:]...), openings[:start]...)
}

// learnBook learns the book from files with memo's searches, writes it to
// out and memo's values to cache; round 0 is the rebuild of a resumed
// loop.
func learnBook(g games.Game, opts gameOptions, files []string, memo *evalMemo, cache, out string, round int) (*book.GameBook, error) {
	before := memo.searches
	b, st, skipped, err := buildGameBook(g, opts, files, memo.Eval())
	if err != nil {
		return nil, err
	}
	if err := memo.save(cache); err != nil {
		return nil, err
	}
	if err := b.WriteFile(out); err != nil {
		return nil, err
	}
	what := fmt.Sprintf("round %d: learnt", round)
	if round == 0 {
		what = "resuming: learnt again"
	}
	fmt.Printf("%s from %d games (%d passed over): %d book positions, %d entries (%d deviations; %d new searches, %d positions valued exactly) written to %s\n",
		what, st.Games, skipped, st.Interior, st.Entries, st.Deviations, memo.searches-before, st.Exact, out)
	return b, nil
}

// loopRounds returns the highest round in the records file (0 when it
// does not exist yet).
func loopRounds(path string) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	rounds := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r struct {
			BookRound int `json:"book_round"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return 0, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		rounds = max(rounds, r.BookRound)
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return rounds, nil
}

// bookStale reports whether the book at out must be learnt again: it is
// missing or older than the records.
func bookStale(out, records string) (bool, error) {
	bi, err := os.Stat(out)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	ri, err := os.Stat(records)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return bi.ModTime().Before(ri.ModTime()), nil
}

// appendRound adds round r's games to the records file: the file is
// rewritten atomically with them at its end, so that a round is on disk
// whole or not at all.
func appendRound(path string, r int, recs []match.GameRecord) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var buf bytes.Buffer
	buf.Write(old)
	if len(old) > 0 && old[len(old)-1] != '\n' {
		buf.WriteByte('\n')
	}
	enc := json.NewEncoder(&buf)
	for _, rec := range recs {
		if err := enc.Encode(loopRecord{GameRecord: rec, BookRound: r}); err != nil {
			return err
		}
	}
	if err := atomicfile.Write(path, buf.Bytes()); err != nil {
		return fmt.Errorf("records %s: %w", path, err)
	}
	return nil
}

// leftBook returns, for the games of a round played with book bk (nil:
// none), how many left the book at each ply (the first position not in
// it), as "ply:games ...", and the points of the match's first player
// (seat index 0): 1 a win, 1/2 a draw.
func leftBook(g games.Game, bk *book.GameBook, recs []match.GameRecord) (string, float64, error) {
	at := map[int]int{}
	points := 0.0
	for _, rec := range recs {
		acts, err := g.(games.Notation).ParseActions(rec.Moves)
		if err != nil {
			return "", 0, fmt.Errorf("game %d: %w", rec.Index, err)
		}
		s := g.NewInitialState()
		ply := 0
		for bk != nil && ply < len(acts) && len(bk.Moves(g, s)) > 0 {
			s.ApplyAction(acts[ply])
			ply++
		}
		at[ply]++
		switch {
		case rec.Winner < 0:
			points += 0.5
		case rec.Seats[rec.Winner] == 0:
			points++
		}
	}
	plies := make([]int, 0, len(at))
	for p := range at {
		plies = append(plies, p)
	}
	sort.Ints(plies)
	var b strings.Builder
	for i, p := range plies {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d", p, at[p])
	}
	return b.String(), points, nil
}
