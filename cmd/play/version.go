package main

import (
	"io"

	"tabula/internal/version"
)

// printVersion prints the build's version on w (-version).
func printVersion(w io.Writer) error { return version.Print(w) }
