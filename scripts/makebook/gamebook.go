package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"tabula/games"
	"tabula/games/othello"
	"tabula/players"
	"tabula/replay"
	"tabula/search/book"
	"tabula/search/othelloend"
)

// gameOptions are makebook's settings for a game book (-game).
type gameOptions struct {
	game string
	cfg  book.LearnConfig
	// eval is the player spec whose value of a position values the
	// deviations (and the leaves with -leaf search); "none": no
	// deviations.
	eval string
	// exact values positions of at most this many empty squares by the
	// endgame solver (Othello); 0: none. exactSet: given on the command
	// line (so a game without a solver is an error, not a silent no).
	exact    int
	exactSet bool
}

// runGame builds a game book of opts.game from files: run folders'
// records folders and *.rec files (selfplay.records), and arena's JSON
// lines (*.jsonl, *.json).
func runGame(out string, opts gameOptions, files []string) error {
	if out == "" {
		return errors.New("-out FILE is required")
	}
	if len(files) == 0 {
		return errors.New("name the game records: *.rec files or records folders (selfplay.records), or arena's JSON lines (*.jsonl)")
	}
	if opts.eval == "none" && opts.cfg.LeafSearch {
		return errors.New("-leaf search needs -eval SPEC (not none)")
	}
	if err := opts.cfg.Validate(); err != nil {
		return err
	}
	g, err := games.New(opts.game)
	if err != nil {
		return err
	}
	if opts.cfg.Exact, err = opts.exactOf(g); err != nil {
		return err
	}
	eval, err := opts.evaluator(g)
	if err != nil {
		return err
	}
	b, st, skipped, err := buildGameBook(g, opts, files, eval)
	if err != nil {
		return err
	}
	if err := b.WriteFile(out); err != nil {
		return err
	}
	fmt.Printf("%d games of %s (%d records passed over), %d positions, %d in the book, %d entries (%d deviations, %d searches, %d exact values) written to %s\n",
		st.Games, g.Name(), skipped, st.Positions, st.Interior, st.Entries, st.Deviations, st.Evals, st.Exact, out)
	return nil
}

// exactOf returns the exact valuation of opts.exact for g: Othello's
// endgame solver (othelloend.BookExact) for positions of at most
// opts.exact empties; nil when opts.exact is 0 or g is not Othello and
// the flag was left at its default.
func (opts gameOptions) exactOf(g games.Game) (book.Exact, error) {
	if opts.exact == 0 {
		return nil, nil
	}
	og, ok := g.(*othello.Game)
	if !ok {
		if opts.exactSet {
			if g.Name() == "connect4" {
				return nil, fmt.Errorf("-exact: a book learnt from games takes exact leaves from Othello's endgame solver only; for an exact Connect Four book use -solve N (no games)")
			}
			return nil, fmt.Errorf("-exact: exact leaves need an endgame solver: Othello's; %s has none here (-exact 0)", g.Name())
		}
		return nil, nil
	}
	ex, err := othelloend.BookExact(othelloend.Config{TTBits: 20, Size: og.Size()}, opts.exact)
	if err != nil {
		return nil, fmt.Errorf("-exact: %w", err)
	}
	return ex, nil
}

// buildGameBook learns a book of g from the games in files; skipped counts
// the records passed over (other games, forfeits).
func buildGameBook(g games.Game, opts gameOptions, files []string, eval book.Eval) (*book.GameBook, book.LearnStats, int, error) {
	var lines []book.GameLine
	skipped := 0
	for _, f := range files {
		ls, sk, err := readLines(g, f)
		if err != nil {
			return nil, book.LearnStats{}, 0, err
		}
		lines = append(lines, ls...)
		skipped += sk
	}
	if len(lines) == 0 {
		return nil, book.LearnStats{}, 0, fmt.Errorf("no finished game of %s in %s (%d records of other games or forfeits passed over)", g.Name(), strings.Join(files, " "), skipped)
	}
	b, st, err := book.Learn(g, lines, opts.cfg, eval)
	return b, st, skipped, err
}

// specEval returns an Eval that asks a player built from spec (one with a
// value, players.Valuer: alphabeta, net) to choose a move in the position
// and takes its value of it.
func specEval(g games.Game, spec string) (book.Eval, error) {
	sp, err := players.ParseSpec(spec)
	if err != nil {
		return nil, fmt.Errorf("-eval: %w", err)
	}
	f, err := players.Build(g, sp)
	if err != nil {
		return nil, fmt.Errorf("-eval: %w", err)
	}
	p, err := f.New(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		return nil, fmt.Errorf("-eval: %w", err)
	}
	v, ok := p.(players.Valuer)
	if !ok {
		return nil, fmt.Errorf("-eval %s: the player reports no value of its positions (use alphabeta or net)", spec)
	}
	return func(s games.State) (float64, error) {
		if _, err := p.ChooseAction(context.Background(), s.Clone()); err != nil {
			return 0, err
		}
		return v.Value(), nil
	}, nil
}

// readLines reads the games of g in file or folder path; skipped counts
// records of other games and forfeits.
func readLines(g games.Game, path string) (lines []book.GameLine, skipped int, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if fi.IsDir() {
		files, err := replay.RecordFiles(path)
		if err == nil && len(files) == 0 {
			files, err = replay.RecordFiles(path + "/records")
		}
		if err != nil {
			return nil, 0, err
		}
		if len(files) == 0 {
			return nil, 0, fmt.Errorf("%s: no records files (*.rec) in it or in its records folder", path)
		}
		for _, f := range files {
			ls, sk, err := readLines(g, f)
			if err != nil {
				return nil, 0, err
			}
			lines = append(lines, ls...)
			skipped += sk
		}
		return lines, skipped, nil
	}
	if strings.HasSuffix(path, ".rec") {
		recs, err := replay.ReadRecords(path)
		if err != nil {
			return nil, 0, err
		}
		for i, r := range recs {
			if r.Forfeit != "" || !sameGame(g, r.Game) {
				skipped++
				continue
			}
			if err := checkLine(g, r.Actions); err != nil {
				return nil, 0, fmt.Errorf("%s record %d: %w", path, i+1, err)
			}
			lines = append(lines, book.GameLine{Actions: r.Actions, Returns: r.Returns})
		}
		return lines, skipped, nil
	}
	if !strings.HasSuffix(path, ".jsonl") && !strings.HasSuffix(path, ".json") {
		return nil, 0, fmt.Errorf("%s: want records (*.rec, or a folder of them) or arena's JSON lines (*.jsonl)", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r struct {
			Game    string          `json:"game"`
			Moves   string          `json:"moves"`
			Result  *[2]float64     `json:"result"`
			Forfeit json.RawMessage `json:"forfeit"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, 0, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		if r.Result == nil {
			return nil, 0, fmt.Errorf("%s line %d: no result field: not an arena game record", path, n)
		}
		if r.Forfeit != nil || !sameGame(g, r.Game) {
			skipped++
			continue
		}
		acts, err := g.(games.Notation).ParseActions(r.Moves)
		if err != nil {
			return nil, 0, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		if err := checkLine(g, acts); err != nil {
			return nil, 0, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		lines = append(lines, book.GameLine{Actions: acts, Returns: *r.Result})
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return lines, skipped, nil
}

// sameGame reports whether spec names game g.
func sameGame(g games.Game, spec string) bool {
	h, err := games.New(spec)
	return err == nil && h.Name() == g.Name()
}

// checkLine checks that actions are legal from g's start. (A game may
// end before the board does: a resignation.)
func checkLine(g games.Game, actions []int) error {
	s := g.NewInitialState()
	for i, a := range actions {
		if s.IsTerminal() || a < 0 || a >= g.NumActions() || !s.IsLegal(a) {
			return fmt.Errorf("move %d (action %d) is not legal", i+1, a)
		}
		s.ApplyAction(a)
	}
	return nil
}
