package main

import (
	"context"
	"strings"
	"testing"
)

// TestUnknownFlagReportedOnce checks that a bad flag's message is printed
// once, after the usage, for every subcommand.
func TestUnknownFlagReportedOnce(t *testing.T) {
	for _, c := range commands {
		var o, e strings.Builder
		err := run(context.Background(), []string{c.name, "-bogus"}, strings.NewReader(""), &o, &e)
		if code := exitCode(err, &e); code != 2 {
			t.Errorf("%s: exit %d, want 2", c.name, code)
		}
		if n := strings.Count(o.String()+e.String(), "flag provided but not defined: -bogus"); n != 1 || !strings.Contains(e.String(), "usage: arena "+c.name) {
			t.Errorf("%s: the message appears %d times, want once after the usage:\n%s", c.name, n, e.String())
		}
	}
}
