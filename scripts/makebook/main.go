// Command makebook builds a chess opening book in Polyglot's .bin format
// (search/book) from games: PGN files, or the JSON lines of `arena match
// -out` (files ending in .jsonl or .json).
//
//	go run ./scripts/makebook -out book.bin -max-ply 16 -min-game 3 games.pgn
//	go run ./scripts/makebook -out own.bin -mode negamax -min-game 2 arena-games.jsonl
//
// -mode count (the default) tallies results as Polyglot's make-book does;
// -mode negamax backs the results up through the book's tree (see
// book.BuildNegamax). Arena records of other games, and forfeited games
// (their result is not the board's), are passed over.
//
// With -game SPEC (a game other than chess, e.g. othello) it builds a game
// book (search/book's GameBook) by Logistello's book learning (book.Learn):
// the tree of the games' first -max-ply plies, moves played at least
// -min-game times, leaves valued by the games' results (or by the -eval
// player with -leaf search), and at every book position the best deviation
// valued by the -eval player; values backed up by negamax. The games are
// tabula's own of any kind: the records a run keeps with selfplay.records
// (*.rec files, or a run's folder or its records folder: self-play, gating
// and ladder games) and arena's JSON lines (arena match -out).
//
//	go run ./scripts/makebook -game othello -out othello.book -max-ply 20 -min-game 2 -eval alphabeta:depth=6 runs/oth/records games.jsonl
//
// Leaves and deviations of at most -exact empty squares (default 14) are
// valued exactly by the Othello endgame solver (win 1, draw 0, loss -1).
//
// With -iterate N it runs Buro's book-learning loop: a round plays -games
// games of -player with the book learnt so far (book=-out,
// book_margin=-book-margin, so that moves close to the best are tried),
// against itself or -opponent, adds them to -records (arena's JSON lines,
// each tagged with its round) and learns the book again from all the
// records and any files named, replacing -out; it prints the book's size,
// its root value and where the round's games left the book. It stops when
// -records holds N rounds, so the same command resumes a stopped loop
// (the -eval player's values are kept in -out plus ".searches").
//
//	go run ./scripts/makebook -game othello -out loop.book -records loop.jsonl -iterate 10 -games 200 -player alphabeta:nodes=20000 -max-ply 24 -min-game 2 -eval alphabeta:depth=6
//
// With -game connect4 -solve PLIES it builds an exact book instead, from
// no games: every position within PLIES plies of the empty board (or of
// -root MOVES, or of each line of -roots FILE), mirror images merged,
// every legal move valued exactly by the solver (search/c4solver; a
// faster win valued higher, see c4solve.go), the positions one ply beyond
// solved by -parallel solvers. Solved positions are kept in -checkpoint
// (default: the book's path plus ".solved"), saved atomically every
// -save-every and on an interrupt or -max-solve: the same command
// continues a stopped build. -sample N solves N leaves drawn at random and
// estimates the whole build's CPU time instead of writing a book.
//
//	go run ./scripts/makebook -game connect4 -solve 8 -parallel 16 -out connect4-8.book
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"tabula/games"
	_ "tabula/games/all"
	"tabula/games/chess"
	"tabula/search/book"
	"tabula/search/c4solver"
)

func main() {
	out := flag.String("out", "", "the book file to write (required)")
	cfg := book.DefaultBuildConfig()
	flag.IntVar(&cfg.MaxPly, "max-ply", cfg.MaxPly, "count the first N plies of each game")
	flag.IntVar(&cfg.MinGame, "min-game", cfg.MinGame, "keep a move played at least N times in its position")
	flag.StringVar(&cfg.Mode, "mode", book.ModeCount, "count (make-book's tally) or negamax (results backed up)")
	flag.Float64Var(&cfg.Margin, "margin", 0, "with -mode negamax, keep moves within this much of the best value, 0..2")
	game := flag.String("game", "chess", "the game: chess (a Polyglot book) or another game's spec, e.g. othello (a game book learnt by Logistello's method)")
	eval := flag.String("eval", "alphabeta:depth=4", "with -game, the player spec whose value of a position values deviations (and leaves with -leaf search); none: no deviations")
	leaf := flag.String("leaf", "result", "with -game, how the tree's leaves are valued: result (the mean result of the games reaching them) or search (the -eval player)")
	exact := flag.Int("exact", 14, "with -game othello, value leaves and deviations of at most N empty squares exactly by the endgame solver (win 1, draw 0, loss -1), overriding -leaf and -eval there; 0: none")
	var lo loopOptions
	flag.IntVar(&lo.rounds, "iterate", 0, "with -game, the book-learning loop: play rounds until -records holds N (each: -games games of -player with the book so far, then learn the book again from all the records); rerun to resume")
	flag.IntVar(&lo.games, "games", 20, "with -iterate, games a round")
	flag.StringVar(&lo.player, "player", "alphabeta:depth=4", "with -iterate, the player spec that plays with the book (the loop adds book=-out and book_margin)")
	flag.StringVar(&lo.opponent, "opponent", "", "with -iterate, the opponent's spec (default: the -player with the book, self-play)")
	flag.StringVar(&lo.records, "records", "", "with -iterate, the JSON lines file (.jsonl, arena's records) the rounds' games are added to; the book learns from it and the files named")
	flag.Float64Var(&lo.margin, "book-margin", 0.1, "with -iterate, the player's book_margin: draw among book moves within this much of the best value, so that new lines are tried")
	flag.StringVar(&lo.openings, "openings", "", "with -iterate, a file of openings (as arena's -openings): a mirrored pair of games a line, the rounds going on through the file")
	flag.IntVar(&lo.randomPlies, "random-plies", 0, "with -iterate, random opening plies a game (before the book)")
	flag.Uint64Var(&lo.seed, "seed", 1, "with -iterate, round r's match is seeded with seed+r")
	flag.IntVar(&lo.parallel, "parallel", 1, "with -iterate, games played at once; with -solve, solvers running at once")
	so := solveOptions{progress: os.Stderr, progressEvery: 30 * time.Second}
	flag.IntVar(&so.plies, "solve", 0, "with -game connect4, an exact book of every position within N plies of the root, every move valued by the solver (no game files)")
	root := flag.String("root", "", "with -solve, the book's root: the columns played from the empty board, 1-7 (Pons' format; default the empty board)")
	rootsFile := flag.String("roots", "", "with -solve, a file of roots, one a line in Pons' format (moves, an optional score ignored)")
	flag.StringVar(&so.checkpoint, "checkpoint", "", "with -solve, the file of solved positions a stopped build continues from (default: -out plus .solved)")
	flag.BoolVar(&so.weak, "weak", false, "with -solve, solve win/draw/loss only (faster; no preference for the fastest win)")
	flag.IntVar(&so.tableLog2, "tt", c4solver.DefaultTableLog2, "with -solve, log2 of each solver's table entries (8 bytes each)")
	flag.DurationVar(&so.saveEvery, "save-every", 5*time.Minute, "with -solve, save the checkpoint this often")
	flag.IntVar(&so.maxSolve, "max-solve", 0, "with -solve, stop after solving N positions, the checkpoint saved (0: no limit)")
	flag.IntVar(&so.sample, "sample", 0, "with -solve, solve N leaf positions drawn at random and estimate the whole build's CPU time instead of writing a book")
	flag.Uint64Var(&so.seed, "sample-seed", 1, "with -sample, the draw's seed")
	flag.Parse()
	var err error
	if flagSet("solve") {
		so.parallel = lo.parallel
		err = solveFlags(*game)
		if err == nil && *root != "" && *rootsFile != "" {
			err = errors.New("give -root or -roots, not both")
		}
		if err == nil && flagSet("root") {
			so.roots = []string{*root}
		}
		if err == nil && *rootsFile != "" {
			so.roots, err = readRoots(*rootsFile)
		}
		if err == nil && flag.NArg() > 0 {
			err = fmt.Errorf("-solve reads no game files (%s): it solves every position", strings.Join(flag.Args(), " "))
		}
		if err == nil {
			ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			err = runSolve(ctx, *out, so)
			cancel()
		}
		if err != nil {
			log.Fatal("makebook: ", err)
		}
		return
	}
	var solveOnly []string
	flag.Visit(func(f *flag.Flag) {
		if solveFlagNames[f.Name] && f.Name != "parallel" {
			solveOnly = append(solveOnly, "-"+f.Name)
		}
	})
	if len(solveOnly) > 0 {
		err = fmt.Errorf("%s: for an exact Connect Four book, with -game connect4 -solve N", strings.Join(solveOnly, " "))
	} else if strings.HasPrefix(*game, "chess") {
		err = checkFlags(false)
		if err == nil {
			err = run(*out, cfg, flag.Args())
		}
	} else {
		opts := gameOptions{game: *game, eval: *eval, exact: *exact, exactSet: flagSet("exact"),
			cfg: book.LearnConfig{MaxPly: cfg.MaxPly, MinGame: cfg.MinGame, LeafSearch: *leaf == "search"}}
		err = checkFlags(true)
		if err == nil && *leaf != "result" && *leaf != "search" {
			err = fmt.Errorf("-leaf %q, want result or search", *leaf)
		}
		switch {
		case err != nil:
		case lo.rounds > 0:
			err = runLoop(*out, opts, lo, flag.Args())
		case flagSet("iterate"):
			err = fmt.Errorf("-iterate %d, want >= 1", lo.rounds)
		default:
			err = loopFlagsUnused()
			if err == nil {
				err = runGame(*out, opts, flag.Args())
			}
		}
	}
	if err != nil {
		log.Fatal("makebook: ", err)
	}
}

// checkFlags refuses the flags of the other kind of book: -mode and
// -margin are chess's, -eval and -leaf a game book's.
func checkFlags(gameBook bool) error {
	var err error
	flag.Visit(func(f *flag.Flag) {
		chessOnly := f.Name == "mode" || f.Name == "margin"
		gameOnly := f.Name == "eval" || f.Name == "leaf" || f.Name == "exact" || loopFlags[f.Name]
		switch {
		case gameBook && chessOnly:
			err = fmt.Errorf("-%s is for chess books (a game book's moves are chosen by the player: book_margin)", f.Name)
		case !gameBook && gameOnly:
			err = fmt.Errorf("-%s is for game books (-game othello, ...)", f.Name)
		}
	})
	return err
}

// solveFlagNames are the flags of an exact book (-solve); with -out,
// -game and -parallel.
var solveFlagNames = map[string]bool{"solve": true, "root": true, "roots": true, "checkpoint": true, "weak": true,
	"tt": true, "save-every": true, "max-solve": true, "sample": true, "sample-seed": true, "parallel": true}

// solveFlags checks the flags of -solve: game must be Connect Four (the
// game with a solver), and no flag of the other kinds of book.
func solveFlags(game string) error {
	g, err := games.New(game)
	if err != nil {
		return err
	}
	if g.Name() != "connect4" {
		return fmt.Errorf("-solve: an exact book needs a solver of the whole game: connect4 (search/c4solver), not %s", g.Name())
	}
	flag.Visit(func(f *flag.Flag) {
		if err == nil && !solveFlagNames[f.Name] && f.Name != "out" && f.Name != "game" {
			err = fmt.Errorf("-%s is not used with -solve (an exact book reads no games)", f.Name)
		}
	})
	return err
}

// loopFlags are the flags of the book-learning loop, used with -iterate.
var loopFlags = map[string]bool{"iterate": true, "games": true, "player": true, "opponent": true, "records": true,
	"book-margin": true, "openings": true, "random-plies": true, "seed": true, "parallel": true}

// loopFlagsUnused refuses the loop's flags without -iterate.
func loopFlagsUnused() error {
	var err error
	flag.Visit(func(f *flag.Flag) {
		if loopFlags[f.Name] && f.Name != "iterate" {
			err = fmt.Errorf("-%s is for the book-learning loop: give -iterate N too", f.Name)
		}
	})
	return err
}

// flagSet reports whether the command line gave flag name.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func run(out string, cfg book.BuildConfig, files []string) error {
	if out == "" {
		return errors.New("-out FILE is required")
	}
	if len(files) == 0 {
		return errors.New("name the game files (PGN, or arena's JSON lines)")
	}
	var all []chess.PGNGame
	for _, f := range files {
		gs, err := readGames(f)
		if err != nil {
			return err
		}
		all = append(all, gs...)
	}
	entries, err := book.Build(all, cfg)
	if err != nil {
		return err
	}
	if err := book.WriteFile(out, entries); err != nil {
		return err
	}
	fmt.Printf("%d games, %d entries (%s mode) written to %s\n", len(all), len(entries), cfg.Mode, out)
	return nil
}

// readGames reads a PGN file, or arena's JSON lines by the name's ending.
func readGames(path string) ([]chess.PGNGame, error) {
	if !strings.HasSuffix(path, ".jsonl") && !strings.HasSuffix(path, ".json") {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		gs, err := chess.ParsePGN(string(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return gs, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []chess.PGNGame
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		g, ok, err := arenaGame(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if ok {
			out = append(out, g)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// arenaRecord is the part of an arena game record (match.GameRecord's JSON)
// a book needs.
type arenaRecord struct {
	Game    string          `json:"game"`
	Moves   string          `json:"moves"`
	Winner  *int            `json:"winner"`
	Forfeit json.RawMessage `json:"forfeit"`
}

// arenaGame turns one arena record into a game, checking every move; ok is
// false for another game or a forfeit.
func arenaGame(line []byte) (chess.PGNGame, bool, error) {
	var r arenaRecord
	if err := json.Unmarshal(line, &r); err != nil {
		return chess.PGNGame{}, false, err
	}
	if r.Winner == nil {
		return chess.PGNGame{}, false, errors.New("no winner field: not an arena game record")
	}
	if r.Forfeit != nil || !strings.HasPrefix(r.Game, "chess") {
		return chess.PGNGame{}, false, nil
	}
	g, err := games.New(r.Game)
	if err != nil {
		return chess.PGNGame{}, false, err
	}
	st, ok := g.NewInitialState().(*chess.State)
	if !ok {
		return chess.PGNGame{}, false, nil
	}
	actions, err := chess.Game{}.ParseActions(r.Moves)
	if err != nil {
		return chess.PGNGame{}, false, err
	}
	pg := chess.PGNGame{Start: st.Position()}
	for i, a := range actions {
		if st.IsTerminal() || !st.IsLegal(a) {
			return chess.PGNGame{}, false, fmt.Errorf("move %d %s: illegal", i+1, chess.Game{}.FormatAction(a))
		}
		pg.Moves = append(pg.Moves, chess.MoveOf(a))
		st.ApplyAction(a)
	}
	switch *r.Winner {
	case 0:
		pg.Result = "1-0"
	case 1:
		pg.Result = "0-1"
	default:
		pg.Result = "1/2-1/2"
	}
	// Winner is a seat: seat 0 moved first. From a position with Black to
	// move the first mover is Black.
	if pg.Start.SideToMove() == chess.Black && *r.Winner >= 0 {
		pg.Result = map[string]string{"1-0": "0-1", "0-1": "1-0"}[pg.Result]
	}
	return pg, true, nil
}
