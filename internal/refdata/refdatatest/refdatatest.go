// Package refdatatest holds the test helpers over refdata: they return a
// reference file or an outside program, or skip the test where it is
// missing, failing instead when TABULA_REQUIRE_ALL is set.
package refdatatest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"tabula/internal/refdata"
)

// RequireAllEnv is refdata.RequireAllEnv.
const RequireAllEnv = refdata.RequireAllEnv

// Path returns the path of a file under the reference data, e.g.
// Path(t, "connect4", "Test_L3_R1"). Where the data is missing the test is
// skipped with the reason, or fails when TABULA_REQUIRE_ALL is set.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir, err := refdata.Dir()
	if err == nil {
		p := filepath.Join(append([]string{dir}, elem...)...)
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv(refdata.RequireAllEnv) != "" {
		tb.Fatalf("reference data missing and %s is set: %v", refdata.RequireAllEnv, err)
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
	if p, err := refdata.LookProgram(name); err == nil {
		return p
	}
	msg := fmt.Sprintf("outside program %q not found on PATH or in /usr/games (install: %s)", name, install)
	if os.Getenv(refdata.RequireAllEnv) != "" {
		tb.Fatalf("%s, and %s is set", msg, refdata.RequireAllEnv)
	}
	tb.Skip(msg)
	return ""
}
