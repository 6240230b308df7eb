package connect4

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// PonsGame is one game as a line of a Pons record file: the columns played
// (1-7, as Pascal Pons' solver reads positions, e.g. "4453") and the
// result.
type PonsGame struct {
	Actions []int
	// Result is "1-0" (the first player won), "0-1", "1/2-1/2" (a full
	// board) or "*" (the game did not end, e.g. a forfeit).
	Result string
}

// ponsResult returns the result of the game that actions play, checking
// their legality.
func ponsResult(actions []int) (string, error) {
	s := NewState()
	for i, a := range actions {
		if !s.IsLegal(a) {
			return "", fmt.Errorf("connect4: move %d (column %d) is not legal", i+1, a+1)
		}
		s.ApplyAction(a)
	}
	switch r := s.Returns(); {
	case !s.IsTerminal():
		return "*", nil
	case r[0] > 0:
		return "1-0", nil
	case r[1] > 0:
		return "0-1", nil
	}
	return "1/2-1/2", nil
}

// WritePons writes one game as a line "4453... RESULT", the result taken
// from the moves: a finished game's winner or draw, "*" for an unfinished
// one.
func WritePons(w io.Writer, actions []int) error {
	res, err := ponsResult(actions)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s %s\n", Game{}.FormatActions(actions), res)
	return err
}

// ReadPons reads a file of Pons lines (blank lines and lines starting
// with # are skipped), replaying each game and checking that its result is
// what its moves give. Errors name the line.
func ReadPons(r io.Reader) ([]PonsGame, error) {
	var out []PonsGame
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("connect4: Pons record line %d: %q is not \"MOVES RESULT\" (e.g. 4453 1-0)", n, line)
		}
		acts, err := Game{}.ParseActions(f[0])
		if err != nil {
			return nil, fmt.Errorf("connect4: Pons record line %d: %w", n, err)
		}
		res, err := ponsResult(acts)
		if err != nil {
			return nil, fmt.Errorf("connect4: Pons record line %d: %w", n, err)
		}
		if f[1] != res {
			return nil, fmt.Errorf("connect4: Pons record line %d: result %q, the moves give %q", n, f[1], res)
		}
		out = append(out, PonsGame{Actions: acts, Result: res})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("connect4: Pons record: %w", err)
	}
	return out, nil
}
