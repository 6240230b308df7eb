package mcts

import (
	"math"
	"math/bits"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/games/othello"
)

// skewedEvaluator is an Othello evaluator that sees the board's orientation:
// its value counts the discs of the top row and its policy favours the
// higher action numbers, so a position and its images get different answers.
type skewedEvaluator struct{ positions int }

func (e *skewedEvaluator) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	for i, s := range states {
		e.positions++
		black, white := s.(*othello.State).Discs()
		values[i] = float32(bits.OnesCount64(black&0xff)-bits.OnesCount64(white&0xff)) / 8
		var sum float32
		for a := range policies[i] {
			policies[i][a] = 0
			if s.IsLegal(a) {
				policies[i][a] = float32(a + 1)
				sum += float32(a + 1)
			}
		}
		for a := range policies[i] {
			policies[i][a] /= sum
		}
	}
	return nil
}

// othelloPositions returns n positions of 8x8 Othello reached by seeded
// random play, 6 to 30 moves in.
func othelloPositions(t *testing.T, n int) (*othello.Game, []games.State) {
	t.Helper()
	g, err := othello.New(8)
	if err != nil {
		t.Fatal(err)
	}
	rng := newRNG(7)
	var out []games.State
	var buf []int
	for len(out) < n {
		s := g.NewInitialState()
		for ply := 6 + rng.IntN(25); ply > 0 && !s.IsTerminal(); ply-- {
			buf = s.LegalActions(buf)
			s.ApplyAction(buf[rng.IntN(len(buf))])
		}
		if !s.IsTerminal() {
			out = append(out, s)
		}
	}
	return g, out
}

func evaluate(t *testing.T, e Evaluator, na int, states []games.State) ([][]float32, []float32) {
	t.Helper()
	pol := make([][]float32, len(states))
	for i := range pol {
		pol[i] = make([]float32, na)
	}
	val := make([]float32, len(states))
	if err := e.Evaluate(states, pol, val); err != nil {
		t.Fatal(err)
	}
	return pol, val
}

// TestSymmetrizedAveragesEveryOrientation checks that with all 8 symmetries
// a position and each of its images get the same value and the same policy
// (mapped through the symmetry), equal to the mean of the inner evaluator's
// answers over the 8 images; and that 1 symmetry is the inner evaluator.
func TestSymmetrizedAveragesEveryOrientation(t *testing.T) {
	g, states := othelloPositions(t, 12)
	na := g.NumActions()
	inner := &skewedEvaluator{}
	sym, err := NewSymmetrized(inner, g, 8)
	if err != nil {
		t.Fatal(err)
	}
	pol, val := evaluate(t, sym, na, states)
	if inner.positions != 8*len(states) {
		t.Errorf("inner evaluator saw %d positions, want 8 x %d", inner.positions, len(states))
	}
	varied := false
	for i, s := range states {
		// The mean of the inner values over the images, by hand.
		images := make([]games.State, 8)
		for k := range images {
			images[k] = g.TransformState(k, s)
		}
		_, iv := evaluate(t, &skewedEvaluator{}, na, images)
		var mean float64
		for _, v := range iv {
			mean += float64(v) / 8
			varied = varied || v != iv[0]
		}
		if math.Abs(float64(val[i])-mean) > 1e-6 {
			t.Errorf("position %d: value %v, want the mean over the images %v", i, val[i], mean)
		}
		var sum float64
		for a, p := range pol[i] {
			sum += float64(p)
			if p != 0 && !s.IsLegal(a) {
				t.Errorf("position %d: policy %v on illegal action %d", i, p, a)
			}
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("position %d: policy sums to %v", i, sum)
		}
		ipol, ival := evaluate(t, sym, na, images)
		for k := range images {
			if math.Abs(float64(ival[k]-val[i])) > 1e-6 {
				t.Errorf("position %d, image %d: value %v, want %v (the same position)", i, k, ival[k], val[i])
			}
			for a := range na {
				if d := ipol[k][g.TransformAction(k, a)] - pol[i][a]; math.Abs(float64(d)) > 1e-6 {
					t.Errorf("position %d, image %d, action %d: policy differs by %v", i, k, a, d)
				}
			}
		}
	}
	if !varied {
		t.Fatal("the skewed evaluator answered every image alike: the test shows nothing")
	}

	one, err := NewSymmetrized(&skewedEvaluator{}, g, 1)
	if err != nil {
		t.Fatal(err)
	}
	opol, oval := evaluate(t, one, na, states)
	rpol, rval := evaluate(t, &skewedEvaluator{}, na, states)
	for i := range states {
		if oval[i] != rval[i] || !equalFloats(opol[i], rpol[i]) {
			t.Errorf("position %d: 1 symmetry differs from the inner evaluator", i)
		}
	}
}

func equalFloats(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestSymmetrizedErrors(t *testing.T) {
	g, _ := othelloPositions(t, 1)
	for _, tc := range []struct {
		g    games.Game
		k    int
		want string
	}{
		{g, 0, "want 1..8"},
		{g, 9, "want 1..8"},
		{connect4Game(t), 3, "want 1..2"},
		{backgammon.New(false), 2, "has no symmetries"},
	} {
		_, err := NewSymmetrized(UniformEvaluator{}, tc.g, tc.k)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s, %d symmetries: error %v, want one saying %q", tc.g.Name(), tc.k, err, tc.want)
		}
	}
	if _, err := NewSymmetrized(nil, g, 2); err == nil {
		t.Error("nil evaluator: no error")
	}
}
