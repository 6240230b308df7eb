package pipeline

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	_ "tabula/games/othello"
	_ "tabula/games/tictactoe"
)

func TestShippedConfigsLoad(t *testing.T) {
	files, err := filepath.Glob("../configs/*.yaml")
	if err != nil || len(files) < 12 {
		t.Fatalf("found %d configs (%v), want the 6 games and their smoke configs", len(files), err)
	}
	for _, f := range files {
		cfg, err := Load(f, nil)
		if err != nil && strings.Contains(err.Error(), "not found on PATH") && os.Getenv("TABULA_REQUIRE_ALL") != "1" {
			t.Logf("%s: not checked, its ladder names an outside engine that is missing here (TABULA_REQUIRE_ALL=1 demands it): %v", f, err)
			continue
		}
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
	const g = "game: connect4\n"
	cases := []struct {
		name, yaml string
		sets       []string
		want       string
	}{
		{"unknown top-level key", g + "speed: 3\n", nil, `line 2: unknown key "speed" at the top level`},
		{"unknown nested key", g + "selfplay:\n  mcts:\n    simulation: 10\n", nil, `line 4: unknown key "simulation" in section selfplay.mcts`},
		{"wrong type", g + "selfplay:\n  games_per_round: many\n", nil, `line 3: selfplay.games_per_round = "many", want a whole number`},
		{"bad duration", g + "duration: soon\n", nil, `line 2: duration = "soon", want a duration such as 90s`},
		{"number for a duration", g + "duration: 3600\n", nil, "line 2: duration = 3600, want a duration"},
		{"float for an int", g + "iterations: 2.5\n", nil, "line 2: iterations = 2.5, want a whole number"},
		{"negative for unsigned", g + "seed: -1\n", nil, "line 2: seed = -1, want a whole number >= 0"},
		{"scalar for a list", g + "ladder:\n  players: random\n", nil, `line 3: ladder.players = "random", want a list`},
		{"scalar for a section", g + "selfplay: 3\n", nil, "line 2: selfplay is a section of keys, not 3"},
		{"out of range", g + "selfplay:\n  mcts:\n    simulations: 0\n", nil, "line 4: selfplay.search.simulations = 0, want >= 1"},
		{"out of range, top level", g + "\niterations: -3\n", nil, "line 3: iterations = -3, want >= 0"},
		{"out of range, network", g + "network:\n  filters: 0\n", nil, "line 3: network.filters = 0, want 1..1024"},
		{"out of range, evaluator", g + "evaluator:\n  cache_size: -1\n", nil, "line 3: evaluator.cache_size = -1, want 0.."},
		{"removed key", g + "evaluator:\n  max_batch: 64\n", nil, "line 3: evaluator.max_batch was removed: each self-play worker evaluates"},
		{"removed key by -set", g, []string{"evaluator.workers=1"}, "-set: evaluator.workers was removed"},
		{"old and new name of one key", g + "selfplay:\n  mcts: {simulations: 5}\n  search: {simulations: 6}\n", nil,
			"line 3: selfplay.mcts.simulations is the older name of selfplay.search.simulations, which is set too (line 4)"},
		{"unknown key of the old section", g + "selfplay:\n  mcts: {simulation: 5}\n", nil, `line 3: unknown key "simulation" in section selfplay.mcts`},
		{"endgame for a game without a prover", "game: go:size=5\nselfplay:\n  mcts:\n    endgame: 8\n", nil, "line 4: selfplay.search.endgame = 8: game go"},
		{"endgame beyond Connect Four's range", g + "selfplay:\n  mcts:\n    endgame: 21\n", nil, "line 4: selfplay.search.endgame = 21: want 1..20 empty cells"},
		{"-set endgame beyond Othello's range", "game: othello\n", []string{"selfplay.search.endgame=20"}, "-set: selfplay.search.endgame = 20: want 1..16 empty squares"},
		{"-set endgame without the solver", "game: othello\n", []string{"selfplay.search.endgame=8", "selfplay.search.solver=false"}, "selfplay.search.endgame = 8 needs solver = true"},
		{"value target mix above 1", g + "selfplay:\n  value_target_mix: 1.5\n", nil, "line 3: experimental.value_target_mix = 1.5, want 0..1"},
		{"-set value target mix below 0", g, []string{"experimental.value_target_mix=-0.2"}, "-set: experimental.value_target_mix = -0.2, want 0..1"},
		{"out of range, sprt", g + "gate:\n  sprt:\n    alpha: 0.7\n", nil, "line 4: gate.sprt.alpha = 0.7, want (0, 0.5)"},
		{"unknown game", "game: shogi\n", nil, `line 1: game: unknown game "shogi"`},
		{"bad game parameter", "game: \"othello:size=7\"\n", nil, "size"},
		{"bad optimizer", g + "train:\n  optimizer: rmsprop\n", nil, `line 3: train.optimizer = "rmsprop"`},
		{"window below min_examples", g + "replay:\n  window: 10\n", nil, "line 3: train.min_examples = 2000, want <= replay.window (10)"},
		{"timed schedule without duration", g + "train:\n  schedule: timed\n", nil, "train.schedule = timed drops the learning rate at train.drop_at (0.75) of the duration: set duration"},
		{"drop_at out of range", g + "duration: 1m\ntrain:\n  schedule: timed\n  drop_at: 1.5\n", nil, "drop_at = 1.5, want in (0, 1) with schedule timed"},
		{"bad gate method", g + "gate:\n  method: vibes\n", nil, `line 3: gate.method = "vibes"`},
		{"random plies past the game", g + "gate:\n  random_plies: 42\n", nil, "line 3: gate.random_plies = 42, want 0..41"},
		{"bad ladder spec", g + "ladder:\n  players: [wizard]\n", nil, "line 3: ladder.players[0]"},
		{"bench on othello", "game: othello\n", nil, "bench.every"},
		{"bad bench set", g + "bench:\n  sets: [Test_L9_R9]\n", nil, "line 3: bench.sets: \"Test_L9_R9\""},
		{"not a mapping", "- a\n- b\n", nil, "mapping"},
		{"empty file", "", nil, "game: missing"},
		{"no game", "seed: 3\n", nil, "game: missing"},
		{"bad -set key", g, []string{"selfplay.mcts.simulation=5"}, `-set: unknown key "simulation" in section selfplay.mcts`},
		{"-set without =", g, []string{"seed"}, "key.path=value"},
		{"-set into a value", g, []string{"seed.x=1"}, "-set: seed = a section, want a whole number"},
		{"-set out of range", g, []string{"train.batch_size=1"}, "-set: train.batch_size = 1, want 2..65536"},
		{"-set wrong type", g, []string{"selfplay.search.simulations=x"}, `-set: selfplay.search.simulations = "x", want a whole number`},
		{"-set float for an int", g, []string{"selfplay.search.simulations=16.7"}, "-set: selfplay.search.simulations = 16.7, want a whole number"},
		{"-set over a file value", g + "iterations: 3\n", []string{"iterations=2.5"}, "-set: iterations = 2.5"},
		{"-set bad YAML", g, []string{"ladder.players=[a"}, "-set \"ladder.players=[a\": value"},
		{"opponent policy with dice", "game: backgammon\nbench: {every: 0}\nnetwork: {opponent_policy: true}\n", nil,
			"line 3: experimental.opponent_policy: backgammon rolls dice"},
		{"graph search with dice", "game: backgammon\nbench: {every: 0}\nselfplay: {mcts: {graph: true}}\n", nil,
			"line 3: experimental.graph = true: backgammon has chance nodes"},
		{"opp_policy_weight", g, []string{"train.opp_policy_weight=-1"}, "-set: train.opp_policy_weight = -1, want in [0, 100]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), c.sets)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			// No YAML tags, no section named twice ("selfplay.mcts: mcts:").
			if msg := err.Error(); strings.Contains(msg, "!!") || strings.Contains(msg, "mcts: mcts") || strings.Contains(msg, "train: train") ||
				(c.sets != nil && strings.Contains(msg, "line 1")) {
				t.Errorf("error %q: YAML jargon, a repeated prefix, or a -set named as a line", msg)
			}
		})
	}
}

func TestOverridesAndDefaults(t *testing.T) {
	cfg, err := Parse([]byte("game: connect4\nselfplay:\n  workers: 1\n"), []string{
		"selfplay.search.simulations=321", "duration=90s", "ladder.players=[random, greedy]", "run_dir=/tmp/x"})
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

// TestStopRule checks what a run's first log line says about when it
// stops, in particular that a run without limits says it runs until stopped.
func TestStopRule(t *testing.T) {
	for _, c := range []struct {
		sets []string
		want string
	}{
		{nil, "runs until stopped"},
		{[]string{"iterations=3"}, "at iteration 3"},
		{[]string{"duration=90s"}, "after 1m30s of this process"},
		{[]string{"duration=1h", "iterations=5"}, "whichever comes first"},
	} {
		cfg, err := Parse([]byte("game: connect4\n"), c.sets)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.StopRule(); !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.sets, got, c.want)
		}
	}
}

// TestCheckPlayers checks that every ladder player is built at load time:
// a net player whose checkpoint is missing or not a checkpoint fails Load,
// naming the entry, before any run starts.
func TestCheckPlayers(t *testing.T) {
	dir := t.TempDir()
	notCk := filepath.Join(dir, "notes.txt")
	os.WriteFile(notCk, []byte("hello"), 0o644)
	for _, c := range []struct{ players, want string }{
		{`[random, "net:path=` + filepath.Join(dir, "missing.tbn") + `"]`, "ladder.players[1]: player net:path="},
		{`["net:path=` + notCk + `"]`, "not a tabula checkpoint"},
		{`[random, solver]`, ""},
	} {
		file := filepath.Join(dir, "c.yaml")
		os.WriteFile(file, []byte("game: connect4\nladder:\n  players: "+c.players+"\n"), 0o644)
		_, err := Load(file, nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.players, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one containing %q", c.players, err, c.want)
		}
	}
	// go has no solver: found at load time, not in the first ladder.
	file := filepath.Join(dir, "g.yaml")
	os.WriteFile(file, []byte("game: go:size=5\nbench:\n  every: 0\nladder:\n  players: [random, solver]\n"), 0o644)
	if _, err := Load(file, nil); err == nil || !strings.Contains(err.Error(), "ladder.players[1]") {
		t.Errorf("solver for go: error %v", err)
	}
}

// TestDamagedRunConfig checks that a damaged config.yaml in a run folder is
// reported as damaged, not as a run of game "".
func TestDamagedRunConfig(t *testing.T) {
	dir := t.TempDir()
	for _, data := range []string{"", "\x00\x01garbage: [", "seed: 3\n"} {
		os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(data), 0o644)
		_, err := ReadRunConfig(dir)
		if err == nil || !strings.Contains(err.Error(), "config.yaml is damaged") || strings.Contains(err.Error(), `game ""`) {
			t.Errorf("config.yaml %q: error %v", data, err)
		}
		cfg := DefaultConfig()
		cfg.RunDir = dir
		d := &runDir{root: dir}
		if err := d.checkCompatible(&cfg); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("resuming over config.yaml %q: error %v", data, err)
		}
	}
}

// TestFirstLogLineSaysWhenItStops checks that a run with neither duration
// nor iterations says so in its first log line.
func TestFirstLogLineSaysWhenItStops(t *testing.T) {
	var buf bytes.Buffer
	cfg := smoke(t, t.TempDir(), "iterations=0", "duration=0s", "selfplay.workers=1")
	tr, err := New(cfg, Options{Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
	first, _, _ := strings.Cut(buf.String(), "\n")
	if !strings.Contains(first, "runs until stopped") {
		t.Errorf("first log line %q does not say the run goes on until stopped", first)
	}
}
