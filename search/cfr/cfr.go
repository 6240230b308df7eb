// Package cfr solves two-player zero-sum games of imperfect information
// (games.Imperfect) by counterfactual regret minimisation over their
// information sets, keyed by InformationStateString: vanilla CFR (Zinkevich
// et al. 2007, "Regret Minimization in Games with Incomplete Information")
// and CFR+ (Tammelin 2014, "Solving Large Imperfect Information Games Using
// CFR+": regret matching+, linear averaging). Both use alternating updates,
// as OpenSpiel's CFRSolver does; and external-sampling Monte Carlo CFR
// (mccfr.go). The average strategy converges to a Nash equilibrium;
// Exploitability measures how far it is, by an exact best response of each
// player. SolveLP (seqform.go) finds an equilibrium another way, by the
// sequence-form linear program solved by GLPK's glpsol, as a referee.
//
// The whole game tree, chance included, is built once and held in memory as
// flat arrays (tree.go), so the game must be small enough for that (Kuhn
// poker: 58 nodes; Leduc hold'em: 1,939); Config.MaxNodes bounds it.
// Values are in the game's Returns units (poker: chips over the game's
// MaxWin).
package cfr

import (
	"fmt"
	"math/rand/v2"

	"tabula/games"
)

// Config tunes a Solver.
type Config struct {
	// Plus selects CFR+ (regret matching+, averaging weighted by the
	// iteration) instead of vanilla CFR.
	Plus bool
	// MaxNodes bounds the game tree (default 1<<24 nodes).
	MaxNodes int
	// ExternalSampling selects external-sampling Monte Carlo CFR
	// (mccfr.go) instead of full-tree iterations; it excludes Plus.
	ExternalSampling bool
	// Seed seeds the random numbers of ExternalSampling.
	Seed uint64
}

// Validate checks the ranges.
func (c Config) Validate() error {
	if c.MaxNodes < 0 {
		return fmt.Errorf("cfr: MaxNodes = %d, want >= 0 (0: the default)", c.MaxNodes)
	}
	if c.Plus && c.ExternalSampling {
		return fmt.Errorf("cfr: Plus and ExternalSampling both set; choose one")
	}
	return nil
}

// Solver runs CFR iterations on one game. It is not safe for concurrent
// use; AveragePolicy may be called concurrently once iterations are over.
type Solver struct {
	cfg    Config
	t      *tree
	regret []float64 // cumulative regret per (infoset, action) slot
	avg    []float64 // cumulative strategy weights per slot
	strat  []float64 // the current strategy per slot
	iter   int
	rng    *rand.Rand // external sampling
	visits int64      // nodes visited by iterations so far
	// best-response scratch
	reach []float64
	memo  []float64
	done  []bool
	best  []int32
	nodes [][]int32 // decision nodes of each infoset
}

// New builds the game tree of g and a solver for it. g must be a game of
// imperfect information (games.RequireImperfect); a perfect-information game
// has no information-state keys to solve over.
func New(g games.Game, cfg Config) (*Solver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := games.RequireImperfect(g, "cfr"); err != nil {
		return nil, err
	}
	if cfg.MaxNodes == 0 {
		cfg.MaxNodes = 1 << 24
	}
	t, err := buildTree(g, cfg.MaxNodes)
	if err != nil {
		return nil, fmt.Errorf("cfr: %w", err)
	}
	s := &Solver{cfg: cfg, t: t,
		regret: make([]float64, t.slots), avg: make([]float64, t.slots), strat: make([]float64, t.slots),
		reach: make([]float64, len(t.nodes)), memo: make([]float64, len(t.nodes)), done: make([]bool, len(t.nodes)),
		best: make([]int32, len(t.infosets)), nodes: make([][]int32, len(t.infosets)),
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x7461627563667221))}
	for n, nd := range t.nodes {
		if nd.kind == decision {
			s.nodes[nd.infoset] = append(s.nodes[nd.infoset], int32(n))
		}
	}
	return s, nil
}

// NumNodes is the number of histories in the game tree, terminal and chance
// nodes included.
func (s *Solver) NumNodes() int { return len(s.t.nodes) }

// NumInfosets returns the number of information sets of each player.
func (s *Solver) NumInfosets() [2]int {
	var n [2]int
	for _, is := range s.t.infosets {
		n[is.player]++
	}
	return n
}

// Iterations returns the iterations run so far.
func (s *Solver) Iterations() int { return s.iter }

// Visits returns the tree nodes the iterations so far have visited, for
// measuring traversal speed.
func (s *Solver) Visits() int64 { return s.visits }

// Run performs n iterations. Each updates player 0's regrets against the
// current strategies, then player 1's against player 0's updated ones
// (with ExternalSampling: on one sampled walk each, mccfr.go).
func (s *Solver) Run(n int) {
	if s.cfg.ExternalSampling {
		s.runExternal(n)
		return
	}
	for ; n > 0; n-- {
		s.iter++
		w := 1.0
		if s.cfg.Plus {
			w = float64(s.iter)
		}
		for p := 0; p < 2; p++ {
			s.currentStrategy()
			s.walk(0, p, 1, 1, w)
			s.visits += int64(len(s.t.nodes))
			if s.cfg.Plus {
				for _, is := range s.t.infosets {
					if is.player != p {
						continue
					}
					for k := is.offset; k < is.offset+len(is.actions); k++ {
						s.regret[k] = max(s.regret[k], 0)
					}
				}
			}
		}
	}
}

// currentStrategy sets strat by regret matching: each action in proportion
// to its positive regret, uniform when none is positive.
func (s *Solver) currentStrategy() {
	for _, is := range s.t.infosets {
		r := s.regret[is.offset : is.offset+len(is.actions)]
		σ := s.strat[is.offset : is.offset+len(is.actions)]
		sum := 0.0
		for _, x := range r {
			sum += max(x, 0)
		}
		for k, x := range r {
			if sum > 0 {
				σ[k] = max(x, 0) / sum
			} else {
				σ[k] = 1 / float64(len(r))
			}
		}
	}
}

// walk returns the value for player p of the subtree at n under the current
// strategies, where p's own actions reach n with probability reachP and
// chance's and the opponent's with reachO, and at p's decision nodes adds
// the counterfactual regrets (weighted by reachO) and the strategy (by
// w*reachP) to the cumulative tables.
func (s *Solver) walk(n int32, p int, reachP, reachO, w float64) float64 {
	nd := &s.t.nodes[n]
	kids := s.t.child[nd.first : nd.first+nd.n]
	switch nd.kind {
	case terminal:
		if p == 0 {
			return nd.value
		}
		return -nd.value
	case chance:
		v := 0.0
		for k, c := range kids {
			q := s.t.prob[int(nd.first)+k]
			v += q * s.walk(c, p, reachP, reachO*q, w)
		}
		return v
	}
	off := s.t.infosets[nd.infoset].offset
	σ := s.strat[off : off+len(kids)]
	v := 0.0
	if int(nd.player) != p {
		for k, c := range kids {
			v += σ[k] * s.walk(c, p, reachP, reachO*σ[k], w)
		}
		return v
	}
	var buf [8]float64
	vs := buf[:0]
	if len(kids) > len(buf) {
		vs = make([]float64, 0, len(kids))
	}
	for k, c := range kids {
		x := s.walk(c, p, reachP*σ[k], reachO, w)
		vs = append(vs, x)
		v += σ[k] * x
	}
	for k := range kids {
		s.regret[off+k] += reachO * (vs[k] - v)
		s.avg[off+k] += w * reachP * σ[k]
	}
	return v
}

// averageSlots writes the average strategy of every information set into
// dst (one entry per slot): the cumulative strategy normalised, uniform
// where it is all zero.
func (s *Solver) averageSlots(dst []float64) {
	for _, is := range s.t.infosets {
		a := s.avg[is.offset : is.offset+len(is.actions)]
		d := dst[is.offset : is.offset+len(is.actions)]
		sum := 0.0
		for _, x := range a {
			sum += x
		}
		for k, x := range a {
			if sum > 0 {
				d[k] = x / sum
			} else {
				d[k] = 1 / float64(len(a))
			}
		}
	}
}

// Policy is a strategy for both players: for each information-state key,
// the legal actions and their probabilities.
type Policy map[string]ActionProbs

// ActionProbs is a distribution over the legal actions of an information
// set.
type ActionProbs struct {
	Actions []int
	Probs   []float64
}

// AveragePolicy returns the average strategy so far, the one that converges
// to an equilibrium.
func (s *Solver) AveragePolicy() Policy {
	d := make([]float64, s.t.slots)
	s.averageSlots(d)
	pol := make(Policy, len(s.t.infosets))
	for _, is := range s.t.infosets {
		pol[is.key] = ActionProbs{Actions: is.actions, Probs: d[is.offset : is.offset+len(is.actions)]}
	}
	return pol
}

// Value returns player 0's expected return when both players play the
// average strategy.
func (s *Solver) Value() float64 {
	d := make([]float64, s.t.slots)
	s.averageSlots(d)
	return s.expected(0, d)
}

func (s *Solver) expected(n int32, pol []float64) float64 {
	nd := &s.t.nodes[n]
	kids := s.t.child[nd.first : nd.first+nd.n]
	var probs []float64
	switch nd.kind {
	case terminal:
		return nd.value
	case chance:
		probs = s.t.prob[nd.first : nd.first+nd.n]
	default:
		off := s.t.infosets[nd.infoset].offset
		probs = pol[off : off+len(kids)]
	}
	v := 0.0
	for k, c := range kids {
		if probs[k] > 0 {
			v += probs[k] * s.expected(c, pol)
		}
	}
	return v
}
