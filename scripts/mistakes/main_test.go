package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeBench(t *testing.T, run, set string, lines ...string) {
	t.Helper()
	dir := filepath.Join(run, "eval")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bench-"+set+"-net.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBreakdownByBestOutcome(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	// p1: the best move wins; p2: the best only draws (a full column is -1000); p3: every move loses.
	writeBench(t, a, "S",
		`{"position":"1","move":2,"outcomes":[1,-1,-1,-1,-1,-1,-1],"mistake":true}`,
		`{"position":"2","move":1,"outcomes":[-1000,0,-1,-1,-1,-1,-1],"mistake":false}`,
		`{"position":"3","move":1,"outcomes":[-1,-1,-1,-1,-1,-1,-1],"mistake":false}`)
	writeBench(t, b, "S",
		`{"position":"1","move":2,"outcomes":[1,-1,-1,-1,-1,-1,-1],"mistake":true}`,
		`{"position":"2","move":3,"outcomes":[-1000,0,-1,-1,-1,-1,-1],"mistake":true}`,
		`{"position":"3","move":1,"outcomes":[-1,-1,-1,-1,-1,-1,-1],"mistake":false}`)
	var out bytes.Buffer
	if err := run(&out, "net", []string{"S"}, []string{a, b}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"3 positions: best move wins 1, draws 1, loses 1",
		"| " + a + " | 1 (33.3%) | 1 of 1 (100.0%) | 0 of 1 (0.0%) | 0 of 1 (0.0%) |",
		"| " + b + " | 2 (66.7%) | 1 of 1 (100.0%) | 1 of 1 (100.0%) | 0 of 1 (0.0%) |",
		"| mean of 2 | 1.5 (50.0%) | 100.0% | 50.0% | 0.0% |",
		"missed by k of the 2 runs: 1: 1, 2: 1 (2 distinct)",
		"missed by every run: 1 (win)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

func TestMismatchedRunsAreAnError(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	writeBench(t, a, "S", `{"position":"1","move":1,"outcomes":[1,-1,-1,-1,-1,-1,-1],"mistake":false}`)
	writeBench(t, b, "S", `{"position":"9","move":1,"outcomes":[1,-1,-1,-1,-1,-1,-1],"mistake":false}`)
	err := run(&bytes.Buffer{}, "net", []string{"S"}, []string{a, b})
	if err == nil || !strings.Contains(err.Error(), "position 9 is not in") {
		t.Fatalf("err = %v, want one naming position 9", err)
	}
	writeBench(t, b, "S", `{"position":"1","move":1,`)
	if err := run(&bytes.Buffer{}, "net", []string{"S"}, []string{a, b}); err == nil || !strings.Contains(err.Error(), ":1:") {
		t.Fatalf("err = %v, want one naming line 1 of the truncated file", err)
	}
}
