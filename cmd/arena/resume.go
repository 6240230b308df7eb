package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"tabula/games"
	"tabula/match"
)

// resumeJSONLines reads the game records of an earlier run of a match from
// path ("arena match -out"), to be checked and counted by the match
// (match.MatchConfig.Played), and opens the file to append the games still
// to play. A missing file starts the match afresh. A last line without its
// newline is a record cut off mid-write (the run was killed): it is
// dropped from the file, with a note on stderr. Every other line must be a
// record of a game of g.
func resumeJSONLines(path string, g games.Game, stderr io.Writer) ([]match.GameRecord, *jsonLines, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		jl, err := createJSONLines(path)
		return nil, jl, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("-resume: %w", err)
	}
	whole := data
	if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
		whole = data[:i+1]
	}
	var recs []match.GameRecord
	err = eachJSONLine(bytes.NewReader(whole), path, func(line int, b []byte) (bool, error) {
		var r match.GameRecord
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return false, fmt.Errorf("-resume: %s:%d: not a game record: %w", path, line, err)
		}
		if r.Game != g.Name() {
			return false, fmt.Errorf("-resume: %s:%d: a game of %q, the match plays %s", path, line, r.Game, g.Name())
		}
		recs = append(recs, r)
		return true, nil
	})
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("-resume: %w", err)
	}
	if len(whole) < len(data) {
		if err := f.Truncate(int64(len(whole))); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("-resume: %s: dropping the unfinished last line: %w", path, err)
		}
		fmt.Fprintf(stderr, "%s: dropped an unfinished last line (%d bytes)\n", path, len(data)-len(whole))
	}
	if _, err := f.Seek(int64(len(whole)), io.SeekStart); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("-resume: %w", err)
	}
	return recs, &jsonLines{f: f, enc: json.NewEncoder(f)}, nil
}
