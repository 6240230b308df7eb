package pipeline

import (
	"strings"
	"testing"
)

// TestIntegersOutOfRange checks that a whole number too large (or too
// small) for its key is called that, with the bound, in a file and in a
// -set, and that numbers in range and other mistakes read as before.
func TestIntegersOutOfRange(t *testing.T) {
	const g = "game: connect4\n"
	for _, c := range []struct {
		name, yaml string
		sets       []string
		want       string
	}{
		{"int too large", g + "selfplay:\n  mcts:\n    simulations: 99999999999999999999\n", nil,
			"line 4: selfplay.search.simulations = 99999999999999999999, too large: want at most 9223372036854775807"},
		{"int too small", g + "iterations: -99999999999999999999\n", nil,
			"line 2: iterations = -99999999999999999999, too small: want at least -9223372036854775808"},
		{"unsigned too large", g + "seed: 0x1_0000_0000_0000_0000\n", nil, "too large: want at most 18446744073709551615"},
		{"-set too large", g, []string{"selfplay.search.simulations=99999999999999999999"},
			"-set: selfplay.search.simulations = 99999999999999999999, too large"},
		{"negative unsigned", g + "seed: -99999999999999999999\n", nil, "want a whole number >= 0"},
		{"fraction", g + "iterations: 2.5\n", nil, "iterations = 2.5, want a whole number"},
	} {
		_, err := Parse([]byte(c.yaml), c.sets)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	cfg, err := Parse([]byte(g+"seed: 18446744073709551615\n"), nil)
	if err != nil || cfg.Seed != 18446744073709551615 {
		t.Errorf("the largest seed: %v", err)
	}
}
