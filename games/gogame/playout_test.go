package gogame_test

import (
	"math/rand/v2"
	"testing"

	"tabula/games/gogame"
)

func TestIsEye(t *testing.T) {
	for _, tc := range []struct {
		name  string
		board string
		point string
		black bool // is it a black eye
	}{
		{"centre, clean diagonals", ". . . . .\n. . X . .\n. X . X .\n. . X . .\n. . . . .", "C3", true},
		{"centre, one enemy diagonal", ". . . . .\n. O X . .\n. X . X .\n. . X . .\n. . . . .", "C3", true},
		{"centre, two enemy diagonals", ". . . . .\n. O X . .\n. X . X .\n. . X O .\n. . . . .", "C3", false},
		{"centre, an empty neighbour", ". . . . .\n. . X . .\n. X . . .\n. . X . .\n. . . . .", "C3", false},
		{"edge, clean", ". . . . .\n. . . . .\n. . . . .\n. . X . .\n. X . X .", "C1", true},
		{"edge, one enemy diagonal", ". . . . .\n. . . . .\n. . . . .\n. O X . .\n. X . X .", "C1", false},
		{"corner", ". . . . .\n. . . . .\n. . . . .\n X X . . .\n. X . . .", "A1", true},
		{"occupied point", ". . . . .\n. . . . .\n. . . . .\n. . . . .\nX . . . .", "A1", false},
	} {
		g := mustGame(t, 5, 0.5, 0)
		s := mustText(t, g, tc.board, 0)
		p, err := g.ParseAction(tc.point)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.IsEye(p, gogame.Black); got != tc.black {
			t.Errorf("%s: IsEye(%s, Black) = %v, want %v", tc.name, tc.point, got, tc.black)
		}
		if s.IsEye(p, gogame.White) {
			t.Errorf("%s: IsEye(%s, White) = true", tc.name, tc.point)
		}
	}
}

// TestRandomMove checks every playout move: legal, never a fill of one's own
// eye, and pass only when no other such move exists.
func TestRandomMove(t *testing.T) {
	for _, size := range []int{3, 5, 9} {
		g := mustGame(t, size, 7.5, 0)
		rng := rand.New(rand.NewPCG(uint64(size), 9))
		passes := 0
		for game := 0; game < 30; game++ {
			s := g.NewInitialState().(*gogame.State)
			for !s.IsTerminal() {
				a := s.RandomMove(rng)
				me := s.CurrentPlayer() + 1
				if !s.IsLegal(a) {
					t.Fatalf("size %d: RandomMove gave illegal %s\n%s", size, g.FormatAction(a), s)
				}
				if a != g.Pass() && s.IsEye(a, me) {
					t.Fatalf("size %d: RandomMove fills its own eye at %s\n%s", size, g.FormatAction(a), s)
				}
				if a == g.Pass() {
					passes++
					for p := 0; p < g.Pass(); p++ {
						if s.IsLegal(p) && !s.IsEye(p, me) {
							t.Fatalf("size %d: RandomMove passed but %s was available\n%s", size, g.FormatAction(p), s)
						}
					}
				}
				s.ApplyAction(a)
			}
		}
		if passes == 0 {
			t.Errorf("size %d: no playout ever passed", size)
		}
	}
}

// TestPlayoutReproducible checks that a seed fixes a playout and that
// CopyFrom resets a state fully.
func TestPlayoutReproducible(t *testing.T) {
	g := mustGame(t, 9, 7.5, 0)
	root := g.NewInitialState().(*gogame.State)
	s := root.Clone().(*gogame.State)
	var first []float64
	var hashes []uint64
	for run := 0; run < 2; run++ {
		rng := rand.New(rand.NewPCG(42, 1))
		for i := 0; i < 20; i++ {
			s.CopyFrom(root)
			score := s.Playout(rng)
			if run == 0 {
				first = append(first, score)
				hashes = append(hashes, s.Hash())
			} else if score != first[i] || s.Hash() != hashes[i] {
				t.Fatalf("playout %d differs between runs with one seed", i)
			}
		}
	}
	if root.MoveNumber() != 0 || root.Hash() != g.NewInitialState().Hash() {
		t.Fatal("playouts on a copy changed the root")
	}
}
