package mcts

import (
	"math"
	"strings"
	"testing"

	"tabula/games"
)

// TestMixedExamplesHandMade checks the mixed value target on a game written
// by hand: player 0 wins, and the root values alternate between the two
// players' points of view as a search would record them.
func TestMixedExamplesHandMade(t *testing.T) {
	g := connect4Game(t)
	// 1 2 1 2 1 2 1: the first player wins in column 1 at the 7th move.
	actions := []int{0, 1, 0, 1, 0, 1, 0}
	rec := GameRecord{Game: g.Name(), Actions: actions, Returns: [2]float64{1, -1},
		RootValues: []float32{0.2, -0.3, 0.4, -0.5, 0.6, -0.9, 1}}
	for range actions {
		rec.Policies = append(rec.Policies, []float32{1, 0, 0, 0, 0, 0, 0})
	}
	for _, mix := range []float64{0, 0.25, 1} {
		var got []float32
		err := rec.MixedExamples(g, mix, func(s games.State, _ []float32, v float32) error {
			got = append(got, v)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			z := 1.0 // the mover of even moves is player 0, the winner
			if i%2 == 1 {
				z = -1
			}
			want := float32((1-mix)*z + mix*float64(rec.RootValues[i]))
			if math.Abs(float64(v-want)) > 1e-6 {
				t.Errorf("mix %v, move %d: value target %v, want %v", mix, i+1, v, want)
			}
		}
		if len(got) != len(actions) {
			t.Errorf("mix %v: %d examples, want %d", mix, len(got), len(actions))
		}
	}
	// Examples is the mix 0.
	i := 0
	if err := rec.Examples(g, func(s games.State, _ []float32, z float32) error {
		if want := float32(rec.Returns[s.CurrentPlayer()]); z != want {
			t.Errorf("Examples move %d: z %v, want %v", i+1, z, want)
		}
		i++
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	nop := func(games.State, []float32, float32) error { return nil }
	for _, c := range []struct {
		mix  float64
		edit func(*GameRecord)
		want string
	}{
		{-0.1, nil, "mix -0.1, want 0..1"},
		{1.5, nil, "mix 1.5, want 0..1"},
		{math.NaN(), nil, "mix NaN, want 0..1"},
		{0.5, func(r *GameRecord) { r.RootValues = r.RootValues[:3] }, "3 root values for 7 actions"},
		{0.5, func(r *GameRecord) { r.RootValues = append([]float32{2}, r.RootValues[1:]...) }, "move 1: root value 2 outside"},
	} {
		r := rec
		if c.edit != nil {
			c.edit(&r)
		}
		if err := r.MixedExamples(g, c.mix, nop); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("mix %v: error %v, want one containing %q", c.mix, err, c.want)
		}
	}
	// Without a mix the root values are not needed.
	r := rec
	r.RootValues = nil
	if err := r.MixedExamples(g, 0, nop); err != nil {
		t.Errorf("mix 0 without root values: %v", err)
	}
}

// TestRootValuesAreForTheMover checks the sign convention that the mixed
// target relies on, on real self-play records: where a search proved its
// root (value +-1 with the solver), the game's result for the player to move
// has the same sign, because a proven win is kept to the end of the game.
// Were RootValues for player 0, or for the player who just moved, half of
// these positions would disagree.
func TestRootValuesAreForTheMover(t *testing.T) {
	cfg := selfPlayConfig()
	cfg.Simulations = 64
	cfg.Resign = false
	recs := playGames(t, cfg, UniformEvaluator{}, 5, 8)
	g := connect4Game(t)
	proven := [2]int{}
	for i, r := range recs {
		err := r.MixedExamples(g, 1, func(s games.State, _ []float32, v float32) error {
			z := r.Returns[s.CurrentPlayer()]
			if v == 1 || v == -1 {
				proven[s.CurrentPlayer()]++
				if float64(v) != z {
					t.Errorf("game %d move %d (player %d to move): proven root value %v, result %v",
						i, s.MoveNumber()+1, s.CurrentPlayer(), v, z)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if proven[0] == 0 || proven[1] == 0 {
		t.Fatalf("proven roots by player to move %v: the test proves nothing", proven)
	}
}
