package td

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/backgammon"
)

// playVsRandom plays n games of w's greedy move choice against uniformly
// random moves, w moving first in even games, and returns w's wins.
func playVsRandom(t *testing.T, w *Weights, n int) int {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	g := backgammon.New(false)
	var buf []backgammon.TurnEnd
	var legal []int
	var outs []games.ChanceOutcome
	wins := 0
	for k := 0; k < n; k++ {
		s := g.NewInitialState().(*backgammon.State)
		for !s.IsTerminal() {
			switch {
			case s.IsChanceNode():
				outs = s.ChanceOutcomes(outs)
				s.ApplyAction(outs[rng.IntN(len(outs))].Action) // any roll will do here
			case s.CurrentPlayer() == k%2:
				var a int
				a, buf = w.Move(s, buf)
				s.ApplyAction(a)
			default:
				legal = s.LegalActions(legal)
				s.ApplyAction(legal[rng.IntN(len(legal))])
			}
		}
		if s.Returns()[k%2] > 0 {
			wins++
		}
	}
	return wins
}

// TestTrainLearns checks that a few hundred games of TD(lambda) from zero
// weights give an evaluation that beats random play almost always, while
// the untrained (all-zero) one, which plays its first listed move, does not.
func TestTrainLearns(t *testing.T) {
	var w Weights
	const n = 100
	before := playVsRandom(t, &w, n)
	if err := Train(context.Background(), &w, Config{Games: 300, Alpha: 0.1, Lambda: 0.7, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	after := playVsRandom(t, &w, n)
	t.Logf("wins against random of %d: untrained %d, trained %d", n, before, after)
	if after < 65 || after < before+15 {
		t.Errorf("trained weights won %d of %d against random (untrained %d), want >= 65 and 15 more than untrained", after, n, before)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Games: 0, Alpha: 0.1, Lambda: 0.5}, "games = 0"},
		{Config{Games: 1, Alpha: 0, Lambda: 0.5}, "alpha = 0"},
		{Config{Games: 1, Alpha: 0.1, Lambda: 1.5}, "lambda = 1.5"},
	} {
		err := Train(context.Background(), &Weights{}, c.cfg, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}

// TestEvaluationSides checks that the evaluation at a chance node is the
// opposite of the mover's own value of the position it left.
func TestEvaluationSides(t *testing.T) {
	var w Weights
	for i := range w.Contact {
		w.Contact[i] = float64(i%7-3) / 10
	}
	q := backgammon.StartPosition()
	q.Board[0][5]-- // player 0 has moved a checker from its 6-point to its 5-point
	q.Board[0][4]++
	s, err := backgammon.NewState(backgammon.New(false), q, 1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsChanceNode() {
		t.Fatal("want a chance node")
	}
	p0 := w.Value(&q, 0)
	if got, want := w.Evaluation(s), 0.999*(1-2*p0); got != want {
		t.Errorf("Evaluation for player 1 = %v, want %v", got, want)
	}
}
