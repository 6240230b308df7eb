package checks

import (
	"bytes"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestEveryCommandPrintsVersion builds every command under cmd/ and runs
// it with -version alone: each must exit 0 and print only the build's
// version (internal/version: "tabula unknown" for a build without VCS
// information, as here) on stdout. A command without the flag fails
// (flag provided but not defined, or a missing required flag).
func TestEveryCommandPrintsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(root, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		bp, err := build.Default.ImportDir(filepath.Join(root, "cmd", e.Name()), 0)
		if err == nil && bp.Name == "main" {
			cmds = append(cmds, e.Name())
		}
	}
	if len(cmds) < 5 {
		t.Fatalf("found the commands %q under cmd/, want arena, play, records, selfplay, train and any newer", cmds)
	}
	bin := t.TempDir()
	// go test puts its own go first on PATH. No VCS stamping: a git
	// worktree has none, and the revision's shape is internal/version's test.
	b := exec.Command("go", "build", "-buildvcs=false", "-o", bin+string(filepath.Separator), "./cmd/...")
	b.Dir = root
	if out, err := b.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/...: %v\n%s", err, out)
	}
	want := regexp.MustCompile(`^tabula (v\S+ )?unknown\n$`)
	for _, name := range cmds {
		var stdout, stderr bytes.Buffer
		c := exec.Command(filepath.Join(bin, name), "-version")
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		if err != nil || !want.Match(stdout.Bytes()) || stderr.Len() != 0 {
			t.Errorf("%s -version: %v, stdout %q, stderr %q; want exit 0 and the version (%s) alone", name, err, stdout.String(), stderr.String(), want)
		}
	}
}
