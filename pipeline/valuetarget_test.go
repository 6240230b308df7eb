package pipeline

import (
	"math"
	"testing"

	"tabula/games"
)

// TestRecordExamplesMixValue checks that experimental.value_target_mix reaches
// the replay examples: with mix m every example's value is (1-m)*z + m*q for
// its position's result z and root value q, both for the player to move.
func TestRecordExamplesMixValue(t *testing.T) {
	recs, _ := playDirect(t, true, 2)
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	mixed := 0
	for _, rec := range recs[0] {
		for _, mix := range []float64{0, 0.5, 1} {
			ex, err := recordExamples(g, rec, mix, false)
			if err != nil {
				t.Fatal(err)
			}
			k := 0
			s := g.NewInitialState()
			for i, a := range rec.Actions {
				if rec.Policies[i] != nil {
					z := rec.Returns[s.CurrentPlayer()]
					want := (1-mix)*z + mix*float64(rec.RootValues[i])
					if got := float64(ex[k].Value); math.Abs(got-want) > 1e-6 {
						t.Fatalf("mix %v, move %d: value %v, want %v (z %v, q %v)", mix, i+1, got, want, z, rec.RootValues[i])
					}
					if mix == 0.5 && float32(z) != rec.RootValues[i] {
						mixed++
					}
					k++
				}
				s.ApplyAction(a)
			}
			if k != len(ex) {
				t.Fatalf("%d examples, want %d", len(ex), k)
			}
		}
	}
	if mixed == 0 {
		t.Fatal("every root value equals its result: the test proves nothing")
	}
}
