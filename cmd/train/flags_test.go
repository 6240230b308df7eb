package main

import (
	"strings"
	"testing"
)

// TestUnknownFlagReportedOnce checks that a bad flag's message is printed
// once, after the usage.
func TestUnknownFlagReportedOnce(t *testing.T) {
	var e strings.Builder
	err := run([]string{"-bogus"}, &e)
	if code := exitCode(err, &e); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if n := strings.Count(e.String(), "flag provided but not defined: -bogus"); n != 1 || !strings.Contains(e.String(), "usage: train") {
		t.Errorf("the message appears %d times, want once after the usage:\n%s", n, e.String())
	}
}
