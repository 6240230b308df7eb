package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
	"tabula/nn"
	"tabula/nn/onnx"
)

// writeTestCheckpoint saves a small random network for spec and returns its
// path.
func writeTestCheckpoint(t *testing.T, dir, spec string) string {
	t.Helper()
	return writeCheckpointConfig(t, dir, spec, nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8})
}

// writeCheckpointConfig saves a random network of cfg for spec and returns
// its path.
func writeCheckpointConfig(t *testing.T, dir, spec string, cfg nn.Config) string {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, h, w := g.ObservationShape()
	wts, err := nn.NewWeights(cfg, nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, strings.NewReplacer(":", "_", "=", "_", ",", "_").Replace(spec)+".tbn")
	if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: g.Name(), Step: 5, Weights: wts}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExportONNX(t *testing.T) {
	dir := t.TempDir()
	ck := writeTestCheckpoint(t, dir, "othello:size=6")
	out := filepath.Join(dir, "m.onnx")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"export", "-checkpoint", ck, "-format", "onnx", "-out", out, "-game", "othello:size=6"},
		nil, &stdout, &stderr)
	if err != nil {
		t.Fatalf("export: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := onnx.Metadata(b)
	if err != nil {
		t.Fatal(err)
	}
	if meta[onnx.KeyGame] != "othello:size=6" || meta[onnx.KeyStep] != "5" {
		t.Errorf("metadata game %q step %q", meta[onnx.KeyGame], meta[onnx.KeyStep])
	}
	if !strings.Contains(stdout.String(), "wrote "+out) {
		t.Errorf("stdout %q", stdout.String())
	}
}

func TestExportRefuses(t *testing.T) {
	dir := t.TempDir()
	ck := writeTestCheckpoint(t, dir, "connect4")
	corrupt := filepath.Join(dir, "corrupt.tbn")
	b, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(corrupt, b, 0o644); err != nil {
		t.Fatal(err)
	}
	notCk := filepath.Join(dir, "text.tbn")
	if err := os.WriteFile(notCk, []byte("hello, this is not a checkpoint at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m.onnx")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"other game", []string{"-checkpoint", ck, "-out", out, "-game", "othello:size=8"}, "is a network for connect4, not othello:size=8"},
		{"other game, web", []string{"-checkpoint", ck, "-format", "web", "-out", dir, "-game", "go:size=9"}, "not go:size=9"},
		{"corrupt", []string{"-checkpoint", corrupt, "-out", out}, "corrupt"},
		{"corrupt, web", []string{"-checkpoint", corrupt, "-format", "web", "-out", dir}, "corrupt"},
		{"not a checkpoint", []string{"-checkpoint", notCk, "-out", out}, "not a tabula checkpoint"},
		{"missing", []string{"-checkpoint", filepath.Join(dir, "none.tbn"), "-out", out}, "no such file"},
		{"bad game", []string{"-checkpoint", ck, "-out", out, "-game", "shogi"}, "shogi"},
		{"bad format", []string{"-checkpoint", ck, "-out", out, "-format", "tflite"}, "tflite"},
		{"no out", []string{"-checkpoint", ck}, "-out is required"},
		{"no checkpoint", []string{"-out", out}, "-checkpoint is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append([]string{"export"}, tc.args...), nil, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if _, serr := os.Stat(out); serr == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

// TestExportWebRefusesAFolderInUse checks that a web export will not write
// into a folder holding other files (someone's index.html) without -force,
// leaves it untouched, and accepts a new folder, an empty one, an earlier
// export and, with -force, any folder.
func TestExportWebRefusesAFolderInUse(t *testing.T) {
	dir := t.TempDir()
	ck := writeTestCheckpoint(t, dir, "connect4")
	site := filepath.Join(dir, "site")
	if err := os.Mkdir(site, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(site, "index.html")
	if err := os.WriteFile(mine, []byte("my own page"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"export", "-checkpoint", ck, "-format", "web", "-out", site}, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "is not empty (it holds index.html)") || !strings.Contains(err.Error(), "-force") {
		t.Errorf("error %v, want a refusal naming index.html and -force", err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my own page" {
		t.Errorf("index.html now holds %q", b)
	}
	if err := checkWebOut(site, true); err != nil {
		t.Errorf("-force: %v", err)
	}
	if err := checkWebOut(filepath.Join(dir, "new"), false); err != nil {
		t.Errorf("a new folder: %v", err)
	}
	if err := checkWebOut(t.TempDir(), false); err != nil {
		t.Errorf("an empty folder: %v", err)
	}
	if err := checkWebOut(ck, false); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("a file: %v", err)
	}
	earlier := t.TempDir()
	for _, n := range webExportFiles() {
		os.WriteFile(filepath.Join(earlier, n), []byte("x"), 0o644)
	}
	if err := checkWebOut(earlier, false); err != nil {
		t.Errorf("an earlier export: %v", err)
	}
	os.WriteFile(filepath.Join(earlier, "notes.txt"), []byte("x"), 0o644)
	if err := checkWebOut(earlier, false); err == nil {
		t.Error("an earlier export with a file of someone else's: no error")
	}
}
