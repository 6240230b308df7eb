package backgammon

import (
	"fmt"
	"os"
	"path/filepath"
)

// EnsureGnubgHome creates GNU Backgammon's settings folder, $HOME/.gnubg,
// if it is missing; call it before starting gnubg processes. gnubg creates
// the folder at start, checking first and failing with "File exists" when
// another gnubg made it in between: on a fresh machine two processes
// started at once can lose that race (seen once, in .ci/run's first test
// run on a fresh machine). Without a home folder it does nothing: gnubg
// reports what it lacks.
func EnsureGnubgHome() error {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(home, ".gnubg"), 0o755); err != nil {
		return fmt.Errorf("gnubg's settings folder: %w", err)
	}
	return nil
}
