package book

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/othello"
	"tabula/games/tictactoe"
	"tabula/search/othelloend"
)

// randomLines plays n seeded random games of g to the end.
func randomLines(g games.Game, n int, seed uint64) []GameLine {
	rng := rand.New(rand.NewPCG(seed, 7))
	var lines []GameLine
	for range n {
		s := g.NewInitialState()
		var acts []int
		for !s.IsTerminal() {
			legal := s.LegalActions(nil)
			a := legal[rng.IntN(len(legal))]
			acts = append(acts, a)
			s.ApplyAction(a)
		}
		lines = append(lines, GameLine{Actions: acts, Returns: s.Returns()})
	}
	return lines
}

// solved is the exact result of s for its player to move by a full solve
// (the sign of sv's disc margin): +1, 0 or -1.
func solved(sv *othelloend.Solver, s games.State) float64 {
	p, o := s.(*othello.State).Boards()
	score, _ := sv.Solve(p, o)
	switch {
	case score > 0:
		return 1
	case score < 0:
		return -1
	}
	return 0
}

// TestLearnExactLeaves builds books of Othello games cut 48 plies in (12
// empties, 13 or 14 after a pass): with LeafSearch by a deliberately
// wrong evaluation (a constant), and the same with an exact solver for
// positions of at most 14 empties. With the solver, every book move into
// a leaf has the leaf's solved result (and some differ from the wrong
// evaluation's), every deviation is solved too, and so every book
// position's best move value is its own solved result: negamax over
// exact children is exact.
func TestLearnExactLeaves(t *testing.T) {
	g, err := games.New("othello")
	if err != nil {
		t.Fatal(err)
	}
	lines := randomLines(g, 6, 11)
	const maxPly, maxEmpties = 48, 14
	wrong := func(games.State) (float64, error) { return 0.5, nil }
	cfg := LearnConfig{MaxPly: maxPly, MinGame: 1, LeafSearch: true}
	shallow, _, err := Learn(g, lines, cfg, wrong)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Exact, err = othelloend.BookExact(othelloend.DefaultConfig(), maxEmpties)
	if err != nil {
		t.Fatal(err)
	}
	b, st, err := Learn(g, lines, cfg, wrong)
	if err != nil {
		t.Fatal(err)
	}
	if st.Exact == 0 {
		t.Fatal("no position valued exactly")
	}
	sv, err := othelloend.New(othelloend.Config{TTBits: 16})
	if err != nil {
		t.Fatal(err)
	}
	differ, leaves, checked := 0, 0, 0
	for li, line := range lines {
		s := g.NewInitialState()
		for ply, a := range line.Actions[:maxPly] {
			child := s.Clone()
			child.ApplyAction(a)
			if ply == maxPly-1 { // the move into the leaf
				if e := othelloend.Empties(child.(*othello.State)); e > maxEmpties {
					t.Fatalf("game %d: the leaf has %d empties, want at most %d", li, e, maxEmpties)
				}
				want := solved(sv, child)
				if child.CurrentPlayer() != s.CurrentPlayer() {
					want = -want
				}
				if child.IsTerminal() {
					want = child.Returns()[s.CurrentPlayer()]
				}
				m := findMove(t, b, g, s, a)
				if m.Value != want {
					t.Errorf("game %d: the move into the leaf has value %v, want the solver's %v", li, m.Value, want)
				}
				if shallowMove := findMove(t, shallow, g, s, a); shallowMove.Value != m.Value {
					differ++
				}
				leaves++
			}
			if othelloend.Empties(s.(*othello.State)) <= maxEmpties {
				best := -2.0
				for _, m := range b.Moves(g, s) {
					best = max(best, m.Value)
				}
				if want := solved(sv, s); best != want {
					t.Errorf("game %d ply %d: the book's best move value %v, want the solved %v", li, ply, best, want)
				}
				checked++
			}
			s = child
		}
	}
	if differ == 0 {
		t.Errorf("all %d leaves valued the same by the solver and by a constant 0.5: the test shows nothing", leaves)
	}
	if checked == 0 {
		t.Error("no book position within the solver's reach was checked")
	}
	t.Logf("%d leaves (%d differ from the wrong evaluation), %d book positions checked against the solver, %d exact values", leaves, differ, checked, st.Exact)

	// Without eval, the solver still finds the deviations it can value,
	// and only those.
	cfg.LeafSearch = false
	nb, nst, err := Learn(g, lines, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if nst.Deviations == 0 || nst.Evals != 0 {
		t.Errorf("no eval, an exact solver: %d deviations and %d evals, want some deviations and no evals", nst.Deviations, nst.Evals)
	}
	for _, m := range nb.Moves(g, g.NewInitialState()) {
		if m.Deviation {
			t.Errorf("no eval: a deviation %+v at the start, out of the solver's reach", m)
		}
	}

	// The solver's errors stop Learn.
	cfg.Exact = func(games.State) (float64, bool, error) { return 0, false, errors.New("solver broke") }
	if _, _, err := Learn(g, lines, cfg, nil); err == nil || !strings.Contains(err.Error(), "solver broke") {
		t.Errorf("a failing Exact: %v, want its error", err)
	}
}

// findMove returns book b's move a of s.
func findMove(t *testing.T, b *GameBook, g games.Game, s games.State, a int) BookMove {
	t.Helper()
	for _, m := range b.Moves(g, s) {
		if m.Action == a {
			return m
		}
	}
	t.Fatalf("action %d is not in the book at %v", a, s)
	return BookMove{}
}

// TestBookExactErrors checks BookExact's ranges and refusals.
func TestBookExactErrors(t *testing.T) {
	if _, err := othelloend.BookExact(othelloend.DefaultConfig(), othelloend.MaxBookEmpties+1); err == nil {
		t.Error("maxEmpties beyond MaxBookEmpties accepted")
	}
	ex, err := othelloend.BookExact(othelloend.DefaultConfig(), 14)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ex(tictactoe.Game{}.NewInitialState()); err == nil || ok {
		t.Errorf("a tic-tac-toe position: ok %v err %v, want an error", ok, err)
	}
	g6, err := games.New("othello:size=6")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ex(g6.NewInitialState()); err == nil || !strings.Contains(err.Error(), "6x6") {
		t.Errorf("a 6x6 position with an 8x8 solver: %v, want an error naming 6x6", err)
	}
	g, _ := games.New("othello")
	if _, ok, err := ex(g.NewInitialState()); ok || err != nil {
		t.Errorf("the start (60 empties): ok %v err %v, want not taken", ok, err)
	}
}
