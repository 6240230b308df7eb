// Command arena plays matches between players with Elo ratings, benchmarks a
// player's mistake rate on Connect Four positions against the exact solver,
// scores a chess player on EPD test suites, and runs the solver as a tool.
//
//	arena match -game G -players "SPEC SPEC ..." -games N [-parallel P] [-seed S] [-out FILE] [-sgf DIR] [-mat DIR] [-pons FILE] [-anchor I]
//	arena bench -game connect4 -player SPEC -positions FILE [-out FILE]
//	arena bench -game othello[:size=6] -player SPEC -positions FILE[,FILE...] [-out FILE]
//	arena solve -game connect4 [-positions FILE] [-all]
//	arena tally -in FILE
//	arena compare -a FILE -b FILE
//	arena rate -game backgammon -players "SPEC SPEC" [-games N] [-plies P] | -in FILE
//	arena epd -file FILE -player SPEC [-n N] [-out FILE]
//
// A player spec is kind or kind:key=value,...; "arena help" lists the kinds.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"tabula/bench"
	"tabula/elo"
	"tabula/games"
	_ "tabula/games/all"
	"tabula/games/chess"
	"tabula/games/gogame"
	"tabula/games/othello"
	"tabula/games/sgf"
	"tabula/internal/atomicfile"
	"tabula/internal/cliflag"
	"tabula/internal/progress"
	"tabula/match"
	"tabula/players"
	"tabula/search/c4solver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(exitCode(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr))
}

// exitCode reports err on stderr and returns the process's exit status: 0
// for success and for -h (flag.ErrHelp: usage was printed), 2 otherwise.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case isCmdError(err):
		fmt.Fprintln(stderr, "arena "+err.Error())
	default:
		fmt.Fprintln(stderr, "arena: "+err.Error())
	}
	return 2
}

// command is one subcommand. define declares its flags on fs and returns
// the function that runs it once they are parsed; "arena help" calls define
// only, to list the flags, so the help cannot drift from the flags.
type command struct {
	name     string
	synopsis string // the arguments, for the usage line
	doc      string // more about it, for -h and help
	define   func(fs *flag.FlagSet) func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands = []command{
	{"match", `-game G -players "SPEC SPEC ..." [-games N] [flags]`,
		"Plays every pair of players -games games (colours alternate) and prints the wins-draws-losses\n" +
			"table and maximum-likelihood Elo ratings. In a game of chance (dice, a deal of cards) the games 2m and\n" +
			"2m+1 of each pair share the deal and dice with seats swapped (duplicate); a game scored in its own\n" +
			"unit (chips in poker, tricks in whist) is reported as the mean score a game with a 95% interval\n" +
			"over those pairs instead of Elo. Ctrl-C stops it and prints the games played so far.\n" +
			"-game may be left out when a net player names a checkpoint: the checkpoint's game is played.", defineMatch},
	{"bench", "-player SPEC -positions FILE [flags]",
		"Measures a player's mistake rate on Connect Four positions in Pons' format (moves, then a score):\n" +
			"a move is a mistake when the solver's verdict of it (win/draw/loss) is worse than the best move's.\n" +
			"With -game othello or othello:size=6, -positions names Othello sets (data/othello, see its README),\n" +
			"several separated by commas: one line per set with the mistake rate and the mean disc loss (best\n" +
			"move's exact final margin minus the chosen move's).", defineBench},
	{"solve", "[-positions FILE] [-all] [flags]",
		"Solves Connect Four positions with the built-in solver. Input: one position a line, the moves as\n" +
			"column digits 1-7 (Pons' format; a trailing score is ignored), from -positions or standard input.\n" +
			"Output: \"MOVES SCORE\" a line or, with -all, \"MOVES S1 ... S7\": the score after playing each\n" +
			"column (-1000: the column is full). A header naming the columns goes to standard error.\n" +
			"Scores follow Pons' convention, for the player to move: 0 is a draw; a positive score is a win,\n" +
			"22 minus the number of stones the winner has played when four are connected (1: a win with the\n" +
			"last stone, 18: a win with the fourth); a negative score is the same for a loss.\n" +
			"A finished game (won, or a full board) is an error: it has no move to score.", defineSolve},
	{"rate", `-players "SPEC SPEC" [-games N] | -in FILE [flags]`,
		"The gnubg referee (backgammon): GNU Backgammon rates every turn of the players by the cubeless\n" +
			"equity lost against its own best move, the error rate backgammon players read. Plays the two\n" +
			"players' match (each dice sequence twice, colours swapped) or reads games written by\n" +
			"\"arena match -out\", and prints each player's mean loss per unforced turn in millipoints.\n" +
			"Needs gnubg (apt-get install gnubg).", defineRate},
	{"tally", "-in FILE [flags]",
		"Adds up games written by \"arena match -out\" and prints what the match printed: the table, Elo,\n" +
			"and for a game of chance the mirrored pairs' scores (chips or tricks a game where the game scores\n" +
			"in a unit of its own) and the wins by points (gammons).", defineTally},
	{"compare", "-a FILE -b FILE",
		"Compares two players' verdicts on the same positions, written by \"arena bench -out\": for each\n" +
			"set and in all, both mistake counts, how many positions only one of them got wrong, and the exact\n" +
			"McNemar test (a sign test on those): whether one player makes fewer mistakes beyond chance.", defineCompare},
	{"epd", "-file FILE -player SPEC [-n N] [flags]",
		"Scores a chess player on an EPD test suite such as data/chess/wac.epd (Win At Chess): a fresh\n" +
			"player chooses a move in each position; it solves the position when the move is one of the bm\n" +
			"moves and none of the am moves. Prints the failures and the solved count with its Wilson 95%\n" +
			"interval, the wall time and the process CPU time.", defineEPD},
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// cmdError is a subcommand's error, shown as "NAME: message" with a leading
// "arena: " or "NAME: " of the message dropped, so that nothing is said twice.
type cmdError struct {
	name string
	err  error
}

func (e *cmdError) Error() string {
	msg := strings.TrimPrefix(e.err.Error(), "arena: ")
	return e.name + ": " + strings.TrimPrefix(msg, e.name+": ")
}

func (e *cmdError) Unwrap() error { return e.err }

func isCmdError(err error) bool {
	var ce *cmdError
	return errors.As(err, &ce)
}

// usage writes the usage lines; with full, every subcommand's description
// and flags, the player kinds and the games.
func usage(w io.Writer, full bool) {
	fmt.Fprintln(w, "usage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  arena %s %s\n", c.name, c.synopsis)
	}
	fmt.Fprintln(w, "  arena help")
	fmt.Fprintln(w, "  arena -version")
	if !full {
		fmt.Fprintln(w, "\"arena help\" describes every subcommand, flag and player kind; \"arena CMD -h\" one subcommand.")
		return
	}
	for _, c := range commands {
		fmt.Fprintf(w, "\narena %s %s\n", c.name, c.synopsis)
		fs := newFlags(c.name, w)
		c.define(fs)
		commandHelp(w, c, fs)
	}
	fmt.Fprint(w, "\n", players.SpecHelp(), "\ngames:\n", games.Describe())
}

// commandHelp writes a subcommand's description and flags.
func commandHelp(w io.Writer, c command, fs *flag.FlagSet) {
	for _, line := range strings.Split(c.doc, "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
	fmt.Fprintln(w, "flags:")
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// run is the whole command; main only wires the process to it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr, false)
		return fmt.Errorf("no subcommand (%s)", commandNames())
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout, true)
		return nil
	case "-version", "--version":
		return printVersion(stdout)
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		fs := newFlags(c.name, stderr)
		exec := c.define(fs)
		fs.Usage = func() {
			fmt.Fprintf(stderr, "usage: arena %s %s\n", c.name, c.synopsis)
			commandHelp(stderr, c, fs)
			if c.name != "solve" {
				fmt.Fprintln(stderr, "\"arena help\" lists the player kinds and games.")
			}
		}
		if err := cliflag.Parse(fs, args[1:]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return &cmdError{c.name, err}
		}
		if fs.NArg() > 0 {
			return &cmdError{c.name, fmt.Errorf("unexpected argument %q (flags go before it)", fs.Arg(0))}
		}
		if err := exec(ctx, stdin, stdout, stderr); err != nil {
			return &cmdError{c.name, err}
		}
		return nil
	}
	usage(stderr, false)
	return fmt.Errorf("unknown subcommand %q; valid: %s, help", args[0], commandNames())
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("arena "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// newBar returns the progress display of a job: a bar on a terminal, plain
// periodic lines anywhere else, nothing with -quiet.
func newBar(total int, desc string, stderr io.Writer, quiet bool) progress.Bar {
	if quiet {
		stderr = nil
	}
	return progress.New(stderr, total, desc)
}

// eachJSONLine calls each with every non-blank line of r (the file path)
// and its line number, until each returns false or an error; a line too long
// to read is an error naming path.
func eachJSONLine(r io.Reader, path string, each func(line int, data []byte) (more bool, err error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if more, err := each(line, sc.Bytes()); err != nil || !more {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// jsonLines writes values as JSON lines to a file created at path.
type jsonLines struct {
	f   *os.File
	enc *json.Encoder
}

func createJSONLines(path string) (*jsonLines, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	return &jsonLines{f: f, enc: json.NewEncoder(f)}, nil
}

func (j *jsonLines) write(v any) error {
	if j == nil {
		return nil
	}
	return j.enc.Encode(v)
}

func (j *jsonLines) close() error {
	if j == nil {
		return nil
	}
	if err := j.f.Close(); err != nil {
		return fmt.Errorf("output %s: %w", j.f.Name(), err)
	}
	return nil
}

// writeSGF writes game record r of game g (go or othello) as an SGF file.
func writeSGF(path string, g games.Game, r match.GameRecord) error {
	acts, err := g.(games.Notation).ParseActions(r.Moves)
	if err != nil {
		return fmt.Errorf("-sgf: game %d: %w", r.Index, err)
	}
	rec, err := sgf.FromActions(g, acts, r.Values)
	if err != nil {
		return fmt.Errorf("-sgf: game %d: %w", r.Index, err)
	}
	rec.Black, rec.White = r.Players[0], r.Players[1]
	rec.Date = time.Now().Format("2006-01-02")
	rec.Event = fmt.Sprintf("arena match, game %d", r.Index)
	if _, ok := g.(*gogame.Game); ok {
		rec.Rules = "Tromp-Taylor"
	}
	if f := r.Forfeit; f != nil {
		rec.Result = "BW"[1-f.Side:2-f.Side] + "+F"
		rec.Comment = f.Player + " forfeited: " + f.Reason
	}
	if r.Resigned && r.Winner >= 0 {
		rec.Result = "BW"[r.Winner:r.Winner+1] + "+R"
		rec.Comment = r.Players[1-r.Winner] + " resigned"
	}
	var b bytes.Buffer
	if err := sgf.Write(&b, rec); err != nil {
		return fmt.Errorf("-sgf: game %d: %w", r.Index, err)
	}
	if err := atomicfile.Write(path, b.Bytes()); err != nil {
		return fmt.Errorf("-sgf: %w", err)
	}
	return nil
}

// pgnFile collects a chess match's games as PGN, in game order, and
// rewrites the whole file atomically after each game, so that an
// interrupted match leaves a well-formed file of the games played.
type pgnFile struct {
	path string
	date string
	text bytes.Buffer
}

// add appends game record r to the file.
func (f *pgnFile) add(r match.GameRecord) error {
	g, err := pgnGame(r, f.date)
	if err != nil {
		return fmt.Errorf("-pgn: game %d: %w", r.Index, err)
	}
	if f.text.Len() > 0 {
		f.text.WriteByte('\n')
	}
	f.text.WriteString(g.String())
	if err := atomicfile.Write(f.path, f.text.Bytes()); err != nil {
		return fmt.Errorf("-pgn: %w", err)
	}
	return nil
}

// pgnGame turns a chess game record into a PGN game: the Seven Tag Roster
// (Round is the game's number from 1, White the first mover), the moves
// with each mover's reported value as a {value +0.123} comment, the result,
// and a Termination tag ("adjudication" for a draw at the ply cap, "rules
// infraction" with the reason as a comment for a forfeit).
func pgnGame(r match.GameRecord, date string) (*chess.PGNGame, error) {
	g, err := games.New(r.Game)
	if err != nil {
		return nil, err
	}
	acts, err := g.(games.Notation).ParseActions(r.Moves)
	if err != nil {
		return nil, err
	}
	s := g.NewInitialState()
	pg := &chess.PGNGame{Start: chess.StartPosition()}
	for i, a := range acts {
		if err := games.Play(s, a); err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
		pg.Moves = append(pg.Moves, chess.MoveOf(a))
		if i < len(r.Values) && !math.IsNaN(r.Values[i]) {
			if pg.Comments == nil {
				pg.Comments = make([]string, len(acts))
			}
			pg.Comments[i] = fmt.Sprintf("value %+.3f", r.Values[i])
		}
	}
	switch {
	case r.Winner == 0:
		pg.Result = "1-0"
	case r.Winner == 1:
		pg.Result = "0-1"
	default:
		pg.Result = "1/2-1/2"
	}
	termination := "normal"
	if st, ok := s.(*chess.State); ok && st.Status() == chess.MaxPliesReached {
		termination = "adjudication"
	}
	if f := r.Forfeit; f != nil {
		termination = "rules infraction"
		if len(acts) > 0 {
			if pg.Comments == nil {
				pg.Comments = make([]string, len(acts))
			}
			pg.Comments[len(acts)-1] = strings.TrimSpace(pg.Comments[len(acts)-1] + " " + f.Player + " forfeited: " + f.Reason)
		}
	}
	pg.Tags = [][2]string{{"Event", "tabula arena match"}, {"Site", "tabula"}, {"Date", date},
		{"Round", fmt.Sprint(r.Index + 1)}, {"White", r.Players[0]}, {"Black", r.Players[1]},
		{"Result", pg.Result}, {"PlyCount", fmt.Sprint(len(acts))}, {"Termination", termination}}
	return pg, nil
}

func defineMatch(fs *flag.FlagSet) func(context.Context, io.Reader, io.Writer, io.Writer) error {
	gameSpec := fs.String("game", "", "game spec, e.g. connect4 or othello:size=6 (default: the game of the net players' checkpoints)")
	playerList := fs.String("players", "", "player specs separated by spaces (quote the list) or by a comma before a kind")
	n := fs.Int("games", 10, "games per pair of players")
	parallel := fs.Int("parallel", 0, "games played at once (0: one per core)")
	seed := fs.Uint64("seed", 1, "seed of the match")
	out := fs.String("out", "", "write every game as a JSON line to this file")
	sgfDir := fs.String("sgf", "", "write every game (go and othello) as an SGF file DIR/game-NNNNN.sgf, with each move's value where the player reports one; the folder is made")
	pgnPath := fs.String("pgn", "", "write every game (chess) to this PGN file: the Seven Tag Roster, SAN moves, each move's value as a {comment} where the player reports one, the result")
	records := defineRecords(fs)
	anchor := fs.Int("anchor", 0, "index of the player whose Elo is fixed at 0")
	randomPlies := fs.Int("random-plies", 0, "opening plies played at random before the players take over (fewer than a game's length); the games 2m and 2m+1 of each pair get the same plies with colours swapped, and the result adds a score interval over the pairs")
	openingsFile := fs.String("openings", "", "file of openings, one move sequence a line in the game's notation (e.g. data/chess/openings.txt); the games 2m and 2m+1 of each pair start from opening m, one with each colour, before any random plies")
	quiet := fs.Bool("quiet", false, "no progress bar")
	resume := fs.Bool("resume", false, "continue the match whose games the -out file holds (run with the same -game, -players, -games, -seed, -random-plies and -openings): each recorded game is checked against this match (its players and seats, its opening, random plies and dice, its moves and result), counted, and not played again; the new games are appended, and -sgf, -pgn, -mat and -pons are written for all games (the earlier ones without move values, which -out does not keep). A missing -out file starts the match")
	return func(ctx context.Context, _ io.Reader, stdout, stderr io.Writer) (err error) {
		if *resume && *out == "" {
			return fmt.Errorf("-resume needs -out FILE: the file of the games played so far, to which the rest are added")
		}
		specs, err := players.ParseSpecs(*playerList)
		if err != nil {
			return fmt.Errorf("-players: %w", err)
		}
		if len(specs) < 2 {
			return fmt.Errorf("-players %q names %d player, want at least 2", *playerList, len(specs))
		}
		if *anchor < 0 || *anchor >= len(specs) {
			return fmt.Errorf("-anchor %d outside [0, %d)", *anchor, len(specs))
		}
		var g games.Game
		if *gameSpec != "" {
			g, err = games.New(*gameSpec)
		} else if g, err = players.GameOf(specs); err != nil {
			err = fmt.Errorf("-game is required (%v); valid games: %s", err, strings.Join(games.Names(), ", "))
		}
		if err != nil {
			return err
		}
		if *randomPlies < 0 || *randomPlies >= g.MaxGameLength() {
			return fmt.Errorf("-random-plies %d: want 0 to %d (a game of %s lasts at most %d plies)", *randomPlies, g.MaxGameLength()-1, g.Name(), g.MaxGameLength())
		}
		var openings [][]int
		if *openingsFile != "" {
			f, err := os.Open(*openingsFile)
			if err != nil {
				return fmt.Errorf("-openings: %w", err)
			}
			openings, err = match.ReadOpenings(g, f)
			f.Close()
			if err != nil {
				return fmt.Errorf("-openings %s: %w", *openingsFile, err)
			}
		}
		players, err := players.BuildAll(g, specs)
		if err != nil {
			return err
		}
		defer func() {
			for _, p := range players {
				if cerr := p.Close(); cerr != nil && err == nil {
					err = cerr
				}
			}
		}()
		var jl *jsonLines
		var played []match.GameRecord
		switch {
		case *resume:
			if played, jl, err = resumeJSONLines(*out, g, stderr); err != nil {
				return err
			}
		case *out != "":
			if jl, err = createJSONLines(*out); err != nil {
				return err
			}
		}
		defer func() {
			if cerr := jl.close(); err == nil {
				err = cerr
			}
		}()
		if *sgfDir != "" {
			if !sgf.Supports(g) {
				return fmt.Errorf("-sgf: game %s has no SGF records (go and othello have)", g.Name())
			}
			if err := os.MkdirAll(*sgfDir, 0o755); err != nil {
				return fmt.Errorf("-sgf: %w", err)
			}
		}
		var pgn *pgnFile
		if *pgnPath != "" {
			if games.RulesName(g) != "chess" {
				return fmt.Errorf("-pgn: game %s has no PGN records (chess has)", g.Name())
			}
			pgn = &pgnFile{path: *pgnPath, date: time.Now().Format("2006.01.02")}
		}
		if err := records.check(g); err != nil {
			return err
		}
		pairs := len(players) * (len(players) - 1) / 2
		// The bar counts this run's games, so that its time estimate is
		// not flattered by the games a resumed match played before.
		desc := "games"
		if len(played) > 0 {
			desc = fmt.Sprintf("games (%d played before)", len(played))
		}
		bar := newBar(pairs**n-len(played), desc, stderr, *quiet)
		// other writes game r to the files other than -out.
		other := func(r match.GameRecord) error {
			if pgn != nil {
				if err := pgn.add(r); err != nil {
					return err
				}
			}
			if err := records.record(g, r); err != nil {
				return err
			}
			if *sgfDir == "" {
				return nil
			}
			return writeSGF(filepath.Join(*sgfDir, fmt.Sprintf("game-%05d.sgf", r.Index)), g, r)
		}
		cfg := match.MatchConfig{
			Games: *n, Parallel: *parallel, Seed: *seed, RandomPlies: *randomPlies, Openings: openings,
			Values: *sgfDir != "" || pgn != nil,
			Played: played,
			Record: func(r match.GameRecord) error {
				if err := jl.write(r); err != nil {
					return err
				}
				return other(r)
			},
			Progress: func(done, total int) { _ = bar.Set(done - len(played)) },
		}
		if *resume {
			if err := match.CheckPlayed(cfg, g, match.Names(players), played); err != nil {
				return fmt.Errorf("-resume %s: %w", *out, err)
			}
			for _, r := range played {
				if err := other(r); err != nil {
					return err
				}
			}
			fmt.Fprintf(stderr, "%s: %d of %d games played already; playing the other %d\n", *out, len(played), pairs**n, pairs**n-len(played))
		}
		res, err := match.Match(ctx, cfg, g, players)
		_ = bar.Finish()
		if cerr := records.finish(); err == nil {
			err = cerr
		}
		if err != nil && ctx.Err() != nil && res != nil {
			// Interrupted: the games played so far still count.
			played := 0
			for i := range res.Players {
				played += res.Total(i).Games()
			}
			played /= 2
			if played > 0 {
				fmt.Fprintf(stdout, "interrupted: %d of %d games played\n", played, pairs**n)
				printMatch(stdout, g, res, *anchor)
				printForfeits(stdout, res)
			}
			return fmt.Errorf("interrupted after %d of %d games: %w", played, pairs**n, ctx.Err())
		}
		if err != nil {
			return err
		}
		printMatch(stdout, g, res, *anchor)
		printForfeits(stdout, res)
		return nil
	}
}

// printResignations lists the games that ended by a resignation (an
// outside engine that answered "resign"): lost normally, not forfeited.
func printResignations(w io.Writer, res *match.MatchResult) {
	if len(res.Resignations) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d game(s) ended by resignation:\n", len(res.Resignations))
	for _, r := range res.Resignations {
		fmt.Fprintf(w, "game %d: %s resigned after the moves %q\n", r.Index, r.Players[1-r.Winner], r.Moves)
	}
}

// printRestarts lists the outside engines that died during a game and were
// started again (spec restarts=N): the games went on.
func printRestarts(w io.Writer, res *match.MatchResult) {
	n := 0
	for _, r := range res.Restarted {
		n += len(r.Restarts)
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d engine restart(s) in %d game(s), the games played on:\n", n, len(res.Restarted))
	for _, r := range res.Restarted {
		for _, x := range r.Restarts {
			fmt.Fprintf(w, "game %d: %s died at move %d and was restarted: %s\n", r.Index, x.Player, x.Move, x.Reason)
			if x.Stderr != "" {
				fmt.Fprintf(w, "  engine stderr:\n    %s\n", strings.ReplaceAll(x.Stderr, "\n", "\n    "))
			}
		}
	}
}

// printForfeits lists the games lost by a player's failure (an outside
// engine that crashed, hung or played an illegal move), with the engine's
// last stderr lines.
func printForfeits(w io.Writer, res *match.MatchResult) {
	printResignations(w, res)
	printRestarts(w, res)
	if len(res.Forfeits) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d game(s) forfeited:\n", len(res.Forfeits))
	for _, r := range res.Forfeits {
		f := r.Forfeit
		fmt.Fprintf(w, "game %d: %s forfeited after the moves %q: %s\n", r.Index, f.Player, r.Moves, f.Reason)
		if f.Stderr != "" {
			fmt.Fprintf(w, "  engine stderr:\n    %s\n", strings.ReplaceAll(f.Stderr, "\n", "\n    "))
		}
	}
}

// printMatch writes the win/draw/loss table and the ratings.
func printMatch(w io.Writer, g games.Game, res *match.MatchResult, anchor int) {
	width := 6
	for _, p := range res.Players {
		width = max(width, len(p))
	}
	if res.Scores != nil {
		// Who won a hand or a deal is not the measure in a game scored in
		// its own unit (a poker hand won by a fold may be worth one chip):
		// the score comes first; the count of games won stays for reference.
		printScores(w, res)
		fmt.Fprintf(w, "\n%s: games won-tied-lost by the row player against the column player (for reference: the score above is the result)\n", g.Name())
	} else {
		fmt.Fprintf(w, "%s: wins-draws-losses of the row player against the column player\n", g.Name())
	}
	fmt.Fprintf(w, "%-*s", width+4, "")
	for i := range res.Players {
		fmt.Fprintf(w, " %12s", fmt.Sprintf("[%d]", i))
	}
	fmt.Fprintf(w, " %14s\n", "total")
	for i, p := range res.Players {
		fmt.Fprintf(w, "[%d] %-*s", i, width, p)
		for j := range res.Players {
			if i == j {
				fmt.Fprintf(w, " %12s", "-")
				continue
			}
			x := res.WDL[i][j]
			fmt.Fprintf(w, " %12s", fmt.Sprintf("%d-%d-%d", x.Wins, x.Draws, x.Losses))
		}
		t := res.Total(i)
		fmt.Fprintf(w, " %14s\n", fmt.Sprintf("%d-%d-%d", t.Wins, t.Draws, t.Losses))
	}
	printThink(w, res)
	if res.Scores != nil {
		return // no Elo from games won: the score is the result
	}
	ecfg := elo.DefaultConfig()
	ecfg.Anchor = anchor
	r, err := res.Ratings(ecfg)
	if err != nil {
		fmt.Fprintf(w, "\nno Elo ratings: %v\n", err)
		return
	}
	fmt.Fprintf(w, "\nElo (anchor [%d] = 0; 95%% interval):\n", anchor)
	for i, p := range res.Players {
		t := res.Total(i)
		note := ""
		if r.Extreme[i] && i != anchor {
			note = "  (all wins or all losses: bounded by the prior)"
		}
		fmt.Fprintf(w, "[%d] %-*s %7.0f  [%6.0f, %6.0f]  score %5.1f%%%s\n", i, width, p, r.Elo[i], r.Low[i], r.High[i], 100*t.Score(), note)
	}
	printPairs(w, res)
}

// printThink writes each player's mean wall time a move, where the games
// recorded it.
func printThink(w io.Writer, res *match.MatchResult) {
	var parts []string
	for i := range res.Players {
		if sec, ok := res.SecondsPerMove(i); ok {
			parts = append(parts, fmt.Sprintf("[%d] %.3g s (%d moves)", i, sec, res.ThinkMoves[i]))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "wall time a move: %s\n", strings.Join(parts, ", "))
	}
}

// printScores writes, for a game scored in its own unit (match.Scorer:
// chips in poker, tricks in whist), each pairing's mean score a game over
// its mirrored pairs (the same deal, seats swapped) with the 95% interval
// from the spread of the pairs.
func printScores(w io.Writer, res *match.MatchResult) {
	fmt.Fprintf(w, "score in %s a game of the first player of each pairing, over mirrored pairs (each deal played twice, seats swapped); 95%% interval from the pairs\n", res.ScoreUnit)
	for i := range res.Players {
		for j := i + 1; j < len(res.Players); j++ {
			sc := res.Scores[i][j]
			if sc.N == 0 {
				continue
			}
			m, lo, hi := sc.Interval()
			fmt.Fprintf(w, "[%d] %s vs [%d] %s: %d pairs, %+.3f %s a game [%+.3f, %+.3f]\n", i, res.Players[i], j, res.Players[j], sc.N, m, res.ScoreUnit, lo, hi)
		}
	}
}

// printPairs writes, when the games were paired (dice, openings or random
// plies), each pairing's score over its mirrored pairs of games (same dice
// and opening, colours swapped) with the interval from the pairs' spread,
// and for a game with gammons the wins by what they were worth.
func printPairs(w io.Writer, res *match.MatchResult) {
	if res.Pairs != nil {
		fmt.Fprintln(w, "\nmirrored pairs (each opening and dice sequence played twice, colours swapped): score of the first player, 95% interval over the pairs")
		for i := range res.Players {
			for j := i + 1; j < len(res.Players); j++ {
				ps := res.Pairs[i][j]
				if ps.N == 0 {
					continue
				}
				m, lo, hi := ps.Interval()
				fmt.Fprintf(w, "[%d] vs [%d]: %d pairs, score %.1f%% [%.1f%%, %.1f%%], Elo %+.0f [%+.0f, %+.0f]\n",
					i, j, ps.N, 100*m, 100*lo, 100*hi, elo.FromScore(m), elo.FromScore(lo), elo.FromScore(hi))
			}
		}
	}
	if res.WinPoints != nil {
		fmt.Fprintln(w, "\nwins by points (single-gammon-backgammon) and net points a game (cubeless, no doubling), and over the mirrored pairs with their 95% interval")
		for i := range res.Players {
			for j := i + 1; j < len(res.Players); j++ {
				a, b := res.WinPoints[i][j], res.WinPoints[j][i]
				n := res.WDL[i][j].Games()
				if n == 0 {
					continue
				}
				fmt.Fprintf(w, "[%d] vs [%d]: [%d] won %d-%d-%d, [%d] won %d-%d-%d; [%d] nets %+.3f points a game",
					i, j, i, a.Single, a.Gammon, a.Backgammon, j, b.Single, b.Gammon, b.Backgammon, i, float64(a.Points()-b.Points())/float64(n))
				if res.PointPairs != nil && res.PointPairs[i][j].N > 0 {
					// The interval from the spread of the mirrored pairs' net points.
					ps := res.PointPairs[i][j]
					m, lo, hi := ps.Interval()
					fmt.Fprintf(w, "; over %d mirrored pairs %+.3f [%+.3f, %+.3f]", ps.N, m, lo, hi)
				}
				fmt.Fprintln(w)
			}
		}
	}
}

func defineBench(fs *flag.FlagSet) func(context.Context, io.Reader, io.Writer, io.Writer) error {
	gameSpec := fs.String("game", "connect4", "game: connect4, or othello[:size=6] with data/othello's sets")
	playerSpec := fs.String("player", "", "player spec (required)")
	posPath := fs.String("positions", "", "Pons-format positions file (required; othello: a set of data/othello, or several separated by commas)")
	out := fs.String("out", "", "write one JSON line per position to this file")
	seed := fs.Uint64("seed", 1, "seed of the player")
	ttBits := fs.Int("solver-tt", c4solver.DefaultTableLog2, "log2 of the reference solver's table entries")
	exact := fs.Bool("scores", false, "also write the exact score of every column (slow on early positions)")
	first := fs.Int("n", 0, "use only the first N positions of the file (0: all)")
	cache := fs.String("verdicts", "", "JSON file caching the solver's verdicts for these positions: read if it holds them, extended if it holds the first of them, written if missing (its folder must exist); a file holding anything else is refused")
	force := fs.Bool("force", false, "with -verdicts: replace a file that holds anything but verdicts of these positions")
	known := fs.String("known-verdicts", "data/connect4/verdicts", "folder of shipped verdicts, DIR/<positions file name>.json, used instead of solving when they cover these positions (\"\": never)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	return func(ctx context.Context, _ io.Reader, stdout, stderr io.Writer) (err error) {
		g, err := games.New(*gameSpec)
		if err != nil {
			return err
		}
		if *posPath == "" {
			return errors.New("-positions FILE is required")
		}
		if og, ok := g.(*othello.Game); ok {
			return benchOthello(ctx, og, *playerSpec, *posPath, *out, *seed, *first, *quiet, stdout, stderr)
		}
		if g.Name() != "connect4" {
			return fmt.Errorf("game %s: bench needs connect4 or othello (the solver decides mistakes)", g.Name())
		}
		if *first < 0 {
			return fmt.Errorf("-n %d, want >= 0", *first)
		}
		spec, err := players.ParseSpec(*playerSpec)
		if err != nil {
			return fmt.Errorf("-player: %w", err)
		}
		f, err := os.Open(*posPath)
		if err != nil {
			return err
		}
		positions, err := bench.ReadPositions(f, *posPath)
		f.Close()
		if err != nil {
			return err
		}
		if len(positions) == 0 {
			return fmt.Errorf("%s: no positions", *posPath)
		}
		if *first > 0 && len(positions) > *first {
			positions = positions[:*first]
		}
		var verdicts *bench.Verdicts
		var shipped []string
		if *known != "" {
			shipped = append(shipped, filepath.Join(*known, filepath.Base(*posPath)+".json"))
		}
		if *cache == "" {
			var ok bool
			if verdicts, _, ok = bench.KnownVerdicts(positions, shipped...); !ok {
				fmt.Fprintf(stderr, "arena bench: no -verdicts file and no shipped verdicts for %s: the solver decides each position as it comes (seconds each on early positions); -verdicts FILE keeps them for the next run\n", *posPath)
			}
		} else {
			vbar := newBar(len(positions), "solving", stderr, *quiet)
			verdicts, err = bench.LoadOrSolveVerdicts(ctx, *cache, positions, *ttBits, *force, func(done, total int) { _ = vbar.Set(done) }, shipped...)
			_ = vbar.Finish()
			if errors.Is(err, bench.ErrOtherVerdicts) {
				return fmt.Errorf("%w; give another -verdicts file name, or -force to replace it", err)
			}
			if err != nil {
				return err
			}
		}
		player, err := players.Build(g, spec)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := player.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}()
		var jl *jsonLines
		if *out != "" {
			if jl, err = createJSONLines(*out); err != nil {
				return err
			}
		}
		bar := newBar(len(positions), "positions", stderr, *quiet)
		cfg := bench.BenchConfig{
			SolverTableLog2: *ttBits, Seed: *seed, ExactScores: *exact, Verdicts: verdicts,
			Record:   func(r bench.BenchRecord) error { return jl.write(r) },
			Progress: func(done, total int) { _ = bar.Set(done) },
		}
		res, err := bench.Bench(ctx, cfg, player, positions)
		_ = bar.Finish()
		if cerr := jl.close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		lo, hi := res.MistakeInterval()
		fmt.Fprintf(stdout, "%s on %s: %d positions, %d mistakes (%.1f%% [%.1f%%, %.1f%%]), %.3f ms per move; %d positions (%.1f%%) admit a mistake\n",
			player.Name, *posPath, res.Positions, res.Mistakes, 100*res.MistakeRate(), 100*lo, 100*hi,
			float64(res.TimePerMove().Microseconds())/1000, res.Open, 100*float64(res.Open)/float64(max(1, res.Positions)))
		return nil
	}
}

func defineSolve(fs *flag.FlagSet) func(context.Context, io.Reader, io.Writer, io.Writer) error {
	gameSpec := fs.String("game", "connect4", "game (connect4 only)")
	posPath := fs.String("positions", "", "Pons-format positions file (default: standard input)")
	all := fs.Bool("all", false, "print the score of playing each column (-1000: the column is full)")
	ttBits := fs.Int("tt", c4solver.DefaultTableLog2, "log2 of the solver's table entries")
	return func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
		g, err := games.New(*gameSpec)
		if err != nil {
			return err
		}
		if g.Name() != "connect4" {
			return fmt.Errorf("game %s: the solver plays connect4 only", g.Name())
		}
		sv, err := c4solver.New(*ttBits)
		if err != nil {
			return err
		}
		in, name := stdin, "stdin"
		if *posPath != "" {
			f, err := os.Open(*posPath)
			if err != nil {
				return err
			}
			defer f.Close()
			in, name = f, *posPath
		}
		if *all {
			fmt.Fprintln(stderr, "# moves, then the score of playing column 1 2 3 4 5 6 7 (Pons' convention, for the player to move; -1000: full)")
		} else {
			fmt.Fprintln(stderr, "# moves score (Pons' convention, for the player to move: >0 win, 0 draw, <0 loss)")
		}
		return bench.Solve(ctx, in, name, stdout, *all, sv)
	}
}
