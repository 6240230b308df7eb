package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"tabula/nn/models"
)

// checkmodel runs the manifest's arena command with {model} replaced, from
// the clone's root, and refuses a damaged file before running anything.
func TestRunsTheManifestCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake arena is a shell script")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "models")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "c4.tbn")
	if err := os.WriteFile(file, []byte("net"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, _ := models.FileSHA256(file)
	m, _ := json.Marshal(models.Manifest{Models: []models.Model{{Name: "c4", Game: "connect4", File: "c4.tbn", SHA256: sum,
		Check: []string{"match", "-players", "{model},sims=800 random", "-games", "10"}}}})
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), m, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "args")
	fake := filepath.Join(root, "arena")
	script := "#!/bin/sh\npwd > " + out + "\nfor a in \"$@\"; do echo \"$a\" >> " + out + "; done\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(models.EnvDir, dir)
	if err := run(false, false, fake, []string{"c4"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := filepath.EvalSymlinks(root)
	want := wd + "\nmatch\n-players\nnet:model=c4,sims=800 random\n-games\n10\n"
	if string(got) != want {
		t.Fatalf("arena ran as\n%s\nwant\n%s", got, want)
	}
	if err := os.WriteFile(file, []byte("nets"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(out)
	if err := run(false, false, fake, []string{"c4"}); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("damaged file: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the arena ran for a damaged file")
	}
}
