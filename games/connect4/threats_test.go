package connect4

import (
	"math/rand/v2"
	"testing"
)

// twoPly is ForcedResult's reference by brute force: win when a move wins
// at once; lost when none does and every move lets the opponent win at once.
// threats counts the columns where the opponent would win at once.
func twoPly(s *State) (win, lost bool, threats int) {
	var buf []int
	buf = s.LegalActions(buf)
	for _, a := range buf {
		c := *s
		c.ApplyAction(a)
		if c.won {
			return true, false, 0
		}
	}
	// The opponent's immediate wins, as if it moved now.
	opp := *s
	opp.current ^= opp.mask
	for _, a := range buf {
		c := opp
		c.ApplyAction(a)
		if c.won {
			threats++
		}
	}
	lost = len(buf) > 0
	for _, a := range buf {
		c := *s
		c.ApplyAction(a)
		if c.moves == Cells {
			lost = false
			break
		}
		oppWins := false
		var replies []int
		for _, b := range c.LegalActions(replies) {
			d := c
			d.ApplyAction(b)
			if d.won {
				oppWins = true
				break
			}
		}
		if !oppWins {
			lost = false
			break
		}
	}
	return false, lost, threats
}

func TestForcedResultAgreesWithTwoPlySearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	var counts [3]int
	var buf []int
	for game := 0; game < 3000; game++ {
		s := NewState()
		for !s.IsTerminal() {
			win, lost, threats := twoPly(s)
			got := s.ForcedResult()
			switch {
			case win && got != 1:
				t.Fatalf("%s: ForcedResult %d, but a move wins at once", s, got)
			case !win && got == 1:
				t.Fatalf("%s: ForcedResult 1, but no move wins at once", s)
			case got == -1 && !lost:
				t.Fatalf("%s: ForcedResult -1, but a move does not lose at once", s)
			case lost && threats > 0 && got != -1:
				// With a playable threat, the two rules cover every
				// forced loss within two plies.
				t.Fatalf("%s: every move loses at once (%d threats), ForcedResult %d", s, threats, got)
			}
			counts[got+1]++
			buf = s.LegalActions(buf)
			s.ApplyAction(buf[rng.IntN(len(buf))])
		}
		if s.ForcedResult() != 0 {
			t.Fatalf("%s: game over, ForcedResult %d, want 0", s, s.ForcedResult())
		}
	}
	t.Logf("forced results over random games: -1: %d, 0: %d, +1: %d", counts[0], counts[1], counts[2])
	if counts[0] == 0 || counts[2] == 0 {
		t.Errorf("random games reached no forced win or no forced loss: %v", counts)
	}
}

func BenchmarkForcedResult(b *testing.B) {
	s := NewState()
	for _, a := range []int{3, 3, 2, 4, 1, 5, 5, 2, 0} {
		s.ApplyAction(a)
	}
	n := 0
	for b.Loop() {
		n += s.ForcedResult()
	}
	_ = n
}
