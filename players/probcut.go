package players

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"tabula/games"
	"tabula/search"
)

// defaultProbCutFile is where the shipped ProbCut fits live, relative to
// the repository root.
var defaultProbCutFile = filepath.Join("data", "othello", "probcut.json")

// probCutOf reads the probcut, mpc, pct and pcfile keys of an alphabeta
// spec: the checks to use (none when both switches are off) and the
// confidence t.
func probCutOf(g games.Game, spec Spec) (search.ProbCut, float64, error) {
	pcOn, mpcOn := spec.Int("probcut", 0) == 1, spec.Int("mpc", 0) == 1
	t := spec.Float("pct", 1.5)
	if !pcOn && !mpcOn {
		for _, k := range []string{"pct", "pcfile"} {
			if spec.Has(k) {
				return search.ProbCut{}, 0, fmt.Errorf("%s needs probcut=1 or mpc=1", k)
			}
		}
		return search.ProbCut{}, 0, nil
	}
	if pcOn && mpcOn {
		return search.ProbCut{}, 0, fmt.Errorf("probcut=1 and mpc=1: give one (mpc is the multi-depth, per-stage version)")
	}
	if _, ok := g.NewInitialState().(search.EmptySquares); !ok {
		return search.ProbCut{}, 0, fmt.Errorf("probcut and mpc are fitted for othello, not %s", g.Name())
	}
	path := spec.Str("pcfile", "")
	if path == "" {
		p, err := findUp(defaultProbCutFile)
		if err != nil {
			return search.ProbCut{}, 0, fmt.Errorf("probcut: %w (give the fit file with pcfile=FILE)", err)
		}
		path = p
	}
	m, err := search.LoadProbCut(path)
	if err != nil {
		return search.ProbCut{}, 0, err
	}
	if m.Game != g.Name() {
		return search.ProbCut{}, 0, fmt.Errorf("probcut %s: fitted for %s, not %s", path, m.Game, g.Name())
	}
	if mpcOn {
		return m.MPC, t, nil
	}
	return m.ProbCut, t, nil
}

// findUp looks for rel in the working folder and the folders above it.
func findUp(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no %s in the working folder or above it", rel)
		}
		dir = up
	}
}
