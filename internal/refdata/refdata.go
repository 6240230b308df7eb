// Package refdata finds the shared reference data (../shared/refdata beside
// the checkout, or $TABULA_REFDATA) for tests and benchmarks.
package refdata

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RequireAllEnv names the environment variable that CI sets: with it, tests
// that would skip for a missing outside program or file fail instead.
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

// Path returns the path of a file under the reference data, e.g.
// Path(t, "connect4", "Test_L3_R1"). Where the data is missing the test is
// skipped with the reason, or fails when TABULA_REQUIRE_ALL is set.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir, err := Dir()
	if err == nil {
		p := filepath.Join(append([]string{dir}, elem...)...)
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv(RequireAllEnv) != "" {
		tb.Fatalf("reference data missing and %s is set: %v", RequireAllEnv, err)
	}
	tb.Skipf("reference data missing: %v", err)
	return ""
}

// Program returns the full path of an outside program that a test needs
// (gnugo, gtp-rhino, gnubg, chromium, node, ...), looked up on PATH and in
// Debian's games directory. Where it is missing the test is skipped with a
// message naming the package to install, or fails when TABULA_REQUIRE_ALL is
// set.
func Program(tb testing.TB, name, install string) string {
	tb.Helper()
	if p, err := LookProgram(name); err == nil {
		return p
	}
	msg := fmt.Sprintf("outside program %q not found on PATH or in /usr/games (install: %s)", name, install)
	if os.Getenv(RequireAllEnv) != "" {
		tb.Fatalf("%s, and %s is set", msg, RequireAllEnv)
	}
	tb.Skip(msg)
	return ""
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
