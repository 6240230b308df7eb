package players

import (
	"strings"
	"testing"
)

func TestParseSpecs(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []string // canonical specs
	}{
		{"random", []string{"random"}},
		{"  random   greedy ", []string{"random", "greedy"}},
		{"mcts:rollouts=1000,random", []string{"mcts:rollouts=1000", "random"}},
		{"net:path=a.tbn,sims=200 mcts:rollouts=1000", []string{"net:path=a.tbn,sims=200", "mcts:rollouts=1000"}},
		{"net:path=a.tbn,sims=200,mcts:rollouts=10,c=2,alphabeta:depth=3,tt=10", []string{"net:path=a.tbn,sims=200", "mcts:rollouts=10,c=2", "alphabeta:depth=3,tt=10"}},
		// Quoted values: separators inside quotes are literal.
		{`net:path="my runs/a.tbn",sims=200 random`, []string{`net:path="my runs/a.tbn",sims=200`, "random"}},
		{`net:path="a,random b.tbn",random`, []string{`net:path="a,random b.tbn"`, "random"}},
		{`net:path="x=y.tbn"`, []string{`net:path="x=y.tbn"`}},
		{`net:path="plain.tbn"`, []string{`net:path=plain.tbn`}},
		{`net:path="say \"hi\" \\ bye"`, []string{`net:path="say \"hi\" \\ bye"`}},
		{`net:path=C:\runs\a.tbn`, []string{`net:path="C:\\runs\\a.tbn"`}},
		{`net:path=""`, []string{`net:path=""`}},
		{"alphabeta:time=50ms,tt=10 solver:tt=20", []string{"alphabeta:time=50ms,tt=10", "solver:tt=20"}},
		{"random,random", []string{"random", "random"}},
	} {
		specs, err := ParseSpecs(tc.list)
		if err != nil {
			t.Errorf("ParseSpecs(%q): %v", tc.list, err)
			continue
		}
		var got []string
		for _, s := range specs {
			got = append(got, s.String())
		}
		if strings.Join(got, " | ") != strings.Join(tc.want, " | ") {
			t.Errorf("ParseSpecs(%q) = %q, want %q", tc.list, got, tc.want)
		}
	}
}

func TestParseSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []string // substrings of the error
	}{
		{"", []string{"empty player list", "random, greedy, alphabeta, solver, mcts, net"}},
		{"randm", []string{`unknown kind "randm"`, "valid kinds: random, greedy"}},
		{"alphabeta:dpth=3", []string{`no parameter "dpth"`, "depth (", "nodes (", "time ("}},
		{"alphabeta:depth=0", []string{"depth=\"0\"", "1..64"}},
		{"alphabeta:depth=x", []string{"depth=\"x\""}},
		{"alphabeta:depth=3,depth=4", []string{"given twice"}},
		{"alphabeta:depth", []string{"not of the form key=value"}},
		{"alphabeta:time=-1s", []string{"positive duration"}},
		{"mcts:c=NaN", []string{"c=\"NaN\""}},
		{"random:x=1", []string{"random takes no parameters"}},
		{"net:path=x,batch=0", []string{`batch="0"`, "1..1024"}},
		{"net:path=x,fpu=3", []string{`fpu="3"`, "0..2"}},
		{"random greedy:depth=2", []string{"greedy takes no parameters"}},
		{"alphabeta:depth=2,nodes=5", []string{"alphabeta takes one limit, got depth and nodes", "one of depth, nodes, time"}},
		{"alphabeta:time=1s,depth=2", []string{"got depth and time"}},
		{"alphabeta:clock=10s,time=1s", []string{"got time and clock"}},
		{"alphabeta:qs=2", []string{`qs="2"`, "0..1"}},
		{"alphabeta:null=x", []string{`null="x"`}},
		{"alphabeta:inc=0s", []string{"positive duration"}},
		{`net:path="a b`, []string{"unterminated quote"}},
		{`net:path="a b\"`, []string{"unterminated quote"}},
		{`net:path="a"b`, []string{"text after the closing quote"}},
		{`net:path=a"b"`, []string{"a quote may only open a value"}},
		{`net:path="a\nb"`, []string{`unknown escape \n`}},
		{`net:"path"=a`, []string{"not of the form key=value"}},
		{`net:path="a",`, []string{`"" is not of the form key=value`}},
	} {
		_, err := ParseSpecs(tc.list)
		if err == nil {
			t.Errorf("ParseSpecs(%q): no error", tc.list)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseSpecs(%q) error %q does not contain %q", tc.list, err, w)
			}
		}
	}
}

// TestParseSpecQuoted checks the values quoting yields, as the players see them.
func TestParseSpecQuoted(t *testing.T) {
	for _, tc := range []struct{ text, key, want string }{
		{`net:path="my runs/a.tbn",sims=200`, "path", "my runs/a.tbn"},
		{`net:path="a,b=c"`, "path", "a,b=c"},
		{`net:path="  padded  "`, "path", "  padded  "},
		{`net:path="q\"q\\"`, "path", `q"q\`},
		{`net:path=""`, "path", ""},
		{`net:path=a=b`, "path", "a=b"},
		{` net: path = "a b" , sims=3 `, "path", "a b"},
	} {
		s, err := ParseSpec(tc.text)
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", tc.text, err)
			continue
		}
		if got := s.Str(tc.key, "<none>"); got != tc.want {
			t.Errorf("ParseSpec(%q): %s = %q, want %q", tc.text, tc.key, got, tc.want)
		}
	}
}

// TestSpecHelpDocuments checks the help explains quoting and what limits do
// together, so users need not guess.
func TestSpecHelpDocuments(t *testing.T) {
	h := SpecHelp()
	for _, w := range []string{"double quotes", `net:path="my runs/a.tbn"`, `\"`, "one limit of depth, nodes, time, cpu or clock", "whichever comes first"} {
		if !strings.Contains(h, w) {
			t.Errorf("SpecHelp lacks %q:\n%s", w, h)
		}
	}
}

func TestSpecGetters(t *testing.T) {
	s, err := ParseSpec("mcts:rollouts=77,c=0.5,time=2s")
	if err != nil {
		t.Fatal(err)
	}
	if s.Int("rollouts", 1) != 77 || s.Float("c", 1) != 0.5 || s.Duration("time", 0).Seconds() != 2 || s.Int("nope", 9) != 9 {
		t.Errorf("getters on %v returned wrong values", s)
	}
}

// FuzzParseSpecs checks the parser never panics and that whatever it accepts
// prints back to a list that parses to the same specs.
func FuzzParseSpecs(f *testing.F) {
	for _, s := range []string{"random", "mcts:rollouts=1000,random", "net:path=a.tbn,sims=200 mcts:rollouts=1000", "alphabeta:depth=3,,", "x:y=z", ":,=", "alphabeta:time=1h",
		`net:path="my runs/a.tbn",sims=200 random`, `net:path="a\"b\\c, d=e"`, `net:path="x`, `net:path=""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		specs, err := ParseSpecs(list)
		if err != nil {
			return
		}
		var texts []string
		for _, s := range specs {
			texts = append(texts, s.String())
		}
		again, err := ParseSpecs(strings.Join(texts, " "))
		if err != nil {
			t.Fatalf("%q parsed to %q, which does not parse: %v", list, texts, err)
		}
		if len(again) != len(specs) {
			t.Fatalf("%q: %d specs, reparsed %d", list, len(specs), len(again))
		}
		for i := range again {
			if again[i].String() != texts[i] {
				t.Fatalf("%q: spec %d %q reparsed as %q", list, i, texts[i], again[i].String())
			}
		}
	})
}

// FuzzParseSpec checks that ParseSpec never panics and that every spec it
// accepts prints to text it reads back to the same kind and values.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"random", "net:path=a.tbn", `net:path="my runs/a.tbn",sims=200`, `net:path="a\"b\\c, d=e"`, `net:path="x`, `net:path=""`, "alphabeta:depth=2,nodes=5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSpec(text)
		if err != nil {
			return
		}
		again, err := ParseSpec(s.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", text, s.String(), err)
		}
		if again.Kind != s.Kind || len(again.Params) != len(s.Params) {
			t.Fatalf("%q printed as %q, reparsed as %v", text, s.String(), again)
		}
		for i := range s.Params {
			if again.Params[i] != s.Params[i] {
				t.Fatalf("%q: param %v reparsed as %v", text, s.Params[i], again.Params[i])
			}
		}
	})
}
