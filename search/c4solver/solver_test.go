package c4solver

import (
	"math/rand/v2"
	"testing"
	"time"

	"tabula/games"
	"tabula/games/connect4"
	"tabula/internal/refdata/refdatatest"
)

// refPosition is one line of a benchmark set.
type refPosition struct {
	line  string
	state *connect4.State
	score int
}

// loadSet reads a Pons benchmark set from the reference data.
func loadSet(tb testing.TB, name string) []refPosition {
	tb.Helper()
	path := refdatatest.Path(tb, "connect4", name)
	set, err := ReadSetFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	ps := make([]refPosition, len(set))
	for i, p := range set {
		if !p.HasScore {
			tb.Fatalf("%s line %d: %q: no score", path, p.Line, p.Moves)
		}
		ps[i] = refPosition{p.Moves, p.State, p.Score}
	}
	return ps
}

func newSolver(tb testing.TB) *Solver {
	tb.Helper()
	s, err := New(DefaultTableLog2)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestReferenceSets solves every position of the easier benchmark sets and
// compares with the published scores.
func TestReferenceSets(t *testing.T) {
	s := newSolver(t)
	for _, name := range []string{"Test_L3_R1", "Test_L2_R1", "Test_L1_R1", "Test_L2_R2"} {
		t.Run(name, func(t *testing.T) {
			ps := loadSet(t, name)
			start, nodes := time.Now(), s.Nodes()
			wrong := 0
			for _, p := range ps {
				if got := s.Solve(p.state); got != p.score {
					wrong++
					if wrong <= 5 {
						t.Errorf("%s: Solve = %d, want %d", p.line, got, p.score)
					}
				}
			}
			if wrong > 0 {
				t.Errorf("%d of %d wrong", wrong, len(ps))
			}
			t.Logf("%d positions in %v, %d nodes", len(ps), time.Since(start).Round(time.Millisecond), s.Nodes()-nodes)
		})
	}
}

// checkScoreMoves checks that the best of ScoreMoves of st is want and that
// each move's score is the negated score of the position it leads to, solved
// by another solver.
func checkScoreMoves(t *testing.T, s, fresh *Solver, st *connect4.State, want int) {
	t.Helper()
	scores := s.ScoreMoves(st)
	best := Invalid
	for c, sc := range scores {
		legal := st.IsLegal(c)
		if legal != (sc != Invalid) {
			t.Fatalf("column %d legal %v but score %d\n%s", c+1, legal, sc, st)
		}
		if !legal {
			continue
		}
		best = max(best, sc)
		child := st.Clone().(*connect4.State)
		if err := games.Play(child, c); err != nil {
			t.Fatal(err)
		}
		if w := -fresh.Solve(child); sc != w {
			t.Fatalf("column %d scored %d, but the child solves to %d\n%s", c+1, sc, w, st)
		}
	}
	if best != want {
		t.Fatalf("best move scores %d, want %d (%v)\n%s", best, want, scores, st)
	}
}

// TestScoreMovesConsistent checks ScoreMoves on positions of the end-game
// and middle-game sets (in the opening sets the losing moves lead to hard
// positions, too slow for the normal test run).
func TestScoreMovesConsistent(t *testing.T) {
	s := newSolver(t)
	fresh, err := New(20)
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []struct {
		name string
		step int
	}{{"Test_L3_R1", 10}, {"Test_L2_R1", 20}, {"Test_L2_R2", 100}} {
		ps := loadSet(t, set.name)
		for i := 0; i < len(ps); i += set.step {
			checkScoreMoves(t, s, fresh, ps[i].state, ps[i].score)
		}
	}
}

// TestWinAvailable plays random moves on from end-game positions until the
// player to move can connect four at once, then checks that Solve gives the
// immediate win, (43 - stones) / 2, and ScoreMoves agrees.
func TestWinAvailable(t *testing.T) {
	s := newSolver(t)
	fresh, err := New(20)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	ps := loadSet(t, "Test_L3_R1")
	found := 0
	for _, p := range ps[:200] {
		st := p.state.Clone().(*connect4.State)
		for !st.IsTerminal() {
			if winning(st) >= 0 {
				want := (connect4.Cells + 1 - st.MoveNumber()) / 2
				if got := s.Solve(st); got != want {
					t.Fatalf("Solve = %d, want %d\n%s", got, want, st)
				}
				checkScoreMoves(t, s, fresh, st, want)
				found++
				break
			}
			legal := st.LegalActions(nil)
			st.ApplyAction(legal[r.IntN(len(legal))])
		}
	}
	if found < 50 {
		t.Fatalf("only %d positions with a win available", found)
	}
}

// winning returns a column where the player to move connects four at once,
// or -1, by trying each move on the rules package.
func winning(st *connect4.State) int {
	for c := 0; c < connect4.Width; c++ {
		if !st.IsLegal(c) {
			continue
		}
		child := st.Clone().(*connect4.State)
		child.ApplyAction(c)
		if child.Won() {
			return c
		}
	}
	return -1
}

func TestSpecialPositions(t *testing.T) {
	s := newSolver(t)
	tests := []struct {
		name   string
		moves  string
		score  int
		scores [7]int
	}{
		// X (to move) has columns 1-3 on the bottom row: column 4 wins
		// with X's 4th stone, 22 - 4.
		{"win available", "112233", 18, [7]int{}},
		{"won by X, O to move", "1122334", -18, [7]int{Invalid, Invalid, Invalid, Invalid, Invalid, Invalid, Invalid}},
		{"won by O, X to move", "12121272", -18, [7]int{Invalid, Invalid, Invalid, Invalid, Invalid, Invalid, Invalid}},
		{"full board", "126615525717246671625435544411643733237327", 0, [7]int{Invalid, Invalid, Invalid, Invalid, Invalid, Invalid, Invalid}},
		{"last cell", "12661552571724667162543554441164373323732", 0, [7]int{Invalid, Invalid, Invalid, Invalid, Invalid, Invalid, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, _, _, err := ParsePosition(tc.moves)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Solve(st); got != tc.score {
				t.Errorf("Solve = %d, want %d\n%s", got, tc.score, st)
			}
			if tc.name == "win available" {
				return // the other moves are slow to solve this early
			}
			if got := s.ScoreMoves(st); got != tc.scores {
				t.Errorf("ScoreMoves = %v, want %v", got, tc.scores)
			}
		})
	}
}

func TestNew(t *testing.T) {
	for _, n := range []int{-1, 0, MinTableLog2 - 1, MaxTableLog2 + 1, 64} {
		if _, err := New(n); err == nil {
			t.Errorf("New(%d) succeeded", n)
		}
	}
	// A tiny table still gives exact scores (collisions only cost time).
	s, err := New(MinTableLog2)
	if err != nil {
		t.Fatal(err)
	}
	ps := loadSet(t, "Test_L2_R1")
	for _, p := range ps[:100] {
		if got := s.Solve(p.state); got != p.score {
			t.Fatalf("%s: Solve with a tiny table = %d, want %d", p.line, got, p.score)
		}
	}
	if s.Nodes() == 0 {
		t.Fatal("Nodes() = 0 after solving")
	}
	s.Reset()
	if s.Nodes() != 0 {
		t.Fatal("Reset did not zero the node count")
	}
}

func TestParsePosition(t *testing.T) {
	tests := []struct {
		line     string
		moves    int
		score    int
		hasScore bool
		ok       bool
	}{
		{"4453 -2", 4, -2, true, true},
		{"  4453\t", 4, 0, false, true},
		{"", 0, 0, false, true},
		{"1111111 0", 0, 0, false, false}, // full column
		{"11223345", 0, 0, false, false},  // move after a win
		{"4453 x", 0, 0, false, false},
		{"4453 1 2", 0, 0, false, false},
		{"4483", 0, 0, false, false},
	}
	for _, tc := range tests {
		st, score, has, err := ParsePosition(tc.line)
		if (err == nil) != tc.ok {
			t.Errorf("ParsePosition(%q) error = %v, want ok %v", tc.line, err, tc.ok)
			continue
		}
		if !tc.ok {
			continue
		}
		if st.MoveNumber() != tc.moves || score != tc.score || has != tc.hasScore {
			t.Errorf("ParsePosition(%q) = %d moves, %d, %v", tc.line, st.MoveNumber(), score, has)
		}
	}
}

func FuzzParsePosition(f *testing.F) {
	for _, s := range []string{"4453 -2", "", "1111111", "44 3", "4453 99999999999999999999", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		st, _, _, err := ParsePosition(line)
		if err != nil {
			return
		}
		if st.MoveNumber() > connect4.Cells {
			t.Fatalf("%q: %d moves", line, st.MoveNumber())
		}
	})
}

// TestOutcome checks the weak solve against the sign of the reference
// scores, on whole easy sets and on a prefix of the harder opening set.
func TestOutcome(t *testing.T) {
	s := newSolver(t)
	for _, set := range []struct {
		name  string
		limit int
	}{{"Test_L3_R1", 1000}, {"Test_L2_R1", 1000}, {"Test_L1_R2", 20}} {
		ps := loadSet(t, set.name)
		for _, p := range ps[:set.limit] {
			if got, want := s.Outcome(p.state), sign(p.score); got != want {
				t.Fatalf("%s %s: Outcome = %d, want %d", set.name, p.line, got, want)
			}
		}
	}
	// OutcomeMoves agrees with the signs of ScoreMoves.
	ps := loadSet(t, "Test_L2_R1")
	for i := 0; i < len(ps); i += 25 {
		scores, outs := s.ScoreMoves(ps[i].state), s.OutcomeMoves(ps[i].state)
		for c := range scores {
			want := scores[c]
			if want != Invalid {
				want = sign(want)
			}
			if outs[c] != want {
				t.Fatalf("%s: OutcomeMoves = %v, ScoreMoves = %v", ps[i].line, outs, scores)
			}
		}
	}
	for _, moves := range []string{"1122334", "126615525717246671625435544411643733237327"} {
		st, _, _, err := ParsePosition(moves)
		if err != nil {
			t.Fatal(err)
		}
		want := -1
		if len(moves) == connect4.Cells {
			want = 0
		}
		if got := s.Outcome(st); got != want {
			t.Errorf("%s: Outcome = %d, want %d", moves, got, want)
		}
		if got := s.OutcomeMoves(st); got != [7]int{Invalid, Invalid, Invalid, Invalid, Invalid, Invalid, Invalid} {
			t.Errorf("%s: OutcomeMoves = %v on a finished game", moves, got)
		}
	}
}
