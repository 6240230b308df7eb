package main

import (
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestHelpEveryVerb checks that -h prints usage and returns flag.ErrHelp
// (main exits 0 on it) at the top level and for every verb.
func TestHelpEveryVerb(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}, {"-game", "connect4", "-h"}} {
		var o, e strings.Builder
		err := run(context.Background(), args, strings.NewReader(""), &o, &e)
		if !errors.Is(err, flag.ErrHelp) || !strings.Contains(strings.ToLower(o.String()+e.String()), "usage") {
			t.Errorf("%q: error %v, output %q; want usage and flag.ErrHelp", args, err, o.String()+e.String())
		}
	}
	for name := range subcommands {
		if name == "" {
			continue
		}
		var o, e strings.Builder
		err := run(context.Background(), []string{name, "-h"}, strings.NewReader(""), &o, &e)
		if !errors.Is(err, flag.ErrHelp) || o.Len()+e.Len() == 0 {
			t.Errorf("play %s -h: error %v, output %q; want usage and flag.ErrHelp", name, err, o.String()+e.String())
		}
	}
}

// TestBadInputTopLevel checks that an unknown verb and a bad game are errors
// that name them.
func TestBadInputTopLevel(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown subcommand "bogus"`},
		{[]string{"-game", "shogi", "-player", "random"}, `unknown game "shogi"`},
	} {
		err := run(context.Background(), c.args, strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
		if err == nil || errors.Is(err, flag.ErrHelp) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

// TestGameFromCheckpoint checks that terminal play against a net player
// takes the game from its checkpoint when -game is left out, and that a
// given -game still wins (and is checked against the checkpoint).
func TestGameFromCheckpoint(t *testing.T) {
	ck := writeTestCheckpoint(t, t.TempDir(), "othello:size=6")
	var o strings.Builder
	err := run(context.Background(), []string{"-player", "net:path=" + ck + ",sims=2"}, strings.NewReader(""), &o, &strings.Builder{})
	if err != nil || !strings.Contains(o.String(), "othello:size=6") {
		t.Errorf("no -game: %v\n%s", err, o.String())
	}
	err = run(context.Background(), []string{"-game", "connect4", "-player", "net:path=" + ck}, strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "othello:size=6") {
		t.Errorf("-game connect4 with an othello checkpoint: error %v", err)
	}
}

// TestErrorLine checks that main names the command once.
func TestErrorLine(t *testing.T) {
	for _, args := range [][]string{{"bogus"}, {"-game", "shogi", "-player", "random"}, {"-player", "random", "extra"}} {
		err := run(context.Background(), args, strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
		if err == nil {
			t.Fatalf("%q: no error", args)
		}
		if line := errorLine(err); !strings.HasPrefix(line, "play") || strings.Count(line, "play:") != 1 {
			t.Errorf("%q: %q, want one \"play:\" prefix", args, line)
		}
	}
}

// TestUnknownFlagReportedOnce checks that a bad flag's message is printed
// once, after the usage, at the top level and for every verb.
func TestUnknownFlagReportedOnce(t *testing.T) {
	for name := range subcommands {
		args := []string{"-bogus"}
		if name != "" {
			args = []string{name, "-bogus"}
		}
		var o, e strings.Builder
		err := run(context.Background(), args, strings.NewReader(""), &o, &e)
		if err == nil {
			t.Fatalf("%q: no error", args)
		}
		all := o.String() + e.String() + errorLine(err) + "\n"
		if n := strings.Count(all, "flag provided but not defined: -bogus"); n != 1 {
			t.Errorf("%q: the message appears %d times, want once:\n%s", args, n, all)
		}
		if !strings.Contains(e.String(), "usage: ") {
			t.Errorf("%q: no usage on stderr:\n%s", args, e.String())
		}
	}
}
