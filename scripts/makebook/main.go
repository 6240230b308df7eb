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
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"tabula/games"
	_ "tabula/games/all"
	"tabula/games/chess"
	"tabula/search/book"
)

func main() {
	out := flag.String("out", "", "the book file to write (required)")
	cfg := book.DefaultBuildConfig()
	flag.IntVar(&cfg.MaxPly, "max-ply", cfg.MaxPly, "count the first N plies of each game")
	flag.IntVar(&cfg.MinGame, "min-game", cfg.MinGame, "keep a move played at least N times in its position")
	flag.StringVar(&cfg.Mode, "mode", book.ModeCount, "count (make-book's tally) or negamax (results backed up)")
	flag.Float64Var(&cfg.Margin, "margin", 0, "with -mode negamax, keep moves within this much of the best value, 0..2")
	flag.Parse()
	if err := run(*out, cfg, flag.Args()); err != nil {
		log.Fatal("makebook: ", err)
	}
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
