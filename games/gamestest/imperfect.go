package gamestest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"tabula/games"
)

// CheckImperfect plays cfg.Games random games of g, a game of imperfect
// information (games.Imperfect), and fails t unless at every state, for
// each player p: InformationStateString(p) does not change when the state
// is cloned or another state is resampled; a few states Resample(p) draws
// have the same information state for p, move number, player to move and
// (at decision nodes of p: a deal's outcomes depend on the hidden cards,
// and in phantom games the opponent's legal actions are hidden from p)
// legal actions; resampling leaves the receiver unchanged; and the
// information states of the two players differ (each names its seat).
func CheckImperfect(t *testing.T, g games.Game, cfg Config) {
	t.Helper()
	if err := verifyImperfect(g, cfg); err != nil {
		t.Fatal(err)
	}
}

// verifyImperfect is CheckImperfect without the testing.T.
func verifyImperfect(g games.Game, cfg Config) error {
	if err := games.RequireImperfect(g, "gamestest"); err != nil {
		return err
	}
	if cfg.Games <= 0 {
		cfg.Games = 200
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x1f0))
	var history []int
	for game := 0; game < cfg.Games; game++ {
		history = history[:0]
		s := g.NewInitialState().(games.InformationState)
		for {
			if err := checkInfoState(s, rng); err != nil {
				return fmt.Errorf("%s: game %d after moves %v: %v", g.Name(), game, history, err)
			}
			if s.IsTerminal() {
				break
			}
			legal := s.LegalActions(nil)
			a := legal[rng.IntN(len(legal))]
			if games.IsChanceNode(s) {
				a, _ = games.SampleChance(s, rng)
			}
			s.ApplyAction(a)
			history = append(history, a)
		}
	}
	return nil
}

func checkInfoState(s games.InformationState, rng *rand.Rand) error {
	h, str := s.Hash(), s.String()
	keys := [2]string{s.InformationStateString(0), s.InformationStateString(1)}
	if keys[0] == keys[1] {
		return fmt.Errorf("both players have the information state %q", keys[0])
	}
	if c := s.Clone().(games.InformationState); c.InformationStateString(0) != keys[0] || c.InformationStateString(1) != keys[1] {
		return fmt.Errorf("a clone has other information states")
	}
	legal := s.LegalActions(nil)
	for p := 0; p < 2; p++ {
		for i := 0; i < 3; i++ {
			r, ok := s.Resample(p, rng).(games.InformationState)
			if !ok {
				return fmt.Errorf("Resample(%d) returned a state without information states", p)
			}
			if got := r.InformationStateString(p); got != keys[p] {
				return fmt.Errorf("Resample(%d) changed player %d's information state from %q to %q", p, p, keys[p], got)
			}
			if r.MoveNumber() != s.MoveNumber() || r.IsTerminal() != s.IsTerminal() ||
				(!s.IsTerminal() && r.CurrentPlayer() != s.CurrentPlayer()) ||
				(!games.IsChanceNode(s) && (s.IsTerminal() || s.CurrentPlayer() == p) && !slices.Equal(r.LegalActions(nil), legal)) {
				return fmt.Errorf("Resample(%d) gave %s: another move number, player to move or legal actions than %s", p, r, s)
			}
		}
	}
	if s.Hash() != h || s.String() != str {
		return fmt.Errorf("resampling changed the state")
	}
	return nil
}
