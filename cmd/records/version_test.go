package main

import (
	"strings"
	"testing"

	"tabula/internal/version"
)

// TestVersionFlag: -version prints the build's version on stdout, and
// nothing else runs (no -run or -out is asked for).
func TestVersionFlag(t *testing.T) {
	var out, errs strings.Builder
	if err := run([]string{"-version"}, &out, &errs); err != nil {
		t.Fatalf("-version: %v (stderr %q)", err, errs.String())
	}
	if want := version.String() + "\n"; out.String() != want || errs.Len() != 0 {
		t.Errorf("-version: stdout %q, stderr %q; want stdout %q", out.String(), errs.String(), want)
	}
}
