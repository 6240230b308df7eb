// Package version says which build of tabula is running: the module's
// version and the VCS revision, commit time and modified flag that go build
// records in the binary.
package version

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"strings"
)

// Unknown stands for the revision of a build without VCS information (go
// test, go run of files, -buildvcs=false, a tree outside a repository).
const Unknown = "unknown"

// Flag defines -version on fs. The function it returns, called once fs is
// parsed, reports whether -version was given and if so prints String() on
// w: the command then exits.
func Flag(fs *flag.FlagSet, w io.Writer) func() bool {
	set := fs.Bool("version", false, "print the version (module version, VCS revision, commit time) and exit")
	return func() bool {
		if *set {
			Print(w)
		}
		return *set
	}
}

// Print writes String() and a newline on w.
func Print(w io.Writer) error {
	_, err := fmt.Fprintln(w, String())
	return err
}

// String names this build: the module path, its version when it is a
// release, and Revision, e.g. "tabula 3f2a1c0 (2026-12-01T23:10:00Z,
// modified)" or "tabula unknown".
func String() string {
	info, _ := debug.ReadBuildInfo()
	return describe(info)
}

// Revision is the build's VCS revision (7 hex digits), the commit's time
// and ", modified" when the tree had uncommitted changes, e.g. "3f2a1c0
// (2026-12-01T23:10:00Z, modified)"; Unknown without VCS information.
func Revision() string {
	info, _ := debug.ReadBuildInfo()
	return revision(info)
}

func describe(info *debug.BuildInfo) string {
	name := "tabula"
	if info != nil && info.Main.Path != "" {
		name = info.Main.Path
	}
	if info != nil {
		if v := strings.TrimSuffix(info.Main.Version, "+dirty"); isRelease(v) {
			name += " " + v
		}
	}
	return name + " " + revision(info)
}

func revision(info *debug.BuildInfo) string {
	if info == nil {
		return Unknown
	}
	var rev, when string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return Unknown
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	var extra []string
	if when != "" {
		extra = append(extra, when)
	}
	if modified {
		extra = append(extra, "modified")
	}
	if len(extra) == 0 {
		return rev
	}
	return rev + " (" + strings.Join(extra, ", ") + ")"
}

// pseudoVersion matches the version go build derives from a commit that
// has no tag (v0.0.0-20261201231000-3f2a1c0abcde), which Revision already
// says.
var pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}$`)

// isRelease reports whether v is a tagged version rather than "(devel)", a
// pseudo-version or nothing.
func isRelease(v string) bool {
	return strings.HasPrefix(v, "v") && !pseudoVersion.MatchString(v)
}
