// Package cliflag parses a command's flags so that a bad flag is reported
// once: the flag package prints its own message before the usage, and the
// command then prints the returned error again.
package cliflag

import (
	"flag"
	"fmt"
	"io"
)

// Parse parses args with fs, which must use flag.ContinueOnError. On a bad
// flag it prints the usage only and returns the error, for the command to
// print as its last line; on -h it prints the usage and returns
// flag.ErrHelp, as fs.Parse does.
func Parse(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if err != nil {
		if usage != nil {
			usage()
		} else {
			fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
	}
	return err
}
