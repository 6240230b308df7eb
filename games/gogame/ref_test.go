package gogame_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"tabula/games/gogame"
)

// refGo is a deliberately naive Go referee, written for the tests from the
// rules alone: flood fills for groups and liberties, a set of whole boards
// for positional superko. The fast State is checked against it.
type refGo struct {
	size    int
	komi    float64
	board   []int8
	toMove  int8
	history map[string]bool
}

func newRef(size int, komi float64) *refGo {
	r := &refGo{size: size, komi: komi, board: make([]int8, size*size), history: map[string]bool{}}
	r.history[string(r.boardBytes(r.board))] = true
	return r
}

func (r *refGo) boardBytes(b []int8) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = byte(c)
	}
	return out
}

func (r *refGo) neighbours(p int) []int {
	var out []int
	row, col := p/r.size, p%r.size
	if row > 0 {
		out = append(out, p-r.size)
	}
	if row < r.size-1 {
		out = append(out, p+r.size)
	}
	if col > 0 {
		out = append(out, p-1)
	}
	if col < r.size-1 {
		out = append(out, p+1)
	}
	return out
}

// group returns the stones connected to p and whether they have a liberty.
func (r *refGo) group(b []int8, p int) ([]int, bool) {
	c := b[p]
	seen := map[int]bool{p: true}
	stack := []int{p}
	var stones []int
	libs := false
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		stones = append(stones, q)
		for _, x := range r.neighbours(q) {
			if b[x] == 0 {
				libs = true
			} else if b[x] == c && !seen[x] {
				seen[x] = true
				stack = append(stack, x)
			}
		}
	}
	return stones, libs
}

// after returns the board after the mover plays p, and whether the move is
// legal (empty point, not suicide, not a repetition).
func (r *refGo) after(p int) ([]int8, bool) {
	if r.board[p] != 0 {
		return nil, false
	}
	c := r.toMove + 1
	b := slices.Clone(r.board)
	b[p] = c
	for _, q := range r.neighbours(p) {
		if b[q] == 3-c {
			if stones, libs := r.group(b, q); !libs {
				for _, x := range stones {
					b[x] = 0
				}
			}
		}
	}
	if _, libs := r.group(b, p); !libs {
		return nil, false
	}
	if r.history[string(r.boardBytes(b))] {
		return b, false
	}
	return b, true
}

func (r *refGo) legal() []int {
	var out []int
	for p := range r.board {
		if _, ok := r.after(p); ok {
			out = append(out, p)
		}
	}
	return append(out, len(r.board))
}

func (r *refGo) play(a int) {
	if a < len(r.board) {
		b, _ := r.after(a)
		r.board = b
		r.history[string(r.boardBytes(b))] = true
	}
	r.toMove ^= 1
}

func (r *refGo) score() float64 {
	s := 0.0
	seen := make([]bool, len(r.board))
	for p, c := range r.board {
		switch {
		case c == gogame.Black:
			s++
		case c == gogame.White:
			s--
		case !seen[p]:
			region := []int{p}
			seen[p] = true
			touch := 0
			for i := 0; i < len(region); i++ {
				for _, q := range r.neighbours(region[i]) {
					if r.board[q] == 0 && !seen[q] {
						seen[q] = true
						region = append(region, q)
					} else if r.board[q] != 0 {
						touch |= int(r.board[q])
					}
				}
			}
			if touch == gogame.Black {
				s += float64(len(region))
			} else if touch == gogame.White {
				s -= float64(len(region))
			}
		}
	}
	return s - r.komi
}

// TestAgainstReference plays random games on small boards and checks the
// legal moves, the board and the score against the naive referee after
// every move. Passes are rare so that games run long and reach kos.
func TestAgainstReference(t *testing.T) {
	for _, tc := range []struct{ size, games int }{{2, 400}, {3, 300}, {4, 200}, {5, 60}, {7, 15}} {
		g, err := gogame.New(tc.size, 0.5, 6*tc.size*tc.size)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(tc.size), 7))
		superkoHits := 0
		for game := 0; game < tc.games; game++ {
			s := g.NewInitialState().(*gogame.State)
			ref := newRef(tc.size, g.Komi())
			var moves []int
			boards := [][]int8{slices.Clone(ref.board)}
			obs := make([]float32, gogame.NumPlanes*tc.size*tc.size)
			for !s.IsTerminal() {
				checkObservation(t, s, boards, obs)
				got := s.LegalActions(nil)
				want := ref.legal()
				if !slices.Equal(got, want) {
					t.Fatalf("size %d, moves %s: legal %v, reference %v\n%s", tc.size, g.FormatActions(moves), got, want, s)
				}
				for p := range ref.board {
					if b, ok := ref.after(p); !ok && b != nil {
						superkoHits++
					}
				}
				a := got[rng.IntN(len(got))]
				if a == g.Pass() && len(got) > 1 && rng.IntN(8) != 0 {
					a = got[rng.IntN(len(got)-1)]
				}
				s.ApplyAction(a)
				ref.play(a)
				moves = append(moves, a)
				boards = append(boards, slices.Clone(ref.board))
				for p := range ref.board {
					if s.At(p) != int(ref.board[p]) {
						t.Fatalf("size %d, moves %s: point %s is %d, reference %d", tc.size, g.FormatActions(moves), g.FormatAction(p), s.At(p), ref.board[p])
					}
				}
			}
			if got, want := s.Score(), ref.score(); got != want {
				t.Fatalf("size %d, moves %s: score %v, reference %v", tc.size, g.FormatActions(moves), got, want)
			}
		}
		if superkoHits == 0 {
			t.Errorf("size %d: no move was ever refused for repetition; the test does not reach superko", tc.size)
		}
		t.Logf("size %d: %d moves refused for repetition", tc.size, superkoHits)
	}
}

// checkObservation checks s's observation against the boards of the game
// so far (boards[len-1] is the current one).
func checkObservation(t *testing.T, s *gogame.State, boards [][]int8, obs []float32) {
	t.Helper()
	n := len(boards[0])
	s.Observation(obs)
	me := int8(s.CurrentPlayer() + 1)
	for i := 0; i < gogame.HistoryPlanes; i++ {
		var b []int8
		if j := len(boards) - 1 - i; j >= 0 {
			b = boards[j]
		} else {
			b = make([]int8, n)
		}
		for p, c := range b {
			mine, theirs := float32(0), float32(0)
			if c == me {
				mine = 1
			} else if c != 0 {
				theirs = 1
			}
			if obs[2*i*n+p] != mine || obs[(2*i+1)*n+p] != theirs {
				t.Fatalf("move %d: observation planes %d/%d at point %d are %v/%v, want %v/%v", s.MoveNumber(), 2*i, 2*i+1, p, obs[2*i*n+p], obs[(2*i+1)*n+p], mine, theirs)
			}
		}
	}
	want := float32(0)
	if me == gogame.Black {
		want = 1
	}
	for p := 0; p < n; p++ {
		if obs[2*gogame.HistoryPlanes*n+p] != want {
			t.Fatalf("move %d: colour plane %v, want %v", s.MoveNumber(), obs[2*gogame.HistoryPlanes*n+p], want)
		}
	}
}
