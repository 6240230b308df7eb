package players_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"tabula/games"
	"tabula/match"
	"tabula/players"
)

// checkForfeits plays two games of g between the fake engine of spec,
// failing in mode, and a random player: the engine must lose both by
// forfeit, each naming it, saying reason and carrying its last stderr lines
// (with its dying words in mode die), within 10 seconds.
func checkForfeits(t *testing.T, g games.Game, spec players.Spec, mode, reason string) {
	t.Helper()
	ps, err := players.BuildAll(g, []players.Spec{spec, {Kind: "random"}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 1, Seed: 3, RandomPlies: 2}, g, ps)
	if err != nil {
		t.Fatal(err)
	}
	if w := res.WDL[0][1]; w.Losses != 2 || len(res.Forfeits) != 2 {
		t.Fatalf("the fake engine's record %+v with %d forfeits, want 2 losses by forfeit", w, len(res.Forfeits))
	}
	for _, r := range res.Forfeits {
		f := r.Forfeit
		if f.Player != ps[0].Name || r.Winner != 1-f.Side || r.Players[f.Side] != ps[0].Name {
			t.Errorf("forfeit %+v of game %+v names the wrong side", f, r)
		}
		if !strings.Contains(f.Reason, reason) {
			t.Errorf("reason %q, want it to say %q", f.Reason, reason)
		}
		if !strings.Contains(f.Stderr, "fake engine: thinking in mode "+mode) {
			t.Errorf("stderr tail %q lacks the engine's last lines", f.Stderr)
		}
		if mode == "die" && !strings.Contains(f.Stderr, "segmentation fault") {
			t.Errorf("stderr tail %q lacks the engine's dying words", f.Stderr)
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the match took %v", d)
	}
}
