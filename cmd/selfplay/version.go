package main

import (
	"flag"
	"io"
	"os"

	"tabula/internal/version"
)

// stdout is where -version prints; tests replace it.
var stdout io.Writer = os.Stdout

// versionFlag defines -version on fs; the function it returns, called once
// fs is parsed, prints the build's version on stdout and reports whether
// -version was given.
func versionFlag(fs *flag.FlagSet) func() bool { return version.Flag(fs, stdout) }
