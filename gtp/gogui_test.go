package gtp_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gogame"
)

// goguiTypes are the result types of GoGui's analyze commands (GoGui's
// documentation, "Analyze Commands").
var goguiTypes = map[string]bool{"none": true, "string": true, "dboard": true, "sboard": true, "cboard": true,
	"plist": true, "pspairs": true, "var": true, "varb": true, "varc": true, "varw": true, "varp": true, "varpo": true,
	"bwboard": true, "gfx": true, "hstring": true, "hpstring": true, "param": true}

// TestGoGuiAnalyzeCommands reads gogui-analyze_commands as GoGui does
// (type/label/command per line) and checks that every command it offers is
// known and answers in its type's format: dboards of n x n numbers (the
// policy's summing to the board's share of the priors), the value's text,
// and gfx in GoGui's graphics language with legal vertices and a legal
// variation.
func TestGoGuiAnalyzeCommands(t *testing.T) {
	e, g := newAnalysisEngine(t)
	gg := g.(*gogame.Game)
	s := startSession(t, e)
	state := g.NewInitialState()
	for _, m := range []string{"b E5", "w C3", "b G7"} {
		s.send("play " + m)
		if a := s.answer(); len(a) != 1 || a[0] != "= " {
			t.Fatalf("play %s: %q", m, a)
		}
		a, _ := gg.ParseAction(strings.Fields(m)[1])
		if err := games.Play(state, a); err != nil {
			t.Fatal(err)
		}
	}
	s.send("gogui-analyze_commands")
	list := s.answer()
	list[0] = strings.TrimPrefix(list[0], "= ")
	seen := map[string]string{}
	for _, l := range list {
		parts := strings.Split(l, "/")
		if len(parts) != 3 || !goguiTypes[parts[0]] || parts[1] == "" || parts[2] == "" {
			t.Fatalf("gogui-analyze_commands line %q: want type/label/command with a known type", l)
		}
		seen[parts[2]] = parts[0]
	}
	for _, c := range []string{"tabula-policy", "tabula-visits", "tabula-value", "tabula-gfx"} {
		if seen[c] == "" {
			t.Errorf("gogui-analyze_commands lacks %s: %q", c, list)
		}
	}
	const n = 9
	for cmd, typ := range seen {
		s.send("known_command " + cmd)
		if a := s.answer(); len(a) != 1 || a[0] != "= true" {
			t.Errorf("known_command %s: %q", cmd, a)
		}
		s.send(cmd)
		a := s.answer()
		if !strings.HasPrefix(a[0], "= ") {
			t.Fatalf("%s: %q", cmd, a)
		}
		switch typ {
		case "dboard":
			if len(a) != n+1 || a[0] != "= " {
				t.Fatalf("%s: %d lines, want = and %d rows: %q", cmd, len(a), n, a)
			}
			sum := 0.0
			for r, row := range a[1:] {
				f := strings.Fields(row)
				if len(f) != n {
					t.Fatalf("%s row %d: %q", cmd, r, row)
				}
				for c, v := range f {
					x, err := strconv.ParseFloat(v, 64)
					if err != nil || x < 0 || x > 1 {
						t.Fatalf("%s row %d: %q", cmd, r, row)
					}
					if x > 0 && !state.IsLegal(r*n+c) {
						t.Errorf("%s: %v on the illegal point %s", cmd, x, gg.FormatAction(r*n+c))
					}
					sum += x
				}
			}
			// The uniform evaluator's priors: 1/legal for each legal
			// point, pass included.
			legal := len(state.LegalActions(nil))
			if want := float64(legal-1) / float64(legal); cmd == "tabula-policy" && math.Abs(sum-want) > 0.005 {
				t.Errorf("tabula-policy sums to %.3f, want %.3f", sum, want)
			}
			if sum > 1.005 || sum < 0.5 {
				t.Errorf("%s sums to %.3f", cmd, sum)
			}
		case "string":
			if len(a) != 1 || !strings.HasPrefix(a[0], "= white to move: value ") {
				t.Errorf("%s: %q", cmd, a)
			}
		case "gfx":
			checkGfx(t, a, gg, state)
		default:
			t.Errorf("%s: type %s not checked", cmd, typ)
		}
	}
}

// checkGfx checks a gfx answer: each line a GoGui graphics command with its
// arguments.
func checkGfx(t *testing.T, a []string, gg *gogame.Game, state games.State) {
	t.Helper()
	a[0] = strings.TrimPrefix(a[0], "= ")
	vertex := func(v string) int {
		p, err := gg.ParseAction(v)
		if err != nil {
			t.Fatalf("gfx vertex %q: %v", v, err)
		}
		return p
	}
	got := map[string]bool{}
	for _, l := range a {
		f := strings.Fields(l)
		got[f[0]] = true
		switch f[0] {
		case "INFLUENCE", "LABEL":
			if len(f)%2 != 1 || len(f) < 3 {
				t.Fatalf("gfx %q: want point-value pairs", l)
			}
			for i := 1; i < len(f); i += 2 {
				if !state.IsLegal(vertex(f[i])) {
					t.Errorf("gfx %q: %s is not a legal move", l, f[i])
				}
				if f[0] == "INFLUENCE" {
					if x, err := strconv.ParseFloat(f[i+1], 64); err != nil || x < -1 || x > 1 {
						t.Errorf("gfx %q: influence %q outside [-1, 1]", l, f[i+1])
					}
				}
			}
		case "SQUARE", "CIRCLE", "TRIANGLE", "MARK", "BLACK", "WHITE":
			for _, v := range f[1:] {
				vertex(v)
			}
		case "VAR":
			c := state.Clone()
			if len(f)%2 != 1 || len(f) < 3 {
				t.Fatalf("gfx %q: want color-point pairs", l)
			}
			for i := 1; i < len(f); i += 2 {
				want := "bw"[c.CurrentPlayer() : c.CurrentPlayer()+1]
				if f[i] != want {
					t.Fatalf("gfx %q: %s to move, not %s", l, want, f[i])
				}
				if err := games.Play(c, vertex(f[i+1])); err != nil {
					t.Fatalf("gfx %q: %v", l, err)
				}
			}
		case "TEXT":
		default:
			t.Errorf("gfx line %q: unknown command", l)
		}
	}
	for _, k := range []string{"INFLUENCE", "LABEL", "VAR", "TEXT"} {
		if !got[k] {
			t.Errorf("gfx answer lacks %s: %q", k, a)
		}
	}
}
