package gamestest

import (
	"math/rand/v2"
	"testing"

	"tabula/games"
)

func init() {
	for _, b := range []string{"probsum", "outcomes", "nondeterministic"} {
		g := &diceRace{broken: b}
		games.Register(g.Name(), "test game of chance", nil, func(games.Params) (games.Game, error) { return g, nil })
	}
}

func TestCheckPassesOnChanceGame(t *testing.T) {
	Check(t, DiceRace(), Config{Games: 300, Seed: 1, Transpositions: true})
}

func TestCheckCatchesBrokenChanceGames(t *testing.T) {
	for _, b := range []string{"probsum", "outcomes", "nondeterministic"} {
		t.Run(b, func(t *testing.T) {
			err := verify(&diceRace{broken: b}, Config{Games: 100, Seed: 1})
			if err == nil {
				t.Fatalf("a game broken by %q passed the checker", b)
			}
			t.Logf("caught: %v", err)
		})
	}
}

// TestCheckSamplingCatchesMismatch feeds checkSampling probabilities other
// than those the state samples from: the chi-square test must reject them.
func TestCheckSamplingCatchesMismatch(t *testing.T) {
	g := &diceRace{}
	c := &checker{g: g, cfg: Config{ChanceSamples: 20000}, rng: rand.New(rand.NewPCG(1, 2))}
	s := g.NewInitialState()
	right := s.(games.ChanceState).ChanceOutcomes(nil)
	if err := c.checkSampling(s, right); err != nil {
		t.Fatalf("the true probabilities were rejected: %v", err)
	}
	wrong := []games.ChanceOutcome{{Action: 0, Prob: 0.45}, {Action: 1, Prob: 0.35}, {Action: 2, Prob: 0.2}}
	if err := c.checkSampling(s, wrong); err == nil {
		t.Fatal("probabilities 0.45/0.35/0.2 passed for a die sampled at 1/2, 1/3, 1/6")
	} else {
		t.Logf("caught: %v", err)
	}
}

func TestRequireDeterministic(t *testing.T) {
	if err := games.RequireDeterministic(&tictactoe{}, "alpha-beta"); err != nil {
		t.Fatalf("tic-tac-toe refused: %v", err)
	}
	err := games.RequireDeterministic(&diceRace{}, "alpha-beta")
	if err == nil {
		t.Fatal("a game of chance was not refused")
	}
	if want := "alpha-beta: game dicerace has chance nodes"; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Fatalf("error %q does not name the algorithm and the game", err)
	}
}
