package players_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/match"
	"tabula/nn/models"
	"tabula/players"
	"tabula/players/playerstest"
)

// net:model=NAME plays the shipped network the manifest names, gives the
// game to GameOf, and is refused with path=, unknown or damaged.
func TestNetPlayerShippedModel(t *testing.T) {
	g := playerstest.MustGame(t, "connect4")
	src := untrainedNet(t, g)
	dir := t.TempDir()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "c4.tbn")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, _ := models.FileSHA256(file)
	m, _ := json.Marshal(models.Manifest{Models: []models.Model{{Name: "c4", Game: "connect4", File: "c4.tbn",
		SHA256: sum, Check: []string{"match", "-players", "{model} random"}}}})
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), m, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(models.EnvDir, dir)

	specs, err := players.ParseSpecs("net:model=c4,sims=4,batch=2 random")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := players.GameOf(specs); err != nil || got.Name() != "connect4" {
		t.Fatalf("GameOf(net:model=c4): %v %v", got, err)
	}
	fs := playerstest.MustFactories(t, g, "net:model=c4,sims=4,batch=2 random")
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 1, Seed: 1}, g, fs)
	if err != nil || res.Total(0).Games() != 2 {
		t.Fatalf("match: %v", err)
	}
	for spec, want := range map[string]string{
		"net:model=c4,path=" + src: "not both",
		"net:model=go9":            `no shipped model "go9"; the manifest has: c4`,
		"net:sims=4":               "path=FILE or model=NAME",
	} {
		sp, err := players.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := players.Build(g, sp); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", spec, err, want)
		}
	}
	if err := os.WriteFile(file, append(data, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, _ := players.ParseSpec("net:model=c4")
	if _, err := players.Build(g, sp); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("damaged model: err %v", err)
	}
}

// The networks this repository ships (models/manifest.json): each file
// matches its checksum, is a network of the game its entry names, and plays
// a short match as net:model=NAME, as the README's play commands use it.
func TestRepositoryModels(t *testing.T) {
	t.Setenv(models.EnvDir, "")
	dir, err := models.Dir()
	if err != nil {
		t.Fatalf("the repository's models folder: %v", err)
	}
	m, err := models.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Models {
		if _, _, err := models.ResolveIn(dir, e.Name); err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		specs, err := players.ParseSpecs("net:model=" + e.Name + ",sims=8 random")
		if err != nil {
			t.Fatal(err)
		}
		g, err := players.GameOf(specs)
		want := playerstest.MustGame(t, e.Game)
		if err != nil || g.Name() != want.Name() {
			t.Errorf("%s: the network's game %v (%v), the manifest says %s", e.Name, g, err, e.Game)
			continue
		}
		fs := playerstest.MustFactories(t, g, "net:model="+e.Name+",sims=8 random")
		res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 1, Seed: 1}, g, fs)
		if err != nil || res.Total(0).Games() != 2 {
			t.Errorf("%s: a 2-game match: %v", e.Name, err)
		}
	}
}
