package players

import (
	"context"
	"fmt"
	"math/rand/v2"

	"tabula/games"
	"tabula/games/whist"
	"tabula/mcts"
	"tabula/search/cfr"
	"tabula/search/doubledummy"
	"tabula/search/pimc"
)

// buildPIMC returns a factory of PIMC players, each with its own table of
// solved positions.
func buildPIMC(g games.Game, spec Spec) (*Factory, error) {
	name := spec.String()
	cfg := pimc.Config{Samples: spec.Int("samples", 50)}
	if _, err := pimc.New(g, cfg, rand.New(rand.NewPCG(0, 0))); err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	return &Factory{Name: name, New: func(rng *rand.Rand) (Player, error) {
		cfg := cfg
		if wg, ok := g.(*whist.Game); ok {
			cfg.Exact = doubledummy.New(wg).Exact // one solver per player: it is not safe for concurrent use
		}
		p, err := pimc.New(g, cfg, rng)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		return &named{name: name, chooser: p}, nil
	}}, nil
}

// buildISMCTS returns a factory of IS-MCTS players.
func buildISMCTS(g games.Game, spec Spec) (*Factory, error) {
	name := spec.String()
	cfg := mcts.ISMCTSConfig{Iterations: spec.Int("iters", 2000), C: spec.Float("c", 0.7)}
	if _, err := mcts.NewISMCTS(g, cfg, rand.New(rand.NewPCG(0, 0))); err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	return &Factory{Name: name, New: func(rng *rand.Rand) (Player, error) {
		p, err := mcts.NewISMCTS(g, cfg, rng)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		return &named{name: name, chooser: p}, nil
	}}, nil
}

// buildCFR solves g once with spec's iterations and returns a factory of
// players that all sample their moves from the solver's average strategy.
func buildCFR(g games.Game, spec Spec) (*Factory, error) {
	name := spec.String()
	mccfr := spec.Int("mccfr", 0) == 1
	if mccfr && spec.Has("plus") && spec.Int("plus", 1) == 1 {
		return nil, fmt.Errorf("player %s: mccfr=1 (external sampling) and plus=1 (CFR+) exclude each other", name)
	}
	cfg := cfr.Config{Plus: !mccfr && spec.Int("plus", 1) == 1, ExternalSampling: mccfr, Seed: uint64(spec.Int("seed", 1))}
	s, err := cfr.New(g, cfg)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	s.Run(spec.Int("iters", 10000))
	pol := s.AveragePolicy()
	return &Factory{Name: name, New: func(rng *rand.Rand) (Player, error) {
		return &cfrPlayer{name: name, pol: pol, rng: rng}, nil
	}}, nil
}

// cfrPlayer plays a fixed policy over information states: at each decision
// it looks up the mover's information state and draws an action from its
// probabilities. It reads nothing of the state beyond what the mover knows.
type cfrPlayer struct {
	name string
	pol  cfr.Policy
	rng  *rand.Rand
	last []float32
}

func (p *cfrPlayer) Name() string          { return p.name }
func (p *cfrPlayer) LastPolicy() []float32 { return p.last }
func (p *cfrPlayer) ChooseAction(_ context.Context, s games.State) (int, error) {
	if s.IsTerminal() {
		return 0, errGameOver
	}
	is, ok := s.(games.InformationState)
	if !ok {
		return 0, fmt.Errorf("player %s: game %s has no information states", p.name, s.Game().Name())
	}
	key := is.InformationStateString(s.CurrentPlayer())
	ap, ok := p.pol[key]
	if !ok {
		return 0, fmt.Errorf("player %s: information state %q is not in the solved policy", p.name, key)
	}
	if len(p.last) != s.Game().NumActions() {
		p.last = make([]float32, s.Game().NumActions())
	}
	clear(p.last)
	for k, a := range ap.Actions {
		p.last[a] = float32(ap.Probs[k])
	}
	u := p.rng.Float64()
	for k, q := range ap.Probs {
		if u < q {
			return ap.Actions[k], nil
		}
		u -= q
	}
	return ap.Actions[len(ap.Actions)-1], nil
}
