package checks

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// assemblyFiles returns, per folder of the module (relative to its root),
// the assembly files that ctx builds there.
func assemblyFiles(t *testing.T, ctx build.Context) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string][]string{}
	err = eachPackage(root, ctx, func(dir string, bp *build.Package) error {
		if len(bp.SFiles) > 0 {
			rel, _ := filepath.Rel(root, dir)
			found[filepath.ToSlash(rel)] = bp.SFiles
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestNoasmBuildsNoAssembly: the noasm build tag gives the pure-Go code that
// platforms without the amd64 kernels run, so on amd64 under that tag no
// package of the module may build an assembly file. Every package with
// assembly needs "amd64 && !noasm" on its assembly files and their Go
// declarations, and "!amd64 || noasm" on its Go fallback.
func TestNoasmBuildsNoAssembly(t *testing.T) {
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = "linux", "amd64"
	if len(assemblyFiles(t, ctx)) == 0 {
		t.Fatal("no package builds assembly on linux/amd64: the check below would prove nothing")
	}
	ctx.BuildTags = append(ctx.BuildTags, "noasm")
	for dir, files := range assemblyFiles(t, ctx) {
		t.Errorf("%s builds assembly under -tags noasm: %s", dir, strings.Join(files, " "))
	}
}
