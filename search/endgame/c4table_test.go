package endgame

import (
	"context"
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/connect4/small"
	"tabula/mcts"
	"tabula/search/retro"
)

// TestConnect4TableInMCTS searches 4x4 Connect Four positions whose moves
// differ in outcome (by the table) with a network that misleads: value 0
// everywhere and a prior of 0.99 on a worse move. With the table's prover
// the move played has the position's best outcome and the root's value is
// that outcome; without it the favoured move is played in most of them.
func TestConnect4TableInMCTS(t *testing.T) {
	tab, err := retro.BuildConnect4(context.Background(), 4, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := small.New(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	// outcome is the table's outcome of s for its player to move.
	outcome := func(s games.State) float32 {
		st := s.(*small.State)
		return float32(tab.Lookup(st.Stones()).Outcome())
	}
	search := func(st games.State, favour int, prove bool) mcts.Result {
		cfg := mcts.DefaultConfig()
		cfg.Simulations = 100
		cfg.DirichletEpsilon = 0
		if prove {
			if err := ConfigureConnect4Table(&cfg, g, tab); err != nil {
				t.Fatal(err)
			}
		}
		s, err := mcts.NewSearch(cfg, uniform{favour: favour}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(t.Context(), st)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	rng := rand.New(rand.NewPCG(5, 6))
	tested, misled := 0, 0
	for tested < 20 {
		st := g.NewInitialState()
		var buf []int
		for n := rng.IntN(10); n > 0 && !st.IsTerminal(); n-- {
			buf = st.LegalActions(buf[:0])
			st.ApplyAction(buf[rng.IntN(len(buf))])
		}
		if st.IsTerminal() {
			continue
		}
		// Each move's outcome for the mover, the best, and a worse move.
		vals := map[int]float32{}
		best := float32(-2)
		for _, a := range st.LegalActions(nil) {
			c := st.Clone()
			c.ApplyAction(a)
			vals[a] = -outcome(c)
			best = max(best, vals[a])
		}
		favour := -1
		for a, v := range vals {
			if v < best && (favour < 0 || a < favour) {
				favour = a
			}
		}
		if favour < 0 {
			continue
		}
		tested++
		with := search(st, favour, true)
		if vals[with.Action] != best || with.Value != best || best != outcome(st) {
			t.Errorf("%s with the table: move %d (outcome %v), value %v; want outcome %v", st, with.Action, vals[with.Action], with.Value, best)
		}
		if without := search(st, favour, false); vals[without.Action] != best {
			misled++
		}
	}
	if misled < tested/2 {
		t.Errorf("without the table %d of %d searches chose a worse move: the test shows little", misled, tested)
	}
	t.Logf("%d positions; without the table %d searches chose a worse move", tested, misled)
}

func TestConfigureConnect4TableErrors(t *testing.T) {
	tab, err := retro.BuildConnect4(context.Background(), 4, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	g54, _ := small.New(5, 4)
	cfg := mcts.DefaultConfig()
	for _, g := range []games.Game{g54, newGame(t, "connect4")} {
		if err := ConfigureConnect4Table(&cfg, g, tab); err == nil {
			t.Errorf("%s: no error", g.Name())
		}
	}
}
