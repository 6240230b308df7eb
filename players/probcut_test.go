package players

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/connect4"
	"tabula/games/othello"
	"tabula/search"
)

// writeTestProbCut writes a small ProbCut file for game and returns its
// path.
func writeTestProbCut(t *testing.T, game string) string {
	t.Helper()
	f := []search.LinearFit{{MinEmpties: 0, MaxEmpties: 64, A: 1, B: 0, Sigma: 0.05, N: 100}}
	pc := search.ProbCut{Checks: []search.ProbCutCheck{{Deep: 3, Shallow: 1, Fits: f}}}
	path := filepath.Join(t.TempDir(), "pc.json")
	if err := search.WriteProbCut(path, search.ProbCutModel{Game: game, ProbCut: pc, MPC: pc}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAlphaBetaProbCut plays Othello moves with probcut, mpc and beam, and
// checks the spec errors: a game without a fit, both switches, keys that
// need a switch, a file of another game or format.
func TestAlphaBetaProbCut(t *testing.T) {
	og, err := othello.New(8)
	if err != nil {
		t.Fatal(err)
	}
	path := writeTestProbCut(t, og.Name())
	for _, spec := range []string{
		"alphabeta:depth=5,probcut=1,pcfile=" + path,
		"alphabeta:depth=5,mpc=1,pct=1,pcfile=" + path,
		"alphabeta:depth=4,beam=3",
	} {
		p := buildPlayer(t, og, spec)
		s := og.NewInitialState()
		for i := 0; i < 6; i++ {
			a, err := p.ChooseAction(context.Background(), s)
			if err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
			if !s.IsLegal(a) {
				t.Fatalf("%s: illegal move %d", spec, a)
			}
			s.ApplyAction(a)
		}
	}
	other := writeTestProbCut(t, "othello:size=6")
	garbage := filepath.Join(t.TempDir(), "book.bin")
	if err := os.WriteFile(garbage, []byte("\x00\x01\x02 polyglot"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		g          games.Game
		spec, want string
	}{
		{connect4.Game{}, "alphabeta:probcut=1,pcfile=" + path, "fitted for othello"},
		{og, "alphabeta:probcut=1,mpc=1,pcfile=" + path, "give one"},
		{og, "alphabeta:pct=2", "needs probcut=1 or mpc=1"},
		{og, "alphabeta:pcfile=" + path, "needs probcut=1 or mpc=1"},
		{og, "alphabeta:probcut=1,pcfile=" + other, "fitted for othello:size=6"},
		{og, "alphabeta:probcut=1,pcfile=" + garbage, "not a ProbCut file"},
		{og, "alphabeta:mpc=1,pcfile=" + filepath.Join(t.TempDir(), "none.json"), "no such file"},
		{og, "alphabeta:beam=0", "beam"},
	} {
		sp, err := ParseSpec(tc.spec)
		if err == nil {
			_, err = Build(tc.g, sp)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.spec, err, tc.want)
		}
	}
}

// TestAlphaBetaProbCutShipped builds probcut and mpc players on the shipped
// fits, found from the working folder upwards.
func TestAlphaBetaProbCutShipped(t *testing.T) {
	og, err := othello.New(8)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"alphabeta:depth=4,probcut=1", "alphabeta:depth=4,mpc=1"} {
		p := buildPlayer(t, og, spec)
		if _, err := p.ChooseAction(context.Background(), og.NewInitialState()); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
	}
}

func buildPlayer(t *testing.T, g games.Game, spec string) Player {
	t.Helper()
	p, err := mustBuild(t, g, spec).New(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
