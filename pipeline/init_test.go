package pipeline

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
	"tabula/nn"
	"tabula/nn/models"
)

// initNetwork writes a network of cfg's game and shape, drawn from seed,
// to a file in dir and returns its path.
func initNetwork(t *testing.T, cfg *Config, dir string, seed uint64) (string, *nn.Weights) {
	t.Helper()
	g, err := games.New(cfg.Game)
	if err != nil {
		t.Fatal(err)
	}
	p, h, w := g.ObservationShape()
	weights, err := nn.NewWeights(cfg.Network, nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "start.tbn")
	if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: g.Name(), Weights: weights, Step: 777}); err != nil {
		t.Fatal(err)
	}
	return path, weights
}

func sameWeights(a, b *nn.Weights) bool {
	ta, tb := a.Tensors(), b.Tensors()
	if len(ta) != len(tb) {
		return false
	}
	for i := range ta {
		if len(ta[i].Data) != len(tb[i].Data) {
			return false
		}
		for j := range ta[i].Data {
			if ta[i].Data[j] != tb[i].Data[j] {
				return false
			}
		}
	}
	return true
}

// A run with init starts from that network, not from random weights,
// records where it started in its checkpoints, and keeps the record when
// it resumes.
func TestInitStartsFromNetwork(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	start, want := initNetwork(t, smoke(t, run), dir, 99)
	cfg := smoke(t, run, "init="+start)
	tr, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !sameWeights(tr.weights, want) {
		t.Fatal("the run's first network is not the init file's")
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	ck, err := nn.LoadCheckpoint(filepath.Join(run, checkpointDir, "ckpt-000000.tbn"))
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := models.FileSHA256(start)
	if ck.Meta[metaInit] != start || ck.Meta[metaInitSHA256] != sum {
		t.Fatalf("checkpoint 0 records init %q sha %q, want %q %q", ck.Meta[metaInit], ck.Meta[metaInitSHA256], start, sum)
	}
	if ck.Step != 0 {
		t.Fatalf("checkpoint 0 has step %d: the init file's step count was carried over", ck.Step)
	}
	if !sameWeights(ck.Weights, want) {
		t.Fatal("checkpoint 0 is not the init network")
	}
	// A restart resumes from the run's own checkpoint even with another
	// init, and keeps the record of where the run started.
	if err := os.Remove(start); err != nil {
		t.Fatal(err)
	}
	tr, err = New(smoke(t, run, "init="+start), Options{})
	if err != nil {
		t.Fatalf("a resumed run read its init file again: %v", err)
	}
	if tr.initFrom[metaInit] != start {
		t.Fatalf("resumed run lost the init record: %v", tr.initFrom)
	}
	tr.Close()
}

// init names what is wrong: a missing file, another game's network, a
// network of another shape, an unknown or damaged shipped model.
func TestInitErrors(t *testing.T) {
	dir := t.TempDir()
	base := smoke(t, filepath.Join(dir, "x"))
	start, _ := initNetwork(t, base, dir, 1)

	other := *base
	other.Network.Filters *= 2
	wide, _ := initNetwork(t, &other, t.TempDir(), 2)

	tttCfg := *base
	tttCfg.Game = "tictactoe"
	ttt, _ := initNetwork(t, &tttCfg, t.TempDir(), 3)

	models := t.TempDir()
	writeManifest(t, models, "c4", start, "")
	t.Setenv("TABULA_MODELS", models)

	for i, c := range []struct{ init, want string }{
		{filepath.Join(dir, "nope.tbn"), "nope.tbn"},
		{ttt, "tictactoe"},
		{wide, "filters"},
		{"model:nosuch", `no shipped model "nosuch"; the manifest has: c4`},
		{"path:" + start, "init takes a file path, or model:NAME"},
	} {
		_, err := New(smoke(t, filepath.Join(dir, "r", string(rune('a'+i))), "init="+c.init), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "init") {
			t.Errorf("init=%s: err %v, want one naming init and %q", c.init, err, c.want)
		}
	}
	// A shipped model starts a run once its checksum matches.
	tr, err := New(smoke(t, filepath.Join(dir, "r", "ok"), "init=model:c4"), Options{})
	if err != nil {
		t.Fatalf("init=model:c4: %v", err)
	}
	tr.Close()
	// A damaged shipped file is refused.
	writeManifest(t, models, "c4", start, strings.Repeat("0", 64))
	_, err = New(smoke(t, filepath.Join(dir, "r", "bad"), "init=model:c4"), Options{})
	if err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("damaged model: err %v, want a checksum error", err)
	}
}

// writeManifest makes dir a models folder holding file as model name, with
// the file's checksum or sum when given.
func writeManifest(t *testing.T, dir, name, file, sum string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".tbn"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if sum == "" {
		sum, _ = models.FileSHA256(file)
	}
	m := models.Manifest{Models: []models.Model{{Name: name, Game: "connect4", File: name + ".tbn", SHA256: sum,
		Check: []string{"match", "-players", "{model} random", "-games", "2"}}}}
	out, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), out, 0o644); err != nil {
		t.Fatal(err)
	}
}
