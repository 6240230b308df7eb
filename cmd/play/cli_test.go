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
		{[]string{"-game", "chess", "-player", "random"}, `unknown game "chess"`},
	} {
		err := run(context.Background(), c.args, strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
		if err == nil || errors.Is(err, flag.ErrHelp) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}
