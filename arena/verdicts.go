package arena

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

// readVerdicts reads a verdicts file and keeps the part for positions.
func readVerdicts(file string, positions []Position) (*Verdicts, bool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, false, err
	}
	var v Verdicts
	if json.Unmarshal(data, &v) != nil {
		return nil, false, nil
	}
	p, ok := v.prefix(positions)
	return p, ok, nil
}

// LoadOrSolveVerdicts returns the verdicts for positions from the JSON file
// cache if it begins with these positions, else from the first of the
// read-only files known that does (the repository ships them for Pons' sets,
// see data/connect4/verdicts), and otherwise solves them. What it did not
// read from cache it writes there (atomically, creating its folder). A
// damaged or stale cache is recomputed and replaced; a known file that is
// missing or does not fit is passed over.
func LoadOrSolveVerdicts(ctx context.Context, cache string, positions []Position, tableLog2 int, progress func(done, total int), known ...string) (*Verdicts, error) {
	v, ok, err := readVerdicts(cache, positions)
	switch {
	case ok:
		return v, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("arena: verdicts: %w", err)
	}
	for _, k := range known {
		if v, ok, _ = readVerdicts(k, positions); ok {
			break
		}
	}
	if !ok {
		if v, err = SolveVerdicts(ctx, positions, tableLog2, progress); err != nil {
			return nil, err
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
		return nil, fmt.Errorf("arena: verdicts: %w", err)
	}
	if err := atomicfile.Write(cache, data); err != nil {
		return nil, fmt.Errorf("arena: verdicts: %w", err)
	}
	return v, nil
}
