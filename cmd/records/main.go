// Command records converts a training run's game records (selfplay.records:
// the run folder's records/*.rec files) to each game's standard format:
// SGF files for Go and Othello, gnubg .mat files for backgammon, one file
// of Pons move strings for Connect Four.
//
//	go run ./cmd/records -run runs/connect4 -out DIR [-kind selfplay|gating|ladder]
//	go run ./cmd/records -version
//
// Every record is replayed and checked (legal moves, a value a move, a
// finished game's result equal to the recorded one) before it is written.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"tabula/games"
	_ "tabula/games/all"
	"tabula/games/records"
	"tabula/internal/atomicfile"
	"tabula/internal/version"
	"tabula/replay"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "records:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("records", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runDir := fs.String("run", "", "the run folder (its records/ folder holds the records)")
	out := fs.String("out", "", "the folder to write the games to (made): KIND-NNNNNN.sgf or .mat files, or records.txt of Pons lines for Connect Four")
	kind := fs.String("kind", "", "convert only the records of this kind: selfplay, gating or ladder (default: all)")
	showVersion := version.Flag(fs, stdout)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if showVersion() {
		return nil
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *runDir == "" || *out == "" {
		return errors.New("-run and -out are required")
	}
	switch *kind {
	case "", "selfplay", "gating", "ladder":
	default:
		return fmt.Errorf("-kind %q: want selfplay, gating or ladder", *kind)
	}
	files, err := replay.RecordFiles(filepath.Join(*runDir, "records"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("run %s has no game records (records/*.rec; set selfplay.records: true)", *runDir)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var pons bytes.Buffer
	n, perKind := 0, map[string]int{}
	for _, f := range files {
		recs, err := replay.ReadRecords(f)
		if err != nil {
			return err
		}
		for i, r := range recs {
			if *kind != "" && r.Kind != *kind {
				continue
			}
			where := fmt.Sprintf("%s game %d", filepath.Base(f), i+1)
			data, format, err := convert(&r)
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			perKind[r.Kind]++
			n++
			if format == "pons" {
				pons.Write(data)
				continue
			}
			_, ext := records.Format(mustGame(r.Game))
			name := fmt.Sprintf("%s-%06d%s", r.Kind, perKind[r.Kind], ext)
			if err := atomicfile.Write(filepath.Join(*out, name), data); err != nil {
				return err
			}
		}
	}
	if pons.Len() > 0 {
		if err := atomicfile.Write(filepath.Join(*out, "records.txt"), pons.Bytes()); err != nil {
			return err
		}
	}
	var parts []string
	for _, k := range []string{"selfplay", "gating", "ladder"} {
		if perKind[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", perKind[k], k))
		}
	}
	fmt.Fprintf(stdout, "%d games (%s) from %d files written to %s\n", n, strings.Join(parts, ", "), len(files), *out)
	return nil
}

func mustGame(spec string) games.Game {
	g, _ := games.New(spec)
	return g
}

// convert checks record r by replaying it and writes it in its game's
// format.
func convert(r *replay.GameRecord) ([]byte, string, error) {
	g, err := games.New(r.Game)
	if err != nil {
		return nil, "", err
	}
	format, _ := records.Format(g)
	if format == "" {
		return nil, "", fmt.Errorf("game %s has no record format (%s have)", g.Name(), records.Formats)
	}
	s, err := r.Replay(g)
	if err != nil {
		return nil, "", err
	}
	if s.IsTerminal() && s.Returns() != r.Returns && r.Forfeit == "" {
		return nil, "", fmt.Errorf("the moves end with returns %v, the record says %v", s.Returns(), r.Returns)
	}
	vals := make([]float64, len(r.Values))
	for i, v := range r.Values {
		vals[i] = float64(v)
	}
	rec := records.Game{Players: r.Players, Actions: r.Actions, Values: vals,
		Event: fmt.Sprintf("tabula %s game, generation %d, seed %d", r.Kind, r.Generation, r.Seed)}
	var b bytes.Buffer
	if err := records.Write(&b, g, rec); err != nil {
		return nil, "", err
	}
	return b.Bytes(), format, nil
}
