package gogame_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/gogame"
)

// ownershipText renders an ownership map as one row of + - 0 per line.
func ownershipText(own []float32, size int) string {
	var b []byte
	for p, o := range own {
		switch {
		case o > 0:
			b = append(b, '+')
		case o < 0:
			b = append(b, '-')
		default:
			b = append(b, '0')
		}
		if p%size == size-1 {
			b = append(b, '\n')
		}
	}
	return string(b)
}

func TestFinalOwnershipAndScore(t *testing.T) {
	g := mustGame(t, 5, 0.5, 0)
	// Black owns the two left columns (7 stones, 3 eyes); white the right
	// three (8 stones, 6 points of territory) but for the dame at the top.
	s := mustText(t, g, `
		. X . O .
		X X O . .
		. X O O O
		X X O . O
		. X O . .`, 0)
	s.ApplyAction(g.Pass())
	s.ApplyAction(g.Pass())
	if !s.IsTerminal() {
		t.Fatal("two passes did not end the game")
	}
	own := make([]float32, 25)
	s.FinalOwnership(own)
	want := "++0--\n++---\n++---\n++---\n++---\n"
	if got := ownershipText(own, 5); got != want {
		t.Errorf("ownership\n%s want\n%s", got, want)
	}
	if sc := s.FinalScore(); sc != 10-14-0.5 {
		t.Errorf("FinalScore = %v, want %v", sc, 10-14-0.5)
	}
	if r := s.Returns(); r != [2]float64{-1, 1} {
		t.Errorf("Returns = %v, want white to win", r)
	}
}

// TestFinalOwnershipSumsToScore checks, on random positions of every size,
// that ownership and FinalScore are the same area count as Score, the
// rules' own.
func TestFinalOwnershipSumsToScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{5, 7, 9} {
		g := mustGame(t, size, 6.5, 0)
		own := make([]float32, size*size)
		for game := 0; game < 20; game++ {
			s := g.NewInitialState().(*gogame.State)
			for ply := 0; ; ply++ {
				if ply%7 == 0 || s.IsTerminal() {
					s.FinalOwnership(own)
					var sum float64
					for p, o := range own {
						sum += float64(o)
						if c := s.At(p); (c == gogame.Black && o != 1) || (c == gogame.White && o != -1) {
							t.Fatalf("size %d: point %d holds colour %d, ownership %v", size, p, c, o)
						}
					}
					if got, want := sum-g.Komi(), s.Score(); math.Abs(got-want) > 1e-9 || s.FinalScore() != want {
						t.Fatalf("size %d: ownership sums to %v - komi = %v, FinalScore %v, Score %v\n%v", size, sum, got, s.FinalScore(), want, s)
					}
				}
				if s.IsTerminal() {
					break
				}
				s.ApplyAction(s.RandomMove(rng))
			}
		}
	}
	var _ games.Outcomer = g7(t).NewInitialState().(games.Outcomer)
}

func g7(t *testing.T) *gogame.Game { return mustGame(t, 7, 9, 0) }
