package players_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/internal/refdata"
	"tabula/match"
	"tabula/players"
	"tabula/players/playerstest"
)

// TestGTPResignation plays two games between a fake engine that resigns at
// its first genmove and random: both are losses by resignation, not
// forfeits, and the records say so.
func TestGTPResignation(t *testing.T) {
	g := playerstest.MustGame(t, "go:size=5,komi=0.5")
	spec, err := players.ParseSpec(fmt.Sprintf("gtp:cmd=%q,args=\"fakegtp resign\",timeout=5s", os.Args[0]))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := players.BuildAll(g, []players.Spec{spec, {Kind: "random"}})
	if err != nil {
		t.Fatal(err)
	}
	var recs []match.GameRecord
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 1, Seed: 3, RandomPlies: 2,
		Record: func(r match.GameRecord) error { recs = append(recs, r); return nil }}, g, ps)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Forfeits) != 0 {
		t.Fatalf("a resignation counted as a forfeit: %+v", res.Forfeits[0].Forfeit)
	}
	if w := res.WDL[0][1]; w.Losses != 2 || len(res.Resignations) != 2 || len(recs) != 2 {
		t.Fatalf("the resigning engine's record %+v with %d resignations, want 2 losses by resignation", w, len(res.Resignations))
	}
	for _, r := range recs {
		if !r.Resigned || r.Forfeit != nil || r.Players[1-r.Winner] != ps[0].Name {
			t.Errorf("game %+v: want a resignation by %s", r, ps[0].Name)
		}
	}
	// The JSON records tally to the same result.
	again, err := match.Tally(g, recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Resignations) != 2 || again.WDL[0][1].Losses != 2 {
		t.Errorf("tallied again: %+v", again)
	}
}

// pachiPath returns Pachi's program for a test: $TABULA_PACHI, pachi on
// PATH, or the build in the shared tools folder beside the reference data
// (set as TABULA_PACHI for the test). Without one the test is skipped, or
// fails under TABULA_REQUIRE_ALL.
func pachiPath(t *testing.T) {
	t.Helper()
	if os.Getenv(players.PachiEnv) != "" {
		return
	}
	if _, err := refdata.LookProgram("pachi"); err == nil {
		return
	}
	if dir, err := refdata.Dir(); err == nil {
		p := filepath.Join(filepath.Dir(dir), "tools", "pachi", "pachi")
		if _, err := os.Stat(p); err == nil {
			t.Setenv(players.PachiEnv, p)
			return
		}
	}
	msg := "Pachi not found: set " + players.PachiEnv + " to its program (built from ../shared/tools/pachi) or put it on PATH as pachi"
	if os.Getenv(refdata.RequireAllEnv) != "" {
		t.Fatalf("%s, and %s is set", msg, refdata.RequireAllEnv)
	}
	t.Skip(msg)
}

// TestPachiMatch plays two real games of 5x5 Go between Pachi at 500
// playouts a move and random, one with each colour: no forfeits, and
// Pachi wins at least one.
func TestPachiMatch(t *testing.T) {
	pachiPath(t)
	g := playerstest.MustGame(t, "go:size=5,komi=0.5")
	res, recs := playRecorded(t, g, "pachi:playouts=500,timeout=60s random", match.MatchConfig{Games: 2, Parallel: 1, Seed: 5, RandomPlies: 2})
	for _, r := range res.Forfeits {
		t.Fatalf("game %d forfeited by %s: %s after %s\n%s", r.Index, r.Forfeit.Player, r.Forfeit.Reason, r.Moves, r.Forfeit.Stderr)
	}
	// Pachi may resign a game it thinks lost (it resigns 5x5 as white
	// against itself), which is a loss, not a forfeit; against random it
	// wins at least one of the two.
	if w := res.WDL[0][1]; w.Wins < 1 || w.Games() != 2 || len(recs) != 2 {
		t.Errorf("Pachi against random: %+v; games %+v", w, recs)
	}
	for _, r := range res.Resignations {
		if r.Players[1-r.Winner] != res.Players[0] {
			t.Errorf("game %d: random resigned?", r.Index)
		}
	}
	for _, r := range recs {
		t.Logf("game %d: %s vs %s, winner seat %d, resigned %v, %d plies", r.Index, r.Players[0], r.Players[1], r.Winner, r.Resigned, len(strings.Fields(r.Moves)))
	}
}

// TestPachiNotGTP points TABULA_PACHI at a program that does not speak
// GTP, as Debian's unrelated game named pachi would not: building the
// player fails and says why.
func TestPachiNotGTP(t *testing.T) {
	script := filepath.Join(t.TempDir(), "pachi")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'Welcome to Pachi el marciano' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(players.PachiEnv, script)
	g := playerstest.MustGame(t, "go:size=9")
	spec, err := players.ParseSpec("pachi")
	if err != nil {
		t.Fatal(err)
	}
	_, err = players.Build(g, spec)
	if err == nil || !strings.Contains(err.Error(), "does not speak GTP") || !strings.Contains(err.Error(), "el marciano") {
		t.Errorf("building pachi with a program that is not Pachi: %v", err)
	}
	t.Setenv(players.PachiEnv, filepath.Join(t.TempDir(), "missing"))
	if _, err := players.Build(g, spec); err == nil || !strings.Contains(err.Error(), players.PachiEnv) {
		t.Errorf("building pachi with a missing program: %v", err)
	}
	othello := playerstest.MustGame(t, "othello:size=8")
	if _, err := players.Build(othello, spec); err == nil || !strings.Contains(err.Error(), "Pachi plays go") {
		t.Errorf("building pachi for othello: %v", err)
	}
}
