package othelloend

import (
	"bufio"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"tabula/games"
	"tabula/games/othello"
	"tabula/internal/refdata/refdatatest"
)

// naive is plain minimax through the games.State interface: the reference
// the solver is checked against on small endgames.
func naive(s *othello.State) int {
	legal := s.LegalActions(nil)
	if len(legal) == 0 {
		p, o := s.Boards()
		np, no := bits.OnesCount64(p), bits.OnesCount64(o)
		n := s.Game().(*othello.Game).Size()
		e := n*n - np - no
		switch {
		case np > no:
			return np - no + e
		case np < no:
			return np - no - e
		}
		return 0
	}
	best := -100
	for _, a := range legal {
		c := s.Clone().(*othello.State)
		c.ApplyAction(a)
		best = max(best, -naive(c))
	}
	return best
}

// randomEndgame plays random moves from the start until empties squares
// remain (or the game ends earlier).
func randomEndgame(t testing.TB, g *othello.Game, rng *rand.Rand, empties int) *othello.State {
	s := g.NewInitialState().(*othello.State)
	for !s.IsTerminal() {
		p, o := s.Boards()
		if g.Size()*g.Size()-bits.OnesCount64(p|o) <= empties {
			break
		}
		l := s.LegalActions(nil)
		if err := games.Play(s, l[rng.IntN(len(l))]); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func newGame(t testing.TB) *othello.Game {
	g, err := othello.New(8)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func newSolver(t testing.TB, bits int) *Solver {
	s, err := New(Config{TTBits: bits})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAgainstMinimax(t *testing.T) {
	for _, size := range []int{8, 6} {
		t.Run(fmt.Sprint(size), func(t *testing.T) { testAgainstMinimax(t, size) })
	}
}

func testAgainstMinimax(t *testing.T, size int) {
	g, err := othello.New(size)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, uint64(size)))
	solver, err := New(Config{TTBits: 12, Size: size})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 240; i++ {
		empties := 1 + i%9
		s := randomEndgame(t, g, rng, empties)
		p, o := s.Boards()
		want := naive(s)
		got, best := solver.Solve(p, o)
		if got != want {
			t.Fatalf("position %d (%d empties): Solve = %d, minimax %d\n%s", i, empties, got, want, s)
		}
		// The best move must achieve the score.
		switch {
		case s.IsTerminal():
			if best != NoMove {
				t.Fatalf("position %d: game over but best = %d", i, best)
			}
		default:
			c := s.Clone().(*othello.State)
			a := g.Action(best)
			if best == Pass {
				a = g.Pass()
			}
			if err := games.Play(c, a); err != nil {
				t.Fatalf("position %d: best move %d: %v\n%s", i, best, err, s)
			}
			if v := -naive(c); v != want {
				t.Fatalf("position %d: best move %s scores %d, want %d\n%s", i, g.FormatAction(a), v, want, s)
			}
		}
		// Every move's exact score agrees with minimax too.
		scores := solver.MoveScores(p, o)
		if len(scores) != len(s.LegalActions(nil)) {
			t.Fatalf("position %d: %d move scores for legal moves %v\n%s", i, len(scores), s.LegalActions(nil), s)
		}
		for _, m := range scores {
			c := s.Clone().(*othello.State)
			a := g.Pass()
			if m.Square != Pass {
				a = g.Action(m.Square)
			}
			if err := games.Play(c, a); err != nil {
				t.Fatalf("position %d: scored move %d: %v\n%s", i, m.Square, err, s)
			}
			if v := -naive(c); v != m.Score {
				t.Fatalf("position %d: move %s scores %d, minimax %d\n%s", i, g.FormatAction(a), m.Score, v, s)
			}
		}
		// Window searches keep the fail-soft contract.
		for _, w := range [][2]int{{-1, 1}, {want - 2, want + 2}, {want, want + 1}, {want - 1, want}, {-64, -62}, {60, 64}} {
			v, _ := solver.Search(p, o, w[0], w[1])
			ok := (v <= w[0] && want <= v) || (v >= w[1] && want >= v) || (v > w[0] && v < w[1] && v == want)
			if !ok {
				t.Fatalf("position %d: Search window %v = %d, true score %d\n%s", i, w, v, want, s)
			}
		}
	}
}

func TestSpecialPositions(t *testing.T) {
	full := ^uint64(0)
	tests := []struct {
		name       string
		p, o       uint64
		score, bst int
	}{
		{"full board, mover ahead", full >> 20, full << 44, 2*44 - 64, NoMove},
		{"no discs for the opponent: game over, empties to the mover", 1, 0, 64, NoMove},
		{"only the opponent has discs", 0, 1 << 27, -64, NoMove},
		// a1 empty; mover owns b1..h1, opponent the rest: the mover can't
		// play a1 (nothing to flank), the opponent can't either; 8 vs 55.
		{"last empty unplayable", 0xFE, full &^ 0xFF, 2*7 - 64, NoMove},
	}
	s := newSolver(t, 10)
	for _, tc := range tests {
		score, best := s.Solve(tc.p, tc.o)
		if score != tc.score || best != tc.bst {
			t.Errorf("%s: Solve = %d, %d; want %d, %d", tc.name, score, best, tc.score, tc.bst)
		}
	}
}

func TestConfig(t *testing.T) {
	for _, bad := range []int{-1, 29} {
		if _, err := New(Config{TTBits: bad}); err == nil {
			t.Errorf("TTBits=%d accepted", bad)
		}
	}
	for _, bad := range []int{-8, 4, 7, 10} {
		if _, err := New(Config{Size: bad}); err == nil {
			t.Errorf("Size=%d accepted", bad)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Error(err)
	}
}

// ffo is one FFO test position.
type ffo struct {
	id      int
	p, o    uint64
	empties int
	score   int
	bestSqs map[int]bool
	listed  []othello.MoveScore
}

func readFFO(t testing.TB, file string, first int) []ffo {
	f, err := os.Open(refdatatest.Path(t, "othello", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []ffo
	sc := bufio.NewScanner(f)
	for id := first; sc.Scan(); id++ {
		pos, err := othello.ParseOBF(sc.Text())
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		best, ok := pos.Best()
		if !ok {
			t.Fatalf("%s: position %d has no scores", file, id)
		}
		q := ffo{id: id, score: best, bestSqs: map[int]bool{}, listed: pos.Moves}
		q.p, q.o = pos.Boards()
		q.empties = 64 - bits.OnesCount64(q.p|q.o)
		for _, m := range pos.Moves {
			if m.Score == best {
				q.bestSqs[m.Square] = true
			}
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func square(sq int) string {
	if sq < 0 || sq > 63 {
		return fmt.Sprint(sq)
	}
	return string([]byte{byte('a' + sq%8), byte('1' + sq/8)})
}

func checkFFO(t testing.TB, s *Solver, q ffo) (time.Duration, uint64) {
	s.Reset()
	start := time.Now()
	score, best := s.Solve(q.p, q.o)
	d := time.Since(start)
	if score != q.score || !q.bestSqs[best] {
		t.Errorf("FFO #%d (%d empties): score %d move %s, want %d with one of %v", q.id, q.empties, score, square(best), q.score, q.bestSqs)
	}
	return d, s.Nodes()
}

// TestFFO solves all of FFO #1-#19 (14 to 16 empties) and those of
// #20-#39 with at most 18 empties; BenchmarkFFO20to39 covers the rest.
func TestFFO(t *testing.T) {
	s := newSolver(t, 20)
	all := append(readFFO(t, "fforum-1-19.obf", 1), readFFO(t, "fforum-20-39.obf", 20)...)
	for _, q := range all {
		if q.empties > 18 {
			continue
		}
		d, n := checkFFO(t, s, q)
		t.Logf("FFO #%d: %d empties, %v, %d nodes", q.id, q.empties, d.Round(time.Millisecond), n)
	}
}

// TestSymmetry solves the eight images of some FFO positions under the
// symmetries of the board: the score must not change and the best move must
// be the image of a best move.
func TestSymmetry(t *testing.T) {
	g := newGame(t)
	s := newSolver(t, 18)
	for _, q := range readFFO(t, "fforum-1-19.obf", 1)[:6] {
		for k := 1; k < 8; k++ {
			p, o := g.TransformBoard(k, q.p), g.TransformBoard(k, q.o)
			s.Reset()
			score, best := s.Solve(p, o)
			back := g.TransformAction(g.Inverse(k), best)
			if score != q.score || !q.bestSqs[back] {
				t.Errorf("FFO #%d under symmetry %d: score %d move %s (maps back to %s), want %d with one of %v",
					q.id, k, score, square(best), square(back), q.score, q.bestSqs)
			}
		}
	}
}

// TestMoveScores checks every move listed with its exact score in FFO
// #1-#9 (the .obf lines list most legal moves, not always all).
func TestMoveScores(t *testing.T) {
	s := newSolver(t, 18)
	for _, q := range readFFO(t, "fforum-1-19.obf", 1)[:9] {
		got := map[int]int{}
		scores := s.MoveScores(q.p, q.o)
		for i, m := range scores {
			got[m.Square] = m.Score
			if i > 0 && scores[i-1].Score < m.Score {
				t.Errorf("FFO #%d: MoveScores not sorted best first: %v", q.id, scores)
			}
		}
		if len(scores) != bits.OnesCount64(othello.Moves(q.p, q.o)) {
			t.Errorf("FFO #%d: %d move scores for %d legal moves", q.id, len(scores), bits.OnesCount64(othello.Moves(q.p, q.o)))
		}
		for _, m := range q.listed {
			if v, ok := got[m.Square]; !ok || v != m.Score {
				t.Errorf("FFO #%d: move %s scores %d (listed: %v), want %d", q.id, square(m.Square), v, ok, m.Score)
			}
		}
	}
	// A finished game: a1 and c1 cannot reach each other.
	if ms := s.MoveScores(0x1, 0x4); ms != nil {
		t.Errorf("finished game: MoveScores = %v, want none", ms)
	}
	// White b1 to move against black a1: white has nothing to flank and
	// passes, black plays c1 and the game ends 3-0 (64 with the empties).
	p, o := uint64(0x2), uint64(0x1)
	if ms := s.MoveScores(p, o); len(ms) != 1 || ms[0].Square != Pass || ms[0].Score != -64 {
		t.Errorf("forced pass: MoveScores = %v, want [{64 -64}]", ms)
	}
}
