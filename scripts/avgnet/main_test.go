package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/nn"
)

func TestAverageRunCheckpoints(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "checkpoints")
	if err := os.Mkdir(ck, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}
	shape := nn.Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}
	var ws []*nn.Weights
	for i := range 4 {
		w, err := nn.NewWeights(cfg, shape, rand.New(rand.NewPCG(uint64(i), 1)))
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
		path := filepath.Join(ck, "ckpt-00000"+string(rune('0'+i))+".tbn")
		if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: "connect4", Step: int64(100 * i), Weights: w}); err != nil {
			t.Fatal(err)
		}
	}
	paths, err := sources(dir, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || filepath.Base(paths[0]) != "ckpt-000002.tbn" || filepath.Base(paths[1]) != "ckpt-000003.tbn" {
		t.Fatalf("-last 2 picked %v", paths)
	}
	out := filepath.Join(dir, "avg.tbn")
	if err := average(out, paths); err != nil {
		t.Fatal(err)
	}
	c, err := nn.LoadCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Game != "connect4" || c.Step != 300 || c.Meta["averaged_from"] != "ckpt-000002.tbn,ckpt-000003.tbn" {
		t.Fatalf("game %q step %d meta %v", c.Game, c.Step, c.Meta)
	}
	want, _ := nn.AverageWeights(ws[2:])
	got, w := c.Weights.Tensors(), want.Tensors()
	for i := range got {
		for j := range got[i].Data {
			if got[i].Data[j] != w[i].Data[j] {
				t.Fatalf("%s[%d] = %v, want %v", got[i].Name, j, got[i].Data[j], w[i].Data[j])
			}
		}
	}
	for _, bad := range []struct {
		run  string
		k    int
		args []string
		want string
	}{
		{dir, 5, nil, "fewer than -last 5"},
		{dir, 0, nil, "K >= 1"},
		{"", 2, nil, "-last needs -run"},
		{"", 0, nil, "no checkpoints"},
		{dir, 1, []string{out}, "not both"},
	} {
		if _, err := sources(bad.run, bad.k, bad.args); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("sources(%q, %d, %v): %v, want %q", bad.run, bad.k, bad.args, err, bad.want)
		}
	}
	if err := average(filepath.Join(dir, "x.tbn"), []string{paths[0], filepath.Join(dir, "missing.tbn")}); err == nil {
		t.Error("a missing checkpoint was averaged")
	}
}
