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
	var e strings.Builder
	err := run([]string{"-h"}, &e)
	if !errors.Is(err, flag.ErrHelp) || exitCode(err, &strings.Builder{}) != 0 {
		t.Errorf("-h: error %v, want flag.ErrHelp and exit 0", err)
	}
	for _, want := range []string{"usage: selfplay -connect nats://HOST:4222", "selfplay -run DIR", "-games", "-workers"} {
		if !strings.Contains(e.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, e.String())
		}
	}
}

// TestBadInput checks the errors a worker gives before it plays: no run
// folder, a folder no trainer has set up, a damaged config.yaml.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	damaged := filepath.Join(dir, "damaged")
	os.Mkdir(damaged, 0o755)
	os.WriteFile(filepath.Join(damaged, "config.yaml"), []byte("seed: [\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "-connect nats://HOST:PORT (a run's NATS server) or -run DIR"},
		{[]string{"-run", dir, "-games", "-1"}, "must be >= 0"},
		{[]string{"-run", filepath.Join(dir, "nothing")}, "start the training process first"},
		{[]string{"-run", damaged, "-games", "1"}, "config.yaml is damaged"},
		{[]string{"-run", dir, "extra"}, "unexpected arguments"},
		{[]string{"-connect", "http://127.0.0.1:4222", "-quiet"}, "is a web address"},
		{[]string{"-connect", "nats://no-such-host.invalid:4222", "-quiet"}, "does not resolve"},
	} {
		err := run(c.args, &strings.Builder{})
		var msg strings.Builder
		if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), c.want) {
			t.Errorf("%q: exit %d, message %q, want 1 and %q", c.args, code, msg.String(), c.want)
		}
	}
}
