package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"tabula/internal/atomicfile"
	"tabula/search/c4solver"
)

// Verdicts holds the solver's win/draw/loss outcome (+1, 0, -1 for the player
// to move; c4solver.Invalid for a full column) of every column of a list of
// positions. They never change, and the early positions of Pons' sets take
// the solver seconds each, so they are worth keeping on disk: see
// LoadOrSolveVerdicts.
type Verdicts struct {
	Positions []string `json:"positions"` // the moves of each position
	Outcomes  [][7]int `json:"outcomes"`
}

// matches reports whether v was computed for exactly these positions.
func (v *Verdicts) matches(positions []Position) bool {
	if v == nil || len(v.Positions) != len(positions) || len(v.Outcomes) != len(positions) {
		return false
	}
	for i, p := range positions {
		if v.Positions[i] != p.Moves {
			return false
		}
	}
	return true
}

// SolveVerdicts computes the outcomes of every column of every position with
// a solver of 2^tableLog2 entries (0: the default). progress, if set, is
// called after each position.
func SolveVerdicts(ctx context.Context, positions []Position, tableLog2 int, progress func(done, total int)) (*Verdicts, error) {
	if tableLog2 == 0 {
		tableLog2 = c4solver.DefaultTableLog2
	}
	sv, err := c4solver.New(tableLog2)
	if err != nil {
		return nil, fmt.Errorf("arena: verdicts: %w", err)
	}
	v := &Verdicts{}
	for k, p := range positions {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("arena: verdicts stopped: %w", err)
		}
		v.Positions = append(v.Positions, p.Moves)
		v.Outcomes = append(v.Outcomes, sv.OutcomeMoves(p.State))
		if progress != nil {
			progress(k+1, len(positions))
		}
	}
	return v, nil
}

// prefix returns the verdicts of positions if v begins with exactly these
// positions (it may hold more).
func (v *Verdicts) prefix(positions []Position) (*Verdicts, bool) {
	n := len(positions)
	if len(v.Positions) < n || len(v.Outcomes) != len(v.Positions) {
		return nil, false
	}
	for i, p := range positions {
		if v.Positions[i] != p.Moves {
			return nil, false
		}
	}
	return &Verdicts{Positions: v.Positions[:n:n], Outcomes: v.Outcomes[:n:n]}, true
}

// ErrOtherVerdicts is returned (wrapped) by LoadOrSolveVerdicts when its
// cache file holds something other than verdicts for the positions asked
// for: verdicts of other positions, or not verdicts at all. Such a file may
// have taken hours to compute, so it is replaced only when asked to (force).
var ErrOtherVerdicts = errors.New("not replaced")

// contentError says what is wrong with a file's content (not with reading it).
type contentError struct{ msg string }

func (e *contentError) Error() string { return e.msg }

// decodeVerdicts reads data as a verdicts file: a JSON object with exactly
// the keys positions and outcomes, one outcome row per position.
func decodeVerdicts(data []byte) (*Verdicts, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, &contentError{"it is not a verdicts file (not a JSON object)"}
	}
	_, hasP := fields["positions"]
	_, hasO := fields["outcomes"]
	if !hasP || !hasO || len(fields) != 2 {
		return nil, &contentError{"it is not a verdicts file (want the keys positions and outcomes)"}
	}
	var v Verdicts
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, &contentError{"it is not a verdicts file: " + err.Error()}
	}
	if len(v.Outcomes) != len(v.Positions) {
		return nil, &contentError{fmt.Sprintf("it is damaged: %d positions but %d outcome rows", len(v.Positions), len(v.Outcomes))}
	}
	return &v, nil
}

// readVerdicts reads a verdicts file and keeps the part for positions. ok is
// false, with a nil error, when the file is a verdicts file for other
// positions; all holds the whole file then.
func readVerdicts(file string, positions []Position) (v *Verdicts, ok bool, err error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, false, err
	}
	all, err := decodeVerdicts(data)
	if err != nil {
		return nil, false, err
	}
	p, ok := all.prefix(positions)
	if !ok {
		return all, false, nil
	}
	return p, true, nil
}

// startsPositions reports whether v's positions are the first of positions.
func (v *Verdicts) startsPositions(positions []Position) bool {
	if len(v.Positions) > len(positions) {
		return false
	}
	for i, m := range v.Positions {
		if positions[i].Moves != m {
			return false
		}
	}
	return true
}

// LoadOrSolveVerdicts returns the verdicts for positions from the JSON file
// cache if it begins with these positions, else from the first of the
// read-only files known that does (the repository ships them for Pons' sets,
// see data/connect4/verdicts), and otherwise solves them. A cache that holds
// the first of these positions only is extended: only the rest are solved.
// What it did not read from cache it writes there, atomically; the cache's
// folder must exist. A cache that holds anything else (verdicts of other
// positions, a damaged file, a file of another kind) is an error wrapping
// ErrOtherVerdicts, found before any solving, unless force is set: then it is
// replaced. A known file that is missing or does not fit is passed over.
func LoadOrSolveVerdicts(ctx context.Context, cache string, positions []Position, tableLog2 int, force bool, progress func(done, total int), known ...string) (*Verdicts, error) {
	v, ok, err := readVerdicts(cache, positions)
	var have *Verdicts // a cached start of positions, to extend
	var content *contentError
	switch {
	case ok:
		return v, nil
	case errors.Is(err, os.ErrNotExist):
		dir := filepath.Dir(cache)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("verdicts file %s: folder %s does not exist", cache, dir)
		}
	case errors.As(err, &content):
		if !force {
			return nil, fmt.Errorf("verdicts file %s: %v; %w", cache, content, ErrOtherVerdicts)
		}
	case err != nil:
		return nil, fmt.Errorf("verdicts file %s: %w", cache, err)
	case v.startsPositions(positions):
		have = v
	case !force:
		return nil, fmt.Errorf("verdicts file %s holds the verdicts of %d other positions (the first %q), not of these %d (the first %q); %w",
			cache, len(v.Positions), firstOr(v.Positions), len(positions), positions[0].Moves, ErrOtherVerdicts)
	}
	v, _, ok = KnownVerdicts(positions, known...)
	if !ok {
		start := 0
		if have != nil {
			start = len(have.Positions)
		}
		step := progress
		if progress != nil && start > 0 {
			step = func(done, total int) { progress(start+done, start+total) }
		}
		rest, err := SolveVerdicts(ctx, positions[start:], tableLog2, step)
		if err != nil {
			return nil, err
		}
		v = rest
		if have != nil {
			v = &Verdicts{Positions: append(have.Positions, rest.Positions...), Outcomes: append(have.Outcomes, rest.Outcomes...)}
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(cache, data); err != nil {
		return nil, fmt.Errorf("verdicts file %s: %w", cache, err)
	}
	return v, nil
}

// KnownVerdicts returns the verdicts for positions from the first of the
// read-only files known that begins with them (see LoadOrSolveVerdicts), and
// the file it used. ok is false when none does; a missing or damaged file is
// passed over.
func KnownVerdicts(positions []Position, known ...string) (v *Verdicts, file string, ok bool) {
	for _, k := range known {
		if v, ok, _ := readVerdicts(k, positions); ok {
			return v, k, true
		}
	}
	return nil, "", false
}

func firstOr(moves []string) string {
	if len(moves) == 0 {
		return ""
	}
	return moves[0]
}
