package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelp checks that -h prints the usage and exits 0.
func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "-help"} {
		var e strings.Builder
		err := run([]string{arg}, &e)
		if !errors.Is(err, flag.ErrHelp) || exitCode(err, &strings.Builder{}) != 0 {
			t.Errorf("%s: error %v, want flag.ErrHelp and exit 0", arg, err)
		}
		for _, want := range []string{"usage: train -config FILE", "-set", "runs until Ctrl-C"} {
			if !strings.Contains(e.String(), want) {
				t.Errorf("%s: usage lacks %q:\n%s", arg, want, e.String())
			}
		}
	}
}

// TestBadInput checks that bad configs fail before anything runs, with an
// error that names the problem and a non-zero exit.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	os.WriteFile(empty, nil, 0o644)
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("game: connect4\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-config", empty, "-run", filepath.Join(dir, "r1")}, "game: missing"},
		{[]string{"-config", good, "-run", filepath.Join(dir, "r2"), "-set", "iterations=2.5"}, "-set: iterations = 2.5, want a whole number"},
		{[]string{"-config", good, "-set", "ladder.players=[random, wizard]"}, "ladder.players[1]"},
		{[]string{"-config", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{"-config", good, "extra"}, "unexpected arguments"},
	} {
		var e strings.Builder
		err := run(c.args, &e)
		var msg strings.Builder
		if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), c.want) || !strings.HasPrefix(msg.String(), "train: ") {
			t.Errorf("%q: exit %d, message %q, want 1 and %q", c.args, code, msg.String(), c.want)
		}
	}
	// Nothing was created for the refused runs.
	for _, r := range []string{"r1", "r2"} {
		if _, err := os.Stat(filepath.Join(dir, r)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("run folder %s created for a bad config", r)
		}
	}
}
