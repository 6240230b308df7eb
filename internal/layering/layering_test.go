package layering

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	root   = "../.."
	module = "tabula"
	doc    = "docs/architecture.md"
)

// rule is one line of the doc's rules block: the packages a pattern covers
// may import the patterns in allow, less those in deny.
type rule struct {
	pattern     string
	allow, deny []string
	line        int
}

// readRules parses the fenced block marked "rules" of docs/architecture.md.
func readRules(t *testing.T) []rule {
	f, err := os.Open(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rules []rule
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "```rules":
			in = true
		case in && line == "```":
			in = false
		case in && line != "":
			fields := strings.Fields(line)
			r := rule{pattern: fields[0], line: n}
			for _, f := range fields[1:] {
				switch {
				case f == "-":
				case strings.HasPrefix(f, "-"):
					r.deny = append(r.deny, f[1:])
				default:
					r.allow = append(r.allow, f)
				}
			}
			rules = append(rules, r)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		t.Fatalf("%s has no ```rules block", doc)
	}
	return rules
}

// matches reports whether package path p (relative to the module) is
// covered by pattern: "*" covers every package, "x/*" those under x, any
// other pattern the one package it names.
func matches(pattern, p string) bool {
	switch {
	case pattern == "*":
		return true
	case strings.HasSuffix(pattern, "/*"):
		return strings.HasPrefix(p, strings.TrimSuffix(pattern, "*"))
	}
	return pattern == p
}

// specificity orders patterns: an exact name beats any "x/*", and a longer
// "x/*" beats a shorter one.
func specificity(pattern string) int {
	if !strings.HasSuffix(pattern, "*") {
		return 1 << 20
	}
	return len(pattern)
}

// ruleFor returns the most specific rule covering p.
func ruleFor(rules []rule, p string) (rule, bool) {
	best, found := rule{}, false
	for _, r := range rules {
		if matches(r.pattern, p) && (!found || specificity(r.pattern) > specificity(best.pattern)) {
			best, found = r, true
		}
	}
	return best, found
}

// packages returns every package directory of the module (relative, with
// slashes) and the module packages its non-test files import, whatever
// their build constraints.
func packages(t *testing.T) map[string][]string {
	pkgs := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		imps := pkgs[pkg]
		if imps == nil {
			imps = []string{}
		}
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				return err
			}
			if p, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(imps, p) {
				imps = append(imps, p)
			}
		}
		pkgs[pkg] = imps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestImportsFollowArchitecture checks every package's imports against the
// rules of docs/architecture.md, that every package has a rule, and that
// every rule covers some package.
func TestImportsFollowArchitecture(t *testing.T) {
	rules := readRules(t)
	pkgs := packages(t)
	if len(pkgs) < 30 {
		t.Fatalf("found only %d packages under %s", len(pkgs), root)
	}
	used := map[int]bool{}
	for pkg, imps := range pkgs {
		if pkg == "." {
			t.Errorf("Go files at the module root: no rule can place them")
			continue
		}
		r, ok := ruleFor(rules, pkg)
		if !ok {
			t.Errorf("package %s has no rule in %s", pkg, doc)
			continue
		}
		used[r.line] = true
		for _, imp := range imps {
			allowed := slices.ContainsFunc(r.allow, func(a string) bool { return matches(a, imp) }) &&
				!slices.ContainsFunc(r.deny, func(a string) bool { return matches(a, imp) })
			if !allowed {
				t.Errorf("%s imports %s: its rule (%s line %d: %s) does not allow it", pkg, imp, doc, r.line, r.pattern)
			}
		}
	}
	for _, r := range rules {
		if !used[r.line] {
			t.Errorf("%s line %d: rule %s covers no package", doc, r.line, r.pattern)
		}
	}
}

// TestRulesMatching pins the pattern semantics the rules rely on.
func TestRulesMatching(t *testing.T) {
	rules := []rule{{pattern: "games/*"}, {pattern: "games/backgammon/bearoff"}, {pattern: "games"}, {pattern: "*"}}
	for p, want := range map[string]string{
		"games":                    "games",
		"games/othello":            "games/*",
		"games/backgammon/bearoff": "games/backgammon/bearoff",
		"gamesx":                   "*",
		"cmd/arena":                "*",
	} {
		if r, ok := ruleFor(rules, p); !ok || r.pattern != want {
			t.Errorf("rule for %s: %q, want %q", p, r.pattern, want)
		}
	}
}
