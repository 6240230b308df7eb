// Package refdata finds the shared reference data (../shared/refdata beside
// the checkout, or $TABULA_REFDATA) for tests and benchmarks.
package refdata

import (
	"fmt"
	"os"
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
