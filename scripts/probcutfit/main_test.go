package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"tabula/search"
)

// TestRunWritesLoadableFit runs a small fit end to end and loads the file
// it writes; bad flags are refused by name.
func TestRunWritesLoadableFit(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pc.json")
	var stdout, stderr bytes.Buffer
	args := []string{"-games", "6", "-deep", "3", "-every", "2", "-probcut", "3:1", "-mpc", "2:0,3:1", "-stage", "50", "-out", out}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	m, err := search.LoadProbCut(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Game != "othello:size=8" || m.Positions < 30 || len(m.MPC.Checks) != 2 || len(m.ProbCut.Checks) != 1 {
		t.Errorf("model %+v", m)
	}
	if !strings.Contains(m.MadeBy, "-games 6") || !strings.Contains(stdout.String(), "wrote "+out) {
		t.Errorf("made_by %q, output %q", m.MadeBy, stdout.String())
	}
	for _, bad := range [][]string{
		{"-out", out, "-probcut", "3"},
		{"-out", out, "-mpc", "9:1"},
		{"-out", out, "-game", "connect4"},
		{"-games", "2"},
	} {
		if err := run(context.Background(), bad, &stdout, &stderr); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
