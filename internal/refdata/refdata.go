// Package refdata finds the shared reference data (../shared/refdata beside
// the checkout, or $TABULA_REFDATA) and outside programs. It does not import
// testing, so production code may use it; the skip-or-fail helpers for
// tests are in refdatatest.
package refdata

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// RequireAllEnv names the environment variable that CI sets: with it, tests
// that would skip for a missing outside program or file fail instead (see
// refdatatest).
const RequireAllEnv = "TABULA_REQUIRE_ALL"

// Dir returns the reference-data folder, or an error saying where it looked.
func Dir() (string, error) {
	if d := os.Getenv("TABULA_REFDATA"); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			ref := filepath.Join(filepath.Dir(d), "shared", "refdata")
			if _, err := os.Stat(ref); err != nil {
				return "", fmt.Errorf("reference data not found at %s (set TABULA_REFDATA): %w", ref, err)
			}
			return ref, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s, so no ../shared/refdata", wd)
		}
	}
}

// LookProgram finds an outside program on PATH or in Debian's games
// directories, which are not on root's PATH by default.
func LookProgram(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/games", "/usr/local/games"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH or in /usr/games", name)
}
