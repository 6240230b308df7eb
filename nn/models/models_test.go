package models

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeModels(t *testing.T, dir string, m Manifest, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func entry(name, file, sum string) Model {
	return Model{Name: name, Game: "connect4", File: file, SHA256: sum, Check: []string{"match", "-players", "{model} random"}}
}

func TestResolveChecksTheFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.tbn"), []byte("weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := FileSHA256(filepath.Join(dir, "a.tbn"))
	if err != nil {
		t.Fatal(err)
	}
	writeModels(t, dir, Manifest{Models: []Model{entry("c4", "a.tbn", sum)}}, nil)
	e, path, err := ResolveIn(dir, "c4")
	if err != nil || path != filepath.Join(dir, "a.tbn") || e.Game != "connect4" {
		t.Fatalf("ResolveIn: %v %q %v", e, path, err)
	}
	if _, _, err := ResolveIn(dir, "go9"); err == nil || !strings.Contains(err.Error(), `no shipped model "go9"; the manifest has: c4`) {
		t.Fatalf("unknown name: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.tbn"), []byte("weightz"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ResolveIn(dir, "c4"); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("damaged file: %v", err)
	}
}

func TestManifestValidation(t *testing.T) {
	sum := strings.Repeat("a", 64)
	for _, c := range []struct {
		m    Manifest
		want string
	}{
		{Manifest{Models: []Model{entry("Go9", "a", sum)}}, "name"},
		{Manifest{Models: []Model{entry("a", "a", sum), entry("a", "b", sum)}}, "twice"},
		{Manifest{Models: []Model{entry("a", "../x.tbn", sum)}}, "inside the models folder"},
		{Manifest{Models: []Model{entry("a", "/x.tbn", sum)}}, "inside the models folder"},
		{Manifest{Models: []Model{entry("a", "x.tbn", "abc")}}, "sha256"},
		{Manifest{Models: []Model{{Name: "a", File: "x", SHA256: sum, Check: []string{"x"}}}}, "no game"},
		{Manifest{Models: []Model{{Name: "a", Game: "go", File: "x", SHA256: sum}}}, "no check"},
		{Manifest{Models: []Model{{Name: "a", Game: "backgammon:scoring=money", File: "x", SHA256: sum,
			Check: []string{"match", "-game", "backgammon", "-players", "{model} pubeval"}}}}, "plays -game backgammon, the network's game is backgammon:scoring=money"},
		{Manifest{Models: []Model{{Name: "a", Game: "backgammon", File: "x", SHA256: sum,
			Check: []string{"match", "-game=backgammon:scoring=money", "-players", "{model} pubeval"}}}}, "plays -game backgammon:scoring=money"},
	} {
		if err := c.m.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.m, err, c.want)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"models":[],"extra":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "extra") {
		t.Fatalf("unknown field: %v", err)
	}
}

// Dir finds models/ from a folder below the clone's root, and
// $TABULA_MODELS wins.
func TestDirLookup(t *testing.T) {
	root := t.TempDir()
	md := filepath.Join(root, "models")
	deep := filepath.Join(root, "a", "b")
	for _, d := range []string{md, deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeModels(t, md, Manifest{}, nil)
	t.Setenv(EnvDir, "")
	t.Chdir(deep)
	got, err := Dir()
	if err != nil || got != md {
		t.Fatalf("Dir from %s: %q %v, want %q", deep, got, err, md)
	}
	other := t.TempDir()
	t.Setenv(EnvDir, other)
	if _, err := Dir(); err == nil || !strings.Contains(err.Error(), EnvDir) {
		t.Fatalf("TABULA_MODELS without a manifest: %v", err)
	}
	writeModels(t, other, Manifest{}, nil)
	if got, err := Dir(); err != nil || got != other {
		t.Fatalf("Dir with %s: %q %v", EnvDir, got, err)
	}
	if _, err := Path("model:"); err == nil || !strings.Contains(err.Error(), "needs a name") {
		t.Fatalf("Path(model:): %v", err)
	}
	if p, err := Path("x/y.tbn"); err != nil || p != "x/y.tbn" {
		t.Fatalf("Path of a file: %q %v", p, err)
	}
}
