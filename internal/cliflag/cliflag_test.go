package cliflag

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestParseReportsNothingTwice checks that a bad flag leaves the usage on
// the flag set's output and the message in the error only, and that -h
// prints the usage and returns flag.ErrHelp.
func TestParseReportsNothingTwice(t *testing.T) {
	for _, c := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"-n", "x"}, `invalid value "x" for flag -n`},
		{[]string{"-h"}, flag.ErrHelp.Error()},
	} {
		var out strings.Builder
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		fs.SetOutput(&out)
		fs.Int("n", 1, "a number")
		fs.Usage = func() { out.WriteString("usage: cmd [-n N]\n"); fs.PrintDefaults() }
		err := Parse(fs, c.args)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%q: error %v, want %q", c.args, err, c.wantErr)
		}
		if c.args[0] == "-h" && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("-h: error %v, want flag.ErrHelp", err)
		}
		if !strings.HasPrefix(out.String(), "usage: cmd") || !strings.Contains(out.String(), "a number") {
			t.Errorf("%q: output %q, want the usage", c.args, out.String())
		}
		if strings.Contains(out.String(), "flag provided") || strings.Contains(out.String(), "invalid value") {
			t.Errorf("%q: output %q repeats the error", c.args, out.String())
		}
	}
	// A flag set without a usage function still gets the flags listed.
	var out strings.Builder
	fs := flag.NewFlagSet("bare", flag.ContinueOnError)
	fs.SetOutput(&out)
	fs.Int("n", 1, "a number")
	if err := Parse(fs, []string{"-x"}); err == nil || !strings.Contains(out.String(), "a number") {
		t.Errorf("bare flag set: error %v, output %q", err, out.String())
	}
}
