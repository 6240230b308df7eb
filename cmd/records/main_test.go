package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/games/connect4"
	"tabula/games/sgf"
	"tabula/replay"
)

// randomRecord plays a random game of spec and returns it as a record.
func randomRecord(t *testing.T, spec, kind string, rng *rand.Rand) replay.GameRecord {
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	s := g.NewInitialState()
	r := replay.GameRecord{Kind: kind, Game: g.Name(), Players: [2]string{"gen-1", "gen-1"}}
	var buf []int
	for !s.IsTerminal() {
		var a int
		if cs, ok := s.(games.ChanceState); ok && cs.IsChanceNode() {
			a, _ = games.SampleChance(cs, rng)
		} else {
			buf = s.LegalActions(buf)
			a = buf[rng.IntN(len(buf))]
		}
		r.Actions = append(r.Actions, a)
		r.Values = append(r.Values, 0.25)
		s.ApplyAction(a)
	}
	r.Returns = s.Returns()
	return r
}

// TestConvert converts records of three games and reads the files back:
// the same moves.
func TestConvert(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	run, out := filepath.Join(dir, "run"), filepath.Join(dir, "out")
	var c4 []replay.GameRecord
	for range 3 {
		c4 = append(c4, randomRecord(t, "connect4", "selfplay", rng))
	}
	bg := randomRecord(t, "backgammon:scoring=money", "gating", rng)
	oth := randomRecord(t, "othello:size=6", "ladder", rng)
	must(t, os.MkdirAll(filepath.Join(run, "records"), 0o755))
	must(t, replay.WriteRecords(filepath.Join(run, "records", "a.rec"), c4))
	must(t, replay.WriteRecords(filepath.Join(run, "records", "b.rec"), []replay.GameRecord{bg, oth}))
	var stdout strings.Builder
	must(t, run2(t, &stdout, "-run", run, "-out", out))
	if !strings.Contains(stdout.String(), "5 games (3 selfplay, 1 gating, 1 ladder)") {
		t.Errorf("stdout %q", stdout.String())
	}
	f, err := os.Open(filepath.Join(out, "records.txt"))
	must(t, err)
	pons, err := connect4.ReadPons(f)
	f.Close()
	must(t, err)
	if len(pons) != 3 {
		t.Fatalf("%d Pons lines", len(pons))
	}
	for i := range pons {
		if !slices.Equal(pons[i].Actions, c4[i].Actions) {
			t.Errorf("Pons game %d: %v, want %v", i, pons[i].Actions, c4[i].Actions)
		}
	}
	f, err = os.Open(filepath.Join(out, "gating-000001.mat"))
	must(t, err)
	bgGame, _ := games.New("backgammon:scoring=money")
	m, err := backgammon.ReadMat(f, bgGame.(*backgammon.Game))
	f.Close()
	must(t, err)
	if !slices.Equal(m.Games[0].Actions, bg.Actions) {
		t.Errorf(".mat actions differ")
	}
	f, err = os.Open(filepath.Join(out, "ladder-000001.sgf"))
	must(t, err)
	rec, err := sgf.Read(f)
	f.Close()
	must(t, err)
	if !slices.Equal(rec.Actions(), oth.Actions) {
		t.Errorf("SGF actions differ")
	}

	// Only one kind; a wrong result and a damaged file are refused.
	must(t, os.RemoveAll(out))
	must(t, run2(t, &stdout, "-run", run, "-out", out, "-kind", "gating"))
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Errorf("-kind gating wrote %d files", len(ents))
	}
	c4[1].Returns[0], c4[1].Returns[1] = -c4[1].Returns[0]+0.5, 0
	must(t, replay.WriteRecords(filepath.Join(run, "records", "a.rec"), c4))
	if err := run2(t, &stdout, "-run", run, "-out", out); err == nil || !strings.Contains(err.Error(), "a.rec game 2") {
		t.Errorf("wrong result: error %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(run, "records", "a.rec"))
	data[5] ^= 1
	must(t, os.WriteFile(filepath.Join(run, "records", "a.rec"), data, 0o644))
	if err := run2(t, &stdout, "-run", run, "-out", out); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("damaged file: error %v", err)
	}
}

func run2(t *testing.T, stdout *strings.Builder, args ...string) error {
	t.Helper()
	var stderr strings.Builder
	return run(args, stdout, &stderr)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
