package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeVerdicts writes bench records of set: one per mistake flag, the
// positions p0, p1, ... in order.
func writeVerdicts(t *testing.T, path, set string, mistakes ...bool) {
	t.Helper()
	var b strings.Builder
	for i, m := range mistakes {
		fmt.Fprintf(&b, `{"set":%q,"position":"p%d","move":"a1","mistake":%v,"seconds":0.01}`+"\n", set, i, m)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	// 12 positions: a errs on 0 and 1, b on 1 and 2..9 (only a 1, only b 8:
	// p = 2 * 10/512 = 0.0391); a's file has two more, b's one more.
	am := make([]bool, 14)
	bm := make([]bool, 13)
	am[0], am[1] = true, true
	for i := 1; i <= 9; i++ {
		bm[i] = true
	}
	writeVerdicts(t, a, "s8", am...)
	writeVerdicts(t, b, "s8", bm...)
	stdout, _, err := runCmd(t, "", "compare", "-a", a, "-b", b)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"left out: 1 positions only in a, 0 only in b",
		"s8: 13 positions, mistakes a 2 (15.4%) b 9 (69.2%), only a 1, only b 8, exact McNemar p = 0.0391",
		"all: 13 positions",
		"a makes fewer mistakes than b (two-sided p = 0.0391)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// Swapped, the verdict turns round; with the same verdicts, no difference.
	stdout, _, err = runCmd(t, "", "compare", "-a", b, "-b", a)
	if err != nil || !strings.Contains(stdout, "b makes fewer mistakes than a") {
		t.Errorf("swapped: %v\n%s", err, stdout)
	}
	stdout, _, err = runCmd(t, "", "compare", "-a", a, "-b", a)
	if err != nil || !strings.Contains(stdout, "no difference at the 5% level (two-sided): 0 against 0") {
		t.Errorf("same file: %v\n%s", err, stdout)
	}
	// Positions of another set are other positions.
	c := filepath.Join(dir, "c.jsonl")
	writeVerdicts(t, c, "s6", am...)
	wantError(t, "", []string{"compare", "-a", a, "-b", c}, "no position in common")
}

func TestCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	writeVerdicts(t, good, "", true, false)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dup := write("dup.jsonl", `{"position":"44","mistake":false}`+"\n"+`{"position":"44","mistake":true}`+"\n")
	game := write("game.jsonl", `{"index":0,"game":"connect4","moves":"4444"}`+"\n")
	broken := write("broken.jsonl", `{"position":"44","mistake":false}`+"\n"+`{"position":"45","mis`+"\n")
	empty := write("empty.jsonl", "\n")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"compare", "-a", good}, []string{"-a FILE and -b FILE are both required"}},
		{[]string{"compare", "-a", good, "-b", filepath.Join(dir, "missing.jsonl")}, []string{"missing.jsonl"}},
		{[]string{"compare", "-a", dup, "-b", good}, []string{"dup.jsonl:2", `position "44" is listed twice`}},
		{[]string{"compare", "-a", good, "-b", game}, []string{"game.jsonl:1", "not a bench record"}},
		{[]string{"compare", "-a", good, "-b", broken}, []string{"broken.jsonl:2", "not a bench record"}},
		{[]string{"compare", "-a", empty, "-b", good}, []string{"empty.jsonl: no bench records"}},
	} {
		wantError(t, "", tc.args, tc.want...)
	}
}
