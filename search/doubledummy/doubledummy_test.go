package doubledummy

import (
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/whist"
)

// bruteForce returns the tricks player 0 takes from s to the end with best
// play by both, by plain minimax over every legal card through the games
// API: no pruning, no table, no card equivalences.
func bruteForce(s *whist.State) int {
	if s.IsTerminal() {
		return s.Tricks()[0]
	}
	maximise := s.CurrentPlayer() == 0
	best := -1
	for _, a := range s.LegalActions(nil) {
		c := s.Clone().(*whist.State)
		c.ApplyAction(a)
		v := bruteForce(c)
		if best < 0 || (maximise && v > best) || (!maximise && v < best) {
			best = v
		}
	}
	return best
}

// randomDeal deals g at random and plays moves random cards.
func randomDeal(g *whist.Game, rng *rand.Rand, moves int) *whist.State {
	s := g.NewInitialState().(*whist.State)
	for s.IsChanceNode() {
		a, _ := games.SampleChance(s, rng)
		s.ApplyAction(a)
	}
	for i := 0; i < moves && !s.IsTerminal(); i++ {
		legal := s.LegalActions(nil)
		s.ApplyAction(legal[rng.IntN(len(legal))])
	}
	return s
}

func TestAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, spec := range []string{"whist:hand=4,ranks=4,trumps=1", "whist:hand=5,ranks=6,trumps=1", "whist:hand=5,ranks=3,trumps=0", "whist:hand=2,ranks=2,trumps=0"} {
		gg, err := games.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := gg.(*whist.Game)
		solver := New(g)
		for i := 0; i < 150; i++ {
			s := randomDeal(g, rng, rng.IntN(2*g.Hand()))
			want := bruteForce(s) - s.Tricks()[0]
			got, err := solver.Tricks(s)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("%s: %s: solver %d tricks for player 0, brute force %d", spec, s, got, want)
			}
			v, _ := solver.Value(s)
			tot := s.Tricks()[0] + want
			if wantV := float64(2*tot-g.Hand()) / float64(g.Hand()); v != wantV {
				t.Fatalf("%s: %s: value %v, want %v", spec, s, v, wantV)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	g := whist.Default()
	solver := New(g)
	if _, err := solver.Tricks(g.NewInitialState().(*whist.State)); err == nil {
		t.Error("solving before the deal: no error")
	}
	other, _ := whist.New(3, 4, true)
	if _, err := solver.Tricks(other.NewInitialState().(*whist.State)); err == nil {
		t.Error("a state of another game: no error")
	}
	if _, ok := solver.Exact(g.NewInitialState()); ok {
		t.Error("Exact accepted a state in the deal")
	}
}

// TestDefaultDealsAgainstBruteForce checks a few full default deals (6
// cards each, 24-card deck), where brute force still finishes.
func TestDefaultDealsAgainstBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("brute force over whole deals")
	}
	g := whist.Default()
	solver := New(g)
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 6; i++ {
		s := randomDeal(g, rng, 0)
		got, _ := solver.Tricks(s)
		if want := bruteForce(s); got != want {
			t.Fatalf("%s: solver %d, brute force %d", s, got, want)
		}
	}
}

// BenchmarkSolveDeal reports the time to solve a fresh default deal (6
// cards each, trumps) from its first lead, the table emptied before each.
func BenchmarkSolveDeal(b *testing.B) {
	for _, spec := range []string{"whist", "whist:hand=8,ranks=8,trumps=1"} {
		b.Run(spec, func(b *testing.B) {
			gg, _ := games.New(spec)
			g := gg.(*whist.Game)
			rng := rand.New(rand.NewPCG(1, 1))
			deals := make([]*whist.State, 64)
			for i := range deals {
				deals[i] = randomDeal(g, rng, 0)
			}
			solver := New(g)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				solver.Reset()
				if _, err := solver.Tricks(deals[i%len(deals)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(solver.Nodes())/float64(b.N), "nodes/deal")
		})
	}
}
