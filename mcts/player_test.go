package mcts

import (
	"context"
	"testing"

	"tabula/games"
)

// counting records the sizes of the batches it is given.
type counting struct {
	sizes []int
	inner Evaluator
}

func (c *counting) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	c.sizes = append(c.sizes, len(states))
	return c.inner.Evaluate(states, policies, values)
}

func meanMax(xs []int) (float64, int) {
	sum, m := 0, 0
	for _, x := range xs {
		sum += x
		m = max(m, x)
	}
	return float64(sum) / float64(len(xs)), m
}

func TestBatching(t *testing.T) {
	ev := &counting{inner: UniformEvaluator{}}
	cfg := DefaultConfig()
	cfg.Simulations = 1000
	cfg.BatchSize = 16
	s, err := NewSearch(cfg, ev, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), position(t, "")); err != nil {
		t.Fatal(err)
	}
	mean, mx := meanMax(ev.sizes)
	if mx != 16 || mean < 12 {
		t.Errorf("search: batches of mean %.1f, max %d; want max 16 and mean near it", mean, mx)
	}

	ev.sizes = nil
	cfg = selfPlayConfig() // 4 games in flight, batch 8
	p, err := NewSelfPlay(cfg, connect4Game(t), ev, newRNG(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(context.Background(), 8, func(GameRecord) error { return nil }); err != nil {
		t.Fatal(err)
	}
	mean, mx = meanMax(ev.sizes)
	if mx != 8 || mean < 5 {
		t.Errorf("self-play: batches of mean %.1f, max %d; want max 8 and mean near it", mean, mx)
	}
}

func TestPlayerFollowsGame(t *testing.T) {
	p, err := NewPlayer(matchConfig(200), UniformEvaluator{}, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st := position(t, "")
	a, err := p.ChooseAction(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	st.ApplyAction(a)
	st.ApplyAction(3) // the opponent's reply
	p.s.sync(st)
	if n := p.s.sr.t.nodes[0].n; n == 0 {
		t.Error("tree not reused after the opponent's reply")
	}
	if !sameState(p.s.sr.root, st) {
		t.Error("root is not the position after the reply")
	}
	other := position(t, "1122")
	p.s.sync(other)
	if n := p.s.sr.t.nodes[0].n; n != 0 || !sameState(p.s.sr.root, other) {
		t.Errorf("unrelated position: root visits %d, want a fresh tree", n)
	}
}

// TestPlayerBeatsRandom plays a PUCT player with a rollout evaluator and the
// UCT player against uniformly random moves.
func TestPlayerBeatsRandom(t *testing.T) {
	rev, err := NewRolloutEvaluator(4, newRNG(9))
	if err != nil {
		t.Fatal(err)
	}
	pl, err := NewPlayer(matchConfig(100), rev, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	uct, err := NewUCT(UCTConfig{Rollouts: 300, C: 1.4}, newRNG(2))
	if err != nil {
		t.Fatal(err)
	}
	type chooser interface {
		ChooseAction(context.Context, games.State) (int, error)
	}
	rng := newRNG(3)
	g := connect4Game(t)
	for _, tc := range []struct {
		name string
		p    chooser
	}{{"puct+rollouts", pl}, {"uct", uct}} {
		wins := 0
		const n = 20
		for i := range n {
			s := g.NewInitialState()
			me := i % 2
			for !s.IsTerminal() {
				var a int
				if s.CurrentPlayer() == me {
					if a, err = tc.p.ChooseAction(context.Background(), s); err != nil {
						t.Fatal(err)
					}
				} else {
					legal := s.LegalActions(nil)
					a = legal[rng.IntN(len(legal))]
				}
				if err := games.Play(s, a); err != nil {
					t.Fatal(err)
				}
			}
			if s.Returns()[me] > 0 {
				wins++
			}
		}
		if wins < n-2 {
			t.Errorf("%s won %d of %d games against random play", tc.name, wins, n)
		}
	}
}
