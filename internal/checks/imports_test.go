package checks

import (
	"errors"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testHelper reports whether a package is a test-helper package, which
// tests import and which may itself import testing: by convention its name
// ends in "test" (gamestest, browsertest, refdatatest).
func testHelper(name string) bool { return strings.HasSuffix(name, "test") }

// eachPackage calls fn with every package folder of the module at root as
// ctx builds it, leaving out hidden and underscore folders, testdata,
// node_modules, other modules, and folders with no Go files for ctx.
func eachPackage(root string, ctx build.Context, fn func(dir string, bp *build.Package) error) error {
	return filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		base := d.Name()
		if dir != root {
			if strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" || base == "node_modules" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		bp, err := ctx.ImportDir(dir, 0)
		if _, ok := errors.AsType[*build.NoGoError](err); ok {
			return nil
		}
		if err != nil {
			return err
		}
		return fn(dir, bp)
	})
}

// modulePackage is one package of the module as this platform builds it,
// without its _test.go files.
type modulePackage struct {
	path, name string
	imports    []string
}

// modulePackages parses every package of the module (the files are read
// here, so go test's cache notices when they change).
func modulePackages(t *testing.T) map[string]modulePackage {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	modPath := ""
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			modPath = f[1]
		}
	}
	if modPath == "" {
		t.Fatal("go.mod names no module")
	}
	pkgs := map[string]modulePackage{}
	err = eachPackage(root, build.Default, func(dir string, bp *build.Package) error {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return err
		}
		path := modPath
		if rel != "." {
			path += "/" + filepath.ToSlash(rel)
		}
		pkgs[path] = modulePackage{path: path, name: bp.Name, imports: bp.Imports}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages under %s", len(pkgs), root)
	}
	return pkgs
}

// TestProductionDoesNotImportTesting fails if a package of the module other
// than a test helper imports testing, directly or through another package of
// the module.
func TestProductionDoesNotImportTesting(t *testing.T) {
	pkgs := modulePackages(t)
	// chain[p] is a path of imports from p to testing, or nil.
	chain := map[string][]string{}
	var find func(p string, seen map[string]bool) []string
	find = func(p string, seen map[string]bool) []string {
		if c, ok := chain[p]; ok {
			return c
		}
		if seen[p] {
			return nil
		}
		seen[p] = true
		var c []string
		if slices.Contains(pkgs[p].imports, "testing") {
			c = []string{p, "testing"}
		} else {
			for _, imp := range pkgs[p].imports {
				if _, ok := pkgs[imp]; !ok {
					continue
				}
				if sub := find(imp, seen); sub != nil {
					c = append([]string{p}, sub...)
					break
				}
			}
		}
		chain[p] = c
		return c
	}
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		if testHelper(pkgs[p].name) {
			continue
		}
		if c := find(p, map[string]bool{}); c != nil {
			t.Errorf("%s imports testing (%s); production code must not: test helpers belong in a *test package", p, strings.Join(c, " -> "))
		}
	}
}
