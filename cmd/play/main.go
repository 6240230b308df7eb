// Command play puts a trained network (or any player spec that arena knows)
// in front of people and other programs:
//
//	play -game G -player SPEC [-human first|second]     play in the terminal
//	play gtp -game G -player SPEC                       a Go Text Protocol engine on stdin/stdout
//	play uci -player SPEC                               a Universal Chess Interface engine on stdin/stdout
//	play web [-addr 127.0.0.1:8080]                     a web page to play on
//	play watch -run DIR                                 watch a training run live
//	play export -checkpoint FILE -format onnx|web -out PATH
//
// Each subcommand lives in a file of its own and registers itself here.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"

	_ "tabula/games/all"
)

// subcommand is one verb of play. run gets the arguments after the verb.
type subcommand struct {
	name    string
	summary string // one line for the usage text
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// subcommands holds every verb, filled by register from each file's init.
// The verb "" is the default: terminal play.
var subcommands = map[string]subcommand{}

func register(c subcommand) {
	if _, dup := subcommands[c.name]; dup {
		panic("play: subcommand registered twice: " + c.name)
	}
	subcommands[c.name] = c
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, errorLine(err))
		os.Exit(2)
	}
}

// errorLine is the line main prints for err: the message, prefixed with
// "play: " unless the verb has named itself already ("play gtp: ...").
func errorLine(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "play:") || strings.HasPrefix(msg, "play ") {
		return msg
	}
	return "play: " + msg
}

// verbFlags returns the flag set of a verb: errors and usage go to stderr,
// and -h prints "usage: " + usage, the flags, then extra (e.g. the player
// spec help).
func verbFlags(name, usage, extra string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+usage)
		fs.PrintDefaults()
		fmt.Fprint(stderr, extra)
	}
	return fs
}

// usage lists the verbs.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage:")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  play %s\n", strings.TrimSpace(n+" "+subcommands[n].summary))
	}
	fmt.Fprintln(w, "  play -version")
	fmt.Fprintln(w, "\"play VERB -h\" describes a verb's flags.")
}

// run is the whole command; main only wires the process to it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "-help", "--help":
			usage(stdout)
			return flag.ErrHelp
		case "-version", "--version":
			return printVersion(stdout)
		}
		if c, ok := subcommands[args[0]]; ok && args[0] != "" {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
		if !strings.HasPrefix(args[0], "-") {
			usage(stderr)
			return fmt.Errorf("unknown subcommand %q", args[0])
		}
	}
	c, ok := subcommands[""]
	if !ok {
		return errors.New("terminal play is not built yet")
	}
	return c.run(ctx, args, stdin, stdout, stderr)
}
