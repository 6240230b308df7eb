package backgammon

import (
	"math"
	"math/rand/v2"
	"testing"

	"tabula/games"
)

// TestPubevalOpenings checks the pubeval player on opening rolls whose
// standard plays it is known to find.
func TestPubevalOpenings(t *testing.T) {
	for _, c := range []struct {
		d1, d2 int
		want   string
	}{{3, 1, "8/5 6/5"}, {4, 2, "8/4 6/4"}, {6, 1, "13/7 8/7"}, {6, 5, "24/13"}} {
		s := decision(t, StartPosition(), c.d1, c.d2)
		a, _ := s.PubevalMove(nil)
		if got := s.FormatMove(a); got != c.want {
			t.Errorf("pubeval plays %d-%d as %s, want %s", c.d1, c.d2, got, c.want)
		}
	}
}

func TestTurnEndsMatchTurns(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, q := range randomPositions(rng, 200) {
		s := decision(t, q, 1+rng.IntN(6), 1+rng.IntN(6))
		want := turns(s)
		got := s.TurnEnds(nil)
		if len(got) != len(want) {
			t.Fatalf("%d turn ends, want %d\n%s", len(got), len(want), s)
		}
		for _, te := range got {
			if _, ok := want[te.Pos]; !ok {
				t.Fatalf("turn end not reachable\n%s", s)
			}
			c := s.Clone().(*State)
			if err := games.Play(c, te.Action); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestEvaluateRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	for _, q := range randomPositions(rng, 500) {
		s := decision(t, q, 2, 1)
		v := winLoss.Evaluate(s)
		if !(v > -1 && v < 1) {
			t.Fatalf("evaluation %v outside (-1, 1)", v)
		}
		// Symmetric: the same position seen by the other player.
		var m Position
		m.Board[0], m.Board[1] = q.Board[1], q.Board[0]
		m.Bar[0], m.Bar[1], m.Off[0], m.Off[1] = q.Bar[1], q.Bar[0], q.Off[1], q.Off[0]
		if w := evaluate(&m, 1); w != v {
			t.Fatalf("evaluation %v for player 0, %v for the same position as player 1", v, w)
		}
	}
	// A big lead in the race scores high.
	var q Position
	q.Board[0][0], q.Off[0] = 1, 14
	q.Board[1][23] = 15
	if v := evaluate(&q, 0); v < 0.9 {
		t.Errorf("one checker left against fifteen on the 24-point: %v", v)
	}
}

// TestEvaluateMoneyScale checks that the money game's heuristic is on the
// money scale of its Returns: the win/loss game's value over 3 (a single
// game's worth) before the end, the game's return at the end, where a
// gammon is worth twice a single game.
func TestEvaluateMoneyScale(t *testing.T) {
	wl, money := New(false), New(true)
	rng := rand.New(rand.NewPCG(4, 4))
	for _, q := range randomPositions(rng, 100) {
		d1, d2 := 1+rng.IntN(6), 1+rng.IntN(6)
		sw, err := NewState(wl, q, 0, d1, d2)
		if err != nil {
			t.Fatal(err)
		}
		sm, err := NewState(money, q, 0, d1, d2)
		if err != nil {
			t.Fatal(err)
		}
		if sw.IsTerminal() {
			continue
		}
		if w, m := wl.Evaluate(sw), money.Evaluate(sm); math.Abs(m-w/3) > 1e-12 {
			t.Fatalf("money heuristic %v, want the win/loss one %v over 3\n%s", m, w, sm)
		}
	}
	var q Position // player 0 has borne off; player 1 has none off, none in 0's home: a gammon
	q.Off[0] = Checkers
	q.Board[1][5] = Checkers
	s, err := NewState(money, q, 1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsTerminal() || money.Evaluate(s) != -2.0/3 {
		t.Fatalf("the gammon lost: terminal %v, heuristic %v, want -2/3", s.IsTerminal(), money.Evaluate(s))
	}
}
