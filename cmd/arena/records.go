package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/games/connect4"
	"tabula/games/records"
	"tabula/internal/atomicfile"
	"tabula/match"
)

// gameRecords writes a match's games in the formats other programs read:
// gnubg's .mat files for backgammon (-mat DIR) and Pons move strings for
// Connect Four (-pons FILE). Go and Othello SGF files are -sgf's.
type gameRecords struct {
	matDir, ponsFile *string
	pons             bytes.Buffer // the -pons lines, written at the end
}

func defineRecords(fs *flag.FlagSet) *gameRecords {
	return &gameRecords{
		matDir:   fs.String("mat", "", "write every backgammon game as a gnubg match file DIR/game-NNNNN.mat (a money session, \"0 point match\", for scoring=money; a 1 point match otherwise), which gnubg reads with \"import mat\"; the folder is made"),
		ponsFile: fs.String("pons", "", "write every Connect Four game as a line of FILE: its columns 1-7 as Pascal Pons' solver reads them and the result (1-0, 0-1, 1/2-1/2, * unfinished), e.g. \"4453... 1-0\"; written at the end of the match"),
	}
}

// check refuses a game without the asked format and makes the -mat folder.
func (gr *gameRecords) check(g games.Game) error {
	if *gr.matDir != "" {
		if _, ok := g.(*backgammon.Game); !ok {
			return fmt.Errorf("-mat: game %s has no .mat records (backgammon has)", g.Name())
		}
		if err := os.MkdirAll(*gr.matDir, 0o755); err != nil {
			return fmt.Errorf("-mat: %w", err)
		}
	}
	if *gr.ponsFile != "" {
		if _, ok := g.(connect4.Game); !ok {
			return fmt.Errorf("-pons: game %s has no Pons records (connect4 has)", g.Name())
		}
	}
	return nil
}

// record writes game r (a .mat file) or keeps its Pons line.
func (gr *gameRecords) record(g games.Game, r match.GameRecord) error {
	if *gr.matDir == "" && *gr.ponsFile == "" {
		return nil
	}
	acts, err := g.(games.Notation).ParseActions(r.Moves)
	if err != nil {
		return fmt.Errorf("game %d: %w", r.Index, err)
	}
	if *gr.ponsFile != "" {
		if err := connect4.WritePons(&gr.pons, acts); err != nil {
			return fmt.Errorf("-pons: game %d: %w", r.Index, err)
		}
	}
	if *gr.matDir != "" {
		var b bytes.Buffer
		rec := records.Game{Players: r.Players, Actions: acts, Event: fmt.Sprintf("arena match, game %d", r.Index), Date: time.Now().Format("2006-01-02")}
		if err := records.Write(&b, g, rec); err != nil {
			return fmt.Errorf("-mat: game %d: %w", r.Index, err)
		}
		if err := atomicfile.Write(filepath.Join(*gr.matDir, fmt.Sprintf("game-%05d.mat", r.Index)), b.Bytes()); err != nil {
			return fmt.Errorf("-mat: %w", err)
		}
	}
	return nil
}

// finish writes the -pons file with the games recorded so far.
func (gr *gameRecords) finish() error {
	if *gr.ponsFile == "" {
		return nil
	}
	if err := atomicfile.Write(*gr.ponsFile, gr.pons.Bytes()); err != nil {
		return fmt.Errorf("-pons: %w", err)
	}
	return nil
}
