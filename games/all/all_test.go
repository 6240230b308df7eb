package all

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tabula/games"
)

// TestEveryGameRegistered checks that every package under games/ whose
// non-test code calls games.Register from an init function is imported by
// all.go, and that the games those register can be built by name.
func TestEveryGameRegistered(t *testing.T) {
	fset := token.NewFileSet()
	self, err := parser.ParseFile(fset, "all.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	imported := map[string]bool{}
	for _, im := range self.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		imported[p] = true
	}
	var registering []string
	err = filepath.WalkDir("..", func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "gamestest") {
			return filepath.SkipDir // helpers for tests register their games when asked
		}
		if d.IsDir() || !strings.HasSuffix(file, ".go") || strings.HasSuffix(file, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		if !strings.Contains(string(src), "games.Register(") {
			return nil
		}
		rel, err := filepath.Rel("..", filepath.Dir(file))
		if err != nil {
			return err
		}
		pkg := path.Join("tabula/games", filepath.ToSlash(rel))
		if !slices.Contains(registering, pkg) {
			registering = append(registering, pkg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(registering) < 4 {
		t.Fatalf("found only %d registering game packages: %v", len(registering), registering)
	}
	for _, pkg := range registering {
		if !imported[pkg] {
			t.Errorf("%s registers a game but games/all does not import it", pkg)
		}
	}
	for _, spec := range []string{"backgammon", "connect4", "go:size=9", "othello:size=6"} {
		if _, err := games.New(spec); err != nil {
			t.Errorf("games.New(%q): %v", spec, err)
		}
	}
	if n := len(games.Names()); n < len(registering) {
		t.Errorf("%d games registered (%v), want at least one per registering package (%v)", n, games.Names(), registering)
	}
}
