package mcts

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGoldenSelfPlay compares seeded self-play (uniform evaluator, noise,
// temperature, playout caps, forced playouts) with a golden file, so that any
// change of behaviour shows. Run with -update after an intended change.
func TestGoldenSelfPlay(t *testing.T) {
	cfg := selfPlayConfig()
	cfg.Simulations = 40
	cfg.PlayoutCap = true
	cfg.FullSearchFraction = 0.5
	cfg.FastSimulations = 10
	cfg.ForcedPlayouts = true
	recs := playGames(t, cfg, UniformEvaluator{}, 42, 6)
	n := connect4Game(t).(games.Notation)
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%s %v", n.FormatActions(r.Actions), r.Returns)
		for i, p := range r.Policies {
			if p != nil {
				fmt.Fprintf(&b, " %d:%.3f", i, p)
			}
		}
		b.WriteString("\n")
	}
	got := b.String()
	path := filepath.Join("testdata", "selfplay.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("self-play differs from %s:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
