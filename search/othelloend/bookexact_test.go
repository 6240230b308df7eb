package othelloend

import (
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/othello"
)

// randomEndgames returns n positions of seeded random games with empties
// empty squares and the side to move having a move.
func randomEndgames(tb testing.TB, n, empties int) []*othello.State {
	g, err := games.New("othello")
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	var out []*othello.State
	for len(out) < n {
		s := g.NewInitialState().(*othello.State)
		for !s.IsTerminal() && Empties(s) > empties {
			legal := s.LegalActions(nil)
			s.ApplyAction(legal[rng.IntN(len(legal))])
		}
		if !s.IsTerminal() && Empties(s) == empties {
			out = append(out, s)
		}
	}
	return out
}

// TestBookExact checks BookExact's win/draw/loss against the sign of full
// solves of random positions at 12 empties, and that it passes over a
// position of 13 with maxEmpties 12.
func TestBookExact(t *testing.T) {
	ex, err := BookExact(DefaultConfig(), 12)
	if err != nil {
		t.Fatal(err)
	}
	sv := newSolver(t, 16)
	seen := map[float64]int{}
	for i, s := range randomEndgames(t, 12, 12) {
		v, ok, err := ex(s)
		if err != nil || !ok {
			t.Fatalf("position %d: ok %v err %v", i, ok, err)
		}
		p, o := s.Boards()
		score, _ := sv.Solve(p, o)
		want := 0.0
		if score > 0 {
			want = 1
		} else if score < 0 {
			want = -1
		}
		if v != want {
			t.Errorf("position %d: %v, the full solve's margin is %d", i, v, score)
		}
		seen[v]++
	}
	if len(seen) < 2 {
		t.Errorf("results %v: the positions do not tell wins from losses", seen)
	}
	if _, ok, err := ex(randomEndgames(t, 1, 13)[0]); ok || err != nil {
		t.Errorf("13 empties, maxEmpties 12: ok %v err %v, want passed over", ok, err)
	}
}

// BenchmarkBookExact14 times BookExact's solve, a null-window win/draw/loss
// search, of 16 random positions at 14 empties, the default of makebook's
// -exact, each from an empty table (of 2^16 entries, so that clearing it
// costs little).
func BenchmarkBookExact14(b *testing.B) {
	positions := randomEndgames(b, 16, 14)
	sv := newSolver(b, 16)
	var nodes uint64
	for b.Loop() {
		for _, s := range positions {
			sv.Reset()
			p, o := s.Boards()
			sv.Search(p, o, -1, 1)
			nodes += sv.Nodes()
		}
	}
	b.ReportMetric(float64(nodes)/float64(b.N*len(positions)), "nodes/pos")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N*len(positions)), "s/pos")
}
