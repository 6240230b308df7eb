package version

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev = "3f2a1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f"
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "tabula unknown"},
		{"go test", &debug.BuildInfo{Main: debug.Module{Path: "tabula", Version: "(devel)"}}, "tabula unknown"},
		{"clean commit", &debug.BuildInfo{Main: debug.Module{Path: "tabula", Version: "v0.0.0-20261201231000-3f2a1c0d9e8b"},
			Settings: vcs("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-12-01T23:10:00Z", "vcs.modified", "false")},
			"tabula 3f2a1c0 (2026-12-01T23:10:00Z)"},
		{"modified tree", &debug.BuildInfo{Main: debug.Module{Path: "tabula", Version: "v0.0.0-20261201231000-3f2a1c0d9e8b+dirty"},
			Settings: vcs("vcs.revision", rev, "vcs.time", "2026-12-01T23:10:00Z", "vcs.modified", "true")},
			"tabula 3f2a1c0 (2026-12-01T23:10:00Z, modified)"},
		{"pseudo-version after a tag", &debug.BuildInfo{Main: debug.Module{Path: "tabula", Version: "v1.2.1-0.20261201231000-3f2a1c0d9e8b"},
			Settings: vcs("vcs.revision", rev, "vcs.time", "2026-12-01T23:10:00Z")},
			"tabula 3f2a1c0 (2026-12-01T23:10:00Z)"},
		{"tagged release", &debug.BuildInfo{Main: debug.Module{Path: "tabula", Version: "v1.2.0+dirty"},
			Settings: vcs("vcs.revision", rev, "vcs.time", "2026-12-01T23:10:00Z", "vcs.modified", "true")},
			"tabula v1.2.0 3f2a1c0 (2026-12-01T23:10:00Z, modified)"},
		{"revision only", &debug.BuildInfo{Main: debug.Module{Path: "tabula"}, Settings: vcs("vcs.revision", "abc")},
			"tabula abc"},
	} {
		if got := describe(c.info); got != c.want {
			t.Errorf("%s: describe = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestThisBinary: a test binary carries no VCS information.
func TestThisBinary(t *testing.T) {
	if got := Revision(); got != Unknown {
		t.Errorf("Revision() in a test binary = %q, want %q", got, Unknown)
	}
	if got := String(); !strings.HasPrefix(got, "tabula") || !strings.HasSuffix(got, " "+Unknown) {
		t.Errorf("String() = %q", got)
	}
	for _, c := range []struct {
		args []string
		want string
	}{{[]string{"-version"}, String() + "\n"}, {nil, ""}} {
		var out strings.Builder
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		printed := Flag(fs, &out)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if got := printed(); got != (c.want != "") || out.String() != c.want {
			t.Errorf("%q: printed %v, output %q; want %q", c.args, got, out.String(), c.want)
		}
	}
}

// TestGoBuildRecordsRevision builds a command that prints String() inside a
// fresh git repository holding this package, and checks that it names the
// commit, then that a change to a tracked file marks it modified. (go build
// reads VCS information only from a folder with a .git folder, so not from
// a git worktree.)
func TestGoBuildRecordsRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a command")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	src, err := os.ReadFile("version.go")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module tabula\n\ngo 1.26\n")
	write("internal/version/version.go", string(src))
	write("cmd/v/main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"tabula/internal/version\"\n)\n\nfunc main() { fmt.Println(version.String()) }\n")
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@t", "GIT_AUTHOR_DATE=2026-12-01T23:10:00Z", "GIT_COMMITTER_DATE=2026-12-01T23:10:00Z",
			"GOFLAGS=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("git", "init", "-q")
	run("git", "add", "-A")
	run("git", "commit", "-q", "-m", "x")
	head := run("git", "rev-parse", "HEAD")
	gobin := "go" // go test puts its own go first on PATH
	bin := filepath.Join(dir, "v.exe")
	run(gobin, "build", "-buildvcs=true", "-o", bin, "./cmd/v")
	if got, want := run(bin), "tabula "+head[:7]+" (2026-12-01T23:10:00Z)"; got != want {
		t.Errorf("clean build prints %q, want %q", got, want)
	}
	write("cmd/v/main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"tabula/internal/version\"\n)\n\nfunc main() { fmt.Println(version.String()) } // changed\n")
	run(gobin, "build", "-buildvcs=true", "-o", bin, "./cmd/v")
	if got, want := run(bin), "tabula "+head[:7]+" (2026-12-01T23:10:00Z, modified)"; got != want {
		t.Errorf("modified build prints %q, want %q", got, want)
	}
}
