package nn

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOldCheckpointLoads reads a checkpoint written by the code before the
// auxiliary heads existed (format version 1, testdata/go5-v1.tbn): it loads,
// runs, and is written back byte for byte in the same format.
func TestOldCheckpointLoads(t *testing.T) {
	path := filepath.Join("testdata", "go5-v1.tbn")
	c, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Game != "go:size=5,komi=7.5,max_moves=75" || c.Step != 7 || c.Weights.Config.HasAux() || c.Weights.StemBN.Mean[3] != 0.3 {
		t.Fatalf("old checkpoint: game %q step %d config %+v", c.Game, c.Step, c.Weights.Config)
	}
	if g, err := PeekCheckpointGame(path); err != nil || g != c.Game {
		t.Fatalf("peek: %q, %v", g, err)
	}
	net, err := NewNet(c.Weights, 2)
	if err != nil {
		t.Fatal(err)
	}
	sh := c.Weights.Shape
	obs := randomObs(sh, 2, rand.New(rand.NewPCG(1, 1)))
	if err := net.Forward(obs, 2, make([]float32, 2*sh.Actions), make([]float32, 2)); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := encode(t, c); !bytes.Equal(got, old) {
		t.Error("writing the old checkpoint again changes its bytes: a network without auxiliary parts must keep format 1")
	}
}

// TestAuxCheckpointRoundTrip saves networks with each auxiliary part as
// format version 2 and loads them back bit for bit.
func TestAuxCheckpointRoundTrip(t *testing.T) {
	for _, cfg := range []Config{
		{Filters: 8, Blocks: 3, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4, Ownership: true},
		{Filters: 8, Blocks: 3, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4, Score: true},
		{Filters: 8, Blocks: 3, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4, GlobalPooling: true},
		{Filters: 8, Blocks: 4, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4, Ownership: true, Score: true, GlobalPooling: true, PoolChannels: 3},
		{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4, OpponentPolicy: true},
		{Filters: 8, Blocks: 2, PolicyFilters: 3, ValueFilters: 1, ValueHidden: 4, Ownership: true, OpponentPolicy: true, GlobalPooling: true},
		{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4, WDL: true},
		{Filters: 8, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4, WDL: true, Score: true, Ownership: true},
		{Filters: 8, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4, SqueezeExcite: true},
		{Filters: 6, Blocks: 3, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4, SqueezeExcite: true, GlobalPooling: true, Ownership: true},
	} {
		w := randomWeights(t, cfg, Shape{Planes: 3, Height: 5, Width: 5, Actions: 26}, 4)
		c := &Checkpoint{Game: "go:size=5", Step: 3, Weights: w}
		data := encode(t, c)
		if v := binary.LittleEndian.Uint32(data[8:]); v != 2 {
			t.Errorf("%+v: format version %d, want 2", cfg, v)
		}
		got, err := ReadCheckpoint(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		if got.Weights.Config != cfg {
			t.Errorf("config %+v, want %+v", got.Weights.Config, cfg)
		}
		want, have := w.Tensors(), got.Weights.Tensors()
		if len(want) != len(have) {
			t.Fatalf("%+v: %d tensors, want %d", cfg, len(have), len(want))
		}
		for i := range want {
			if want[i].Name != have[i].Name || !sameBits(want[i].Data, have[i].Data) {
				t.Errorf("%+v: tensor %s differs", cfg, want[i].Name)
			}
		}
		for n := 0; n < len(data); n += max(1, len(data)/40) {
			if _, err := ReadCheckpoint(bytes.NewReader(data[:n])); err == nil {
				t.Fatalf("%+v: truncated to %d bytes, loaded", cfg, n)
			}
		}
	}
}

func TestAuxConfigErrors(t *testing.T) {
	base := Config{Filters: 8, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 4}
	for _, tc := range []struct {
		mod  func(c *Config)
		want string
	}{
		{func(c *Config) { c.PoolChannels = 2 }, "pool_channels = 2 without global_pooling"},
		{func(c *Config) { c.GlobalPooling, c.PoolChannels = true, 9 }, "pool_channels = 9, want 0..filters (8)"},
		{func(c *Config) { c.GlobalPooling, c.Blocks = true, 1 }, "global_pooling with blocks = 1"},
		{func(c *Config) { c.GlobalPooling, c.PoolChannels = true, -1 }, "pool_channels = -1"},
	} {
		c := base
		tc.mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error with %q", c, err, tc.want)
		}
	}
	c := base
	c.GlobalPooling = true
	if err := c.Validate(); err != nil || c.Pooled() != 2 || !c.PoolBlock(1) || c.PoolBlock(0) {
		t.Errorf("default pooling: %v, pooled %d", err, c.Pooled())
	}
}
