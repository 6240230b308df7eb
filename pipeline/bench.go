package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"tabula/arena"
	"tabula/internal/atomicfile"
	"tabula/search/c4solver"
)

// benchVerdicts holds the exact outcome of every column of the first
// positions of one Pons set. The solver's verdicts never change, so a run
// computes them once and keeps them in its folder; each benchmark after that
// costs only the network's moves.
type benchVerdicts struct {
	Set       string   `json:"set"`
	Positions []string `json:"positions"`
	Outcomes  [][7]int `json:"outcomes"` // +1/0/-1 per column, c4solver.Invalid for a full column
}

// loadVerdicts reads the cached verdicts for the first n positions of set, or
// computes them with the solver and saves them atomically.
func loadVerdicts(runRoot, dir, set string, n int) (*benchVerdicts, []arena.Position, error) {
	f, err := os.Open(filepath.Join(dir, set))
	if err != nil {
		return nil, nil, fmt.Errorf("bench: %w", err)
	}
	pos, err := arena.ReadPositions(f, set)
	f.Close()
	if err != nil {
		return nil, nil, err
	}
	if len(pos) > n {
		pos = pos[:n]
	}
	cache := filepath.Join(runRoot, "bench", fmt.Sprintf("%s-%d.json", set, len(pos)))
	if data, err := os.ReadFile(cache); err == nil {
		var v benchVerdicts
		if err := json.Unmarshal(data, &v); err == nil && v.Set == set && len(v.Outcomes) == len(pos) && samePositions(v.Positions, pos) {
			return &v, pos, nil
		}
		// A damaged or stale cache is simply recomputed and replaced.
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("bench: %w", err)
	}
	sv, err := c4solver.New(c4solver.DefaultTableLog2)
	if err != nil {
		return nil, nil, err
	}
	v := &benchVerdicts{Set: set}
	for _, p := range pos {
		v.Positions = append(v.Positions, p.Moves)
		v.Outcomes = append(v.Outcomes, sv.OutcomeMoves(p.State))
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
		return nil, nil, fmt.Errorf("bench: %w", err)
	}
	if err := atomicfile.Write(cache, data); err != nil {
		return nil, nil, err
	}
	return v, pos, nil
}

func samePositions(cached []string, pos []arena.Position) bool {
	if len(cached) != len(pos) {
		return false
	}
	for i := range pos {
		if cached[i] != pos[i].Moves {
			return false
		}
	}
	return true
}

// mistakeRate plays one fresh player of f per position and counts the moves
// the verdicts call mistakes.
func mistakeRate(ctx context.Context, f *arena.Factory, v *benchVerdicts, pos []arena.Position, seed uint64) (float64, error) {
	mistakes := 0
	for k, p := range pos {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		pl, err := f.New(benchRNG(seed, k))
		if err != nil {
			return 0, err
		}
		a, err := pl.ChooseAction(ctx, p.State.Clone())
		if err != nil {
			return 0, fmt.Errorf("bench %s line %d: %w", v.Set, p.Line, err)
		}
		if !p.State.IsLegal(a) {
			return 0, fmt.Errorf("bench %s line %d: illegal move %d", v.Set, p.Line, a+1)
		}
		if arena.IsMistake(v.Outcomes[k], a) {
			mistakes++
		}
	}
	if len(pos) == 0 {
		return 0, nil
	}
	return float64(mistakes) / float64(len(pos)), nil
}

func benchRNG(seed uint64, k int) *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(k)+1)) }
