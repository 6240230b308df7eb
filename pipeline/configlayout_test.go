package pipeline

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestOlderLayoutLoads: a config written in the older layout (one
// selfplay.mcts section, the experiments among the settings) resolves to the
// same config as its current form, with a warning naming each moved key by
// its line.
func TestOlderLayoutLoads(t *testing.T) {
	old := `game: othello:size=6
bench: {every: 0}
network: {filters: 8, blocks: 1, wdl: true}
selfplay:
  value_target_mix: 0.25
  mcts:
    search: gumbel
    simulations: 40
    temperature_moves: 5
    graph: true
    gumbel_noise_moves: 3
`
	current := `game: othello:size=6
bench: {every: 0}
network: {filters: 8, blocks: 1}
selfplay:
  search: {algorithm: gumbel, simulations: 40}
  play: {temperature_moves: 5}
experimental: {wdl: true, value_target_mix: 0.25, graph: true, gumbel_noise_moves: 3}
`
	a, err := Parse([]byte(old), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte(current), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Warnings) != 0 {
		t.Errorf("current layout: warnings %q", b.Warnings)
	}
	want := []string{
		"line 7: selfplay.mcts.search is now selfplay.search.algorithm",
		"line 8: selfplay.mcts.simulations is now selfplay.search.simulations",
		"line 9: selfplay.mcts.temperature_moves is now selfplay.play.temperature_moves",
		"line 10: selfplay.mcts.graph is now experimental.graph",
		"line 11: selfplay.mcts.gumbel_noise_moves is now experimental.gumbel_noise_moves",
		"line 5: selfplay.value_target_mix is now experimental.value_target_mix",
		"line 3: network.wdl is now experimental.wdl",
	}
	got := strings.Join(a.Warnings, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("warnings\n%s\nlack %q", got, w)
		}
	}
	a.Warnings = nil
	if !reflect.DeepEqual(a, b) {
		t.Errorf("older layout resolves to\n%+v\nthe current one to\n%+v", a, b)
	}
	if !a.Network.WDL || !a.SelfPlay.MCTS.Graph || a.SelfPlay.ValueTargetMix != 0.25 || a.SelfPlay.MCTS.GumbelNoiseMoves != 3 {
		t.Errorf("experimental settings not applied: %+v", a)
	}
	// Saved and read back, the config is the same, in the current layout.
	data, err := a.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if s := string(data); regexp.MustCompile(`(?m)^\s*mcts:`).MatchString(s) || !strings.Contains(s, "experimental:") || strings.Contains(s, "max_batch") {
		t.Errorf("saved config not in the current layout:\n%s", s)
	}
	c, err := Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, b) {
		t.Errorf("saved and read back:\n%+v\nwant\n%+v", c, b)
	}
}

// TestOlderNameBySet: -set with a key's older name overrides the file's
// value under the current name, and the other way round.
func TestOlderNameBySet(t *testing.T) {
	file := "game: connect4\nselfplay:\n  search: {simulations: 6}\n  mcts: {temperature_moves: 4}\n"
	c, err := Parse([]byte(file), []string{"selfplay.mcts.simulations=9", "selfplay.play.temperature_moves=2"})
	if err != nil {
		t.Fatal(err)
	}
	if c.SelfPlay.MCTS.Simulations != 9 || c.SelfPlay.MCTS.TemperatureMoves != 2 {
		t.Errorf("simulations %d, temperature_moves %d, want 9 and 2", c.SelfPlay.MCTS.Simulations, c.SelfPlay.MCTS.TemperatureMoves)
	}
}

// TestSavedConfigWithRemovedKeys: a run folder's config.yaml written by an
// older version (with evaluator.max_batch, workers and max_wait, and the
// selfplay.mcts section) still resumes; only a user's config is refused
// for a removed key.
func TestSavedConfigWithRemovedKeys(t *testing.T) {
	dir := t.TempDir()
	saved := "game: connect4\nevaluator: {max_batch: 64, max_wait: 0s, workers: 0, cache_size: 4096, precision: fp32}\nselfplay:\n  mcts: {simulations: 12}\n"
	if err := os.WriteFile(filepath.Join(dir, configFile), []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadRunConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Evaluator.CacheSize != 4096 || c.SelfPlay.MCTS.Simulations != 12 || len(c.Warnings) != 0 {
		t.Errorf("read %+v, warnings %q", c, c.Warnings)
	}
	if _, err := Parse([]byte(saved), nil); err == nil || !strings.Contains(err.Error(), "evaluator.max_batch was removed") {
		t.Errorf("a user's config with a removed key: error %v", err)
	}
}
