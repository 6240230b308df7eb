package players

import (
	"context"
	"math"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/chess"
	"tabula/games/connect4"
	"tabula/games/othello"
	"tabula/games/tictactoe"
)

// TestAlphaBetaEvalSwitch checks that eval=tuned searches with the tuned
// weights and eval=hand (the default) with the game's own: a depth-1
// search's value is the best child's negated evaluation under the named
// weights.
func TestAlphaBetaEvalSwitch(t *testing.T) {
	g := chess.Game{}
	s, err := g.NewState("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
	if err != nil {
		t.Fatal(err)
	}
	want := func(w *chess.Weights) float64 {
		best := math.Inf(-1)
		for _, a := range s.LegalActions(nil) {
			c := s.Clone()
			c.ApplyAction(a)
			best = max(best, -chess.Evaluator{W: w}.Evaluate(c))
		}
		return best
	}
	hand, tuned := want(&chess.DefaultWeights), want(&chess.TunedWeights)
	if hand == tuned {
		t.Fatal("the tuned and hand weights score this position alike; pick another")
	}
	for _, c := range []struct {
		eval string
		want float64
	}{{"", hand}, {",eval=hand", hand}, {",eval=tuned", tuned}} {
		p := mustNewPlayer(t, g, "alphabeta:depth=1,qs=0,futility=0,ext=0"+c.eval, 1)
		if _, err := p.ChooseAction(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		if got := p.(Valuer).Value(); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("eval %q: value %v, want %v (hand %v, tuned %v)", c.eval, got, c.want, hand, tuned)
		}
	}
}

func TestAlphaBetaEvalRefused(t *testing.T) {
	for _, c := range []struct {
		g    games.Game
		spec string
		want string
	}{
		{chess.Game{}, "alphabeta:eval=magic", `eval="magic": want hand, tuned or basic (chess)`},
		{tictactoe.Game{}, "alphabeta:eval=tuned", "no tuned weights for tictactoe"},
		{tictactoe.Game{}, "alphabeta:eval=basic", "eval=basic is for chess only, not tictactoe"},
		{othello6(t), "alphabeta:eval=tuned", "fitted on the 8x8 board, not 6x6"},
	} {
		sp, err := ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Build(c.g, sp); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s in %s: error %v, want one containing %q", c.spec, c.g.Name(), err, c.want)
		}
	}
}

func othello6(t *testing.T) games.Game {
	g, err := othello.New(6)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestAlphaBetaEvalSwitchSmallGames checks eval=tuned in Connect Four and
// Othello as TestAlphaBetaEvalSwitch does in chess.
func TestAlphaBetaEvalSwitchSmallGames(t *testing.T) {
	og, err := othello.New(8)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		g     games.Game
		moves string
		tuned games.Heuristic
	}{
		{connect4.Game{}, "4435", connect4.Evaluator{W: &connect4.TunedWeights}},
		{og, "f5d6c3d3c4", othello.Evaluator{G: og, W: &othello.TunedWeights}},
	} {
		actions, err := c.g.(games.Notation).ParseActions(c.moves)
		if err != nil {
			t.Fatal(err)
		}
		s, err := games.Replay(c.g, actions)
		if err != nil {
			t.Fatal(err)
		}
		want := func(h games.Heuristic) float64 {
			best := math.Inf(-1)
			for _, a := range s.LegalActions(nil) {
				ch := s.Clone()
				ch.ApplyAction(a)
				best = max(best, -h.Evaluate(ch))
			}
			return best
		}
		hand, tuned := want(c.g.(games.Heuristic)), want(c.tuned)
		if hand == tuned {
			t.Fatalf("%s: hand and tuned alike", c.g.Name())
		}
		for _, e := range []struct {
			spec string
			want float64
		}{{"alphabeta:depth=1", hand}, {"alphabeta:depth=1,eval=tuned", tuned}} {
			p := mustNewPlayer(t, c.g, e.spec, 1)
			if _, err := p.ChooseAction(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			if got := p.(Valuer).Value(); math.Abs(got-e.want) > 1e-12 {
				t.Errorf("%s %s: value %v, want %v", c.g.Name(), e.spec, got, e.want)
			}
		}
	}
}
