package pipeline

import (
	"path/filepath"
	"strings"
	"testing"

	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	_ "tabula/games/othello"
)

func TestShippedConfigsLoad(t *testing.T) {
	files, err := filepath.Glob("../configs/*.yaml")
	if err != nil || len(files) < 12 {
		t.Fatalf("found %d configs (%v), want the 6 games and their smoke configs", len(files), err)
	}
	for _, f := range files {
		cfg, err := Load(f, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		want := strings.TrimSuffix(filepath.Base(f), ".yaml")
		if filepath.Base(cfg.RunDir) != want {
			t.Errorf("%s: run_dir %q, want runs/%s", f, cfg.RunDir, want)
		}
	}
}

func TestBadConfigsNameTheProblem(t *testing.T) {
	cases := []struct {
		name, yaml string
		sets       []string
		want       string
	}{
		{"unknown top-level key", "game: connect4\nspeed: 3\n", nil, "speed"},
		{"unknown nested key", "selfplay:\n  mcts:\n    simulation: 10\n", nil, "simulation"},
		{"wrong type", "selfplay:\n  games_per_round: many\n", nil, "games_per_round"},
		{"bad duration", "duration: soon\n", nil, "duration"},
		{"out of range", "selfplay:\n  mcts:\n    simulations: 0\n", nil, "simulations = 0"},
		{"unknown game", "game: chess\n", nil, `unknown game "chess"`},
		{"bad game parameter", "game: \"othello:size=7\"\n", nil, "size"},
		{"bad optimizer", "train:\n  optimizer: rmsprop\n", nil, "optimizer"},
		{"window below min_examples", "replay:\n  window: 10\n", nil, "min_examples"},
		{"bad gate method", "gate:\n  method: vibes\n", nil, "gate.method"},
		{"bad ladder spec", "ladder:\n  players: [wizard]\n", nil, "ladder.players[0]"},
		{"bench on othello", "game: othello\n", nil, "bench.every"},
		{"bad bench set", "bench:\n  sets: [Test_L9_R9]\n", nil, "Test_L9_R9"},
		{"not a mapping", "- a\n- b\n", nil, "mapping"},
		{"bad -set key", "", []string{"selfplay.mcts.simulation=5"}, "simulation"},
		{"-set without =", "", []string{"seed"}, "key.path=value"},
		{"-set into a value", "", []string{"seed.x=1"}, "key seed takes a value, not a section"},
		{"-set out of range", "", []string{"train.batch_size=1"}, "batch_size"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), c.sets)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestOverridesAndDefaults(t *testing.T) {
	cfg, err := Parse([]byte("game: connect4\nselfplay:\n  workers: 1\n"), []string{
		"selfplay.mcts.simulations=321", "duration=90s", "ladder.players=[random, greedy]", "run_dir=/tmp/x"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SelfPlay.MCTS.Simulations != 321 || cfg.Duration.Seconds() != 90 || len(cfg.Ladder.Players) != 2 ||
		cfg.RunDir != "/tmp/x" || cfg.SelfPlay.Workers != 1 {
		t.Fatalf("overrides not applied: %+v", cfg)
	}
	def := DefaultConfig()
	if cfg.Train.BatchSize != def.Train.BatchSize || cfg.SelfPlay.MCTS.CPuct != def.SelfPlay.MCTS.CPuct {
		t.Fatal("defaults lost for keys the file does not set")
	}
	// The resolved config round-trips through its own YAML.
	data, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(data, nil)
	if err != nil {
		t.Fatalf("resolved config does not load: %v\n%s", err, data)
	}
	if again.SelfPlay.MCTS != cfg.SelfPlay.MCTS || again.Train != cfg.Train || again.Gate != cfg.Gate {
		t.Fatal("resolved config changed on a round trip")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("game: connect4\nseed: 3\n"), "selfplay.workers=1")
	f.Add([]byte("selfplay: {mcts: {simulations: 5}}"), "a.b.c=[1,2]")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		cfg, err := Parse(data, []string{set})
		if err == nil {
			if verr := cfg.Validate(); verr != nil {
				t.Fatalf("Parse accepted a config that fails Validate: %v", verr)
			}
		}
	})
}
