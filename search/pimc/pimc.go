// Package pimc plays games of imperfect information by Perfect Information
// Monte Carlo (Levy 1989; Ginsberg's GIB, 2001; "averaging over
// clairvoyance" in Russell and Norvig): at each decision it draws
// determinisations, full states consistent with what the mover has seen
// (games.InformationState.Resample), solves each exactly as a game of
// perfect information, averages every action's value over them and plays
// the best.
//
// Each determinisation is searched with full information: the solver reads
// the whole state, every hidden card or mark included. Where the state
// offers a smaller perfect-information equivalent (games.Clairvoyant:
// phantom tic-tac-toe gives its true board as a tic-tac-toe position) that
// is searched instead, and an action legal for the mover but not there (a
// move onto a hidden opponent mark) is valued as the position itself.
//
// The solver is exact expectiminimax with a table of solved positions keyed
// by Hash, kept across samples and moves (a position's value does not
// depend on who asks), or a game's own exact solver (Config.Exact). Alpha-beta is not used: averaging needs every
// action's exact value, where alpha-beta bounds all but the best one.
//
// PIMC is known to go wrong in two ways (Frank and Basin 1998; Long et al.
// 2010): strategy fusion, since each determinisation's solution may choose
// differently at states the player cannot tell apart, and non-locality. It
// never bluffs in poker: each determinised opponent sees its cards.
package pimc

import (
	"context"
	"fmt"
	"math/rand/v2"

	"tabula/games"
)

// Config tunes a Player.
type Config struct {
	// Samples is the number of determinisations per decision.
	Samples int
	// MaxTable bounds the table of solved positions; it is cleared when
	// full (default 1<<20).
	MaxTable int
	// Exact, when set, values a determinised position in place of the
	// built-in expectiminimax: player 0's exact value in Returns units and
	// true, or false for a position it does not handle (which the built-in
	// search then solves). A game-specific solver plugs in here, such as
	// the double-dummy solver of whist (search/doubledummy).
	Exact func(s games.State) (float64, bool)
}

// Validate checks the ranges.
func (c Config) Validate() error {
	if c.Samples < 1 {
		return fmt.Errorf("pimc: samples %d, want at least 1", c.Samples)
	}
	if c.MaxTable < 0 {
		return fmt.Errorf("pimc: table size %d, want at least 0", c.MaxTable)
	}
	return nil
}

// Player chooses moves by PIMC. It is not safe for concurrent use.
type Player struct {
	cfg   Config
	rng   *rand.Rand
	table map[uint64]float64 // Hash -> value for player 0
	buf   []int
}

// New returns a PIMC player for g, which must be a game of imperfect
// information (games.RequireImperfect).
func New(g games.Game, cfg Config, rng *rand.Rand) (*Player, error) {
	if err := games.RequireImperfect(g, "pimc"); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxTable == 0 {
		cfg.MaxTable = 1 << 20
	}
	return &Player{cfg: cfg, rng: rng, table: map[uint64]float64{}}, nil
}

// ActionValues returns the mover's legal actions in s and, for each, its
// value to the mover averaged over cfg.Samples determinisations drawn from
// the mover's information state (in Returns units).
func (p *Player) ActionValues(ctx context.Context, s games.State) ([]int, []float64, error) {
	if s.IsTerminal() {
		return nil, nil, fmt.Errorf("pimc: the game is over")
	}
	if games.IsChanceNode(s) {
		return nil, nil, fmt.Errorf("pimc: asked to move at a chance node")
	}
	is, ok := s.(games.InformationState)
	if !ok {
		return nil, nil, fmt.Errorf("pimc: game %s has no information states", s.Game().Name())
	}
	me := s.CurrentPlayer()
	sign := 1.0
	if me == 1 {
		sign = -1
	}
	actions := s.LegalActions(nil)
	values := make([]float64, len(actions))
	for i := 0; i < p.cfg.Samples; i++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		d := is.Resample(me, p.rng)
		var full games.State
		if c, ok := d.(games.Clairvoyant); ok {
			full = c.FullInformationState()
		}
		for k, a := range actions {
			var v float64
			switch {
			case full == nil:
				c := d.Clone()
				c.ApplyAction(a)
				v = p.value(c)
			case full.IsLegal(a):
				c := full.Clone()
				c.ApplyAction(a)
				v = p.value(c)
			default:
				v = p.value(full)
			}
			values[k] += sign * v
		}
	}
	for k := range values {
		values[k] /= float64(p.cfg.Samples)
	}
	return actions, values, nil
}

// ChooseAction plays the action of highest average value, ties broken at
// random.
func (p *Player) ChooseAction(ctx context.Context, s games.State) (int, error) {
	actions, values, err := p.ActionValues(ctx, s)
	if err != nil {
		return 0, err
	}
	best := Best(values)
	return actions[best[p.rng.IntN(len(best))]], nil
}

// Best returns the indices of the values within 1e-9 of the largest.
func Best(values []float64) []int {
	var out []int
	for k, v := range values {
		switch {
		case len(out) == 0 || v > values[out[0]]+1e-9:
			out = append(out[:0], k)
		case v >= values[out[0]]-1e-9:
			out = append(out, k)
		}
	}
	return out
}

// value returns player 0's exact expectiminimax value of s, read as a game
// of perfect information.
func (p *Player) value(s games.State) float64 {
	if s.IsTerminal() {
		return s.Returns()[0]
	}
	if p.cfg.Exact != nil {
		if v, ok := p.cfg.Exact(s); ok {
			return v
		}
	}
	h := s.Hash()
	if v, ok := p.table[h]; ok {
		return v
	}
	var v float64
	if cs, ok := s.(games.ChanceState); ok && cs.IsChanceNode() {
		for _, o := range cs.ChanceOutcomes(nil) {
			c := s.Clone()
			c.ApplyAction(o.Action)
			v += o.Prob * p.value(c)
		}
	} else {
		maximise := s.CurrentPlayer() == 0
		p.buf = s.LegalActions(p.buf)
		legal := append([]int(nil), p.buf...)
		for k, a := range legal {
			c := s.Clone()
			c.ApplyAction(a)
			w := p.value(c)
			if k == 0 || (maximise && w > v) || (!maximise && w < v) {
				v = w
			}
		}
	}
	if len(p.table) >= p.cfg.MaxTable {
		clear(p.table)
	}
	p.table[h] = v
	return v
}
