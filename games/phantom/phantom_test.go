package phantom

import (
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

func TestConformance(t *testing.T) {
	gamestest.Check(t, Game{}, gamestest.Config{Games: 300, Seed: 1})
	gamestest.CheckImperfect(t, Game{}, gamestest.Config{Games: 150, Seed: 2})
}

func play(t *testing.T, moves string) *State {
	t.Helper()
	as, err := Game{}.ParseActions(moves)
	if err != nil {
		t.Fatal(err)
	}
	s, err := games.Replay(Game{}, as)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*State)
}

// A move onto the opponent's mark fails, shows the mark to the mover only,
// and the same player moves again.
func TestFailedMove(t *testing.T) {
	s := play(t, "5") // X takes the centre
	if s.CurrentPlayer() != 1 || !s.IsLegal(4) {
		t.Fatalf("O should be to move and may try the centre:\n%s", s)
	}
	s.ApplyAction(4) // O tries the centre: fails
	if s.CurrentPlayer() != 1 || s.IsLegal(4) || s.marks[1] != 0 {
		t.Fatalf("O's failed try should leave O to move, the centre known:\n%s", s)
	}
	if got, want := s.InformationStateString(1), "p1 ... .X. ... | 5! to move"; got != want {
		t.Errorf("O's information state %q, want %q", got, want)
	}
	if got, want := s.InformationStateString(0), "p0 ... .X. ... | 5"; got != want {
		t.Errorf("X's information state %q, want %q", got, want)
	}
	s.ApplyAction(0)
	if s.CurrentPlayer() != 0 || s.IsTerminal() {
		t.Fatalf("X should be to move:\n%s", s)
	}
}

// Resample keeps what p saw and varies what it did not: after X takes the
// centre and O a corner, X's resamples put O's mark on every free cell.
func TestResampleSpreads(t *testing.T) {
	s := play(t, "51")
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[uint16]bool{}
	for i := 0; i < 400; i++ {
		r := s.Resample(0, rng).(*State)
		if r.marks[0] != s.marks[0] || r.found[0] != 0 {
			t.Fatalf("resample changed X's side:\n%s", r)
		}
		seen[r.marks[1]] = true
	}
	if len(seen) != 8 {
		t.Errorf("O's mark drawn on %d cells, want all 8 free ones", len(seen))
	}
}

func TestFullInformationState(t *testing.T) {
	s := play(t, "519")
	f := s.FullInformationState()
	if f.String() != "O..\n.X.\n..X\nO to move\n" {
		t.Errorf("full-information state\n%s", f)
	}
	if f.CurrentPlayer() != s.CurrentPlayer() || f.MoveNumber() != 3 {
		t.Errorf("full-information state %v to move after %d marks, want %d after 3", f.CurrentPlayer(), f.MoveNumber(), s.CurrentPlayer())
	}
}
