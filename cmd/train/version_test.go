package main

import (
	"io"
	"strings"
	"testing"

	"tabula/internal/version"
)

// TestVersionFlag: -version prints the build's version on stdout, and
// nothing else runs.
func TestVersionFlag(t *testing.T) {
	var out, errs strings.Builder
	defer func(w io.Writer) { stdout = w }(stdout)
	stdout = &out
	if err := run([]string{"-version"}, &errs); err != nil {
		t.Fatalf("-version: %v (stderr %q)", err, errs.String())
	}
	if want := version.String() + "\n"; out.String() != want || errs.Len() != 0 {
		t.Errorf("-version: stdout %q, stderr %q; want stdout %q", out.String(), errs.String(), want)
	}
}
