package cfr

import (
	"fmt"
	"slices"

	"tabula/games"
)

// BestResponse returns what each player gains, in expectation, by playing a
// best response to the other's average strategy: element p is player p's
// best-response value. A best response chooses, at each of its information
// sets, the action of highest counterfactual value: the sum over the set's
// histories of the opponent's and chance's probability of reaching the
// history times the value of the action there, with the responder's deeper
// choices already made (perfect recall makes that well founded). This is
// the computation of OpenSpiel's TabularBestResponse.
func (s *Solver) BestResponse() [2]float64 {
	pol := make([]float64, s.t.slots)
	s.averageSlots(pol)
	return [2]float64{s.bestResponse(0, pol), s.bestResponse(1, pol)}
}

// Exploitability returns the mean of the two best-response values of the
// average strategy (OpenSpiel's Exploitability, NashConv over 2): 0 exactly
// at an equilibrium of a zero-sum game, in Returns units.
func (s *Solver) Exploitability() float64 {
	br := s.BestResponse()
	return (br[0] + br[1]) / 2
}

// bestResponse returns the value for player p of its best response to pol.
func (s *Solver) bestResponse(p int, pol []float64) float64 {
	clear(s.done)
	for i := range s.best {
		s.best[i] = -1
	}
	s.reachOthers(0, p, 1, pol)
	return s.brValue(0, p, pol)
}

// reachOthers sets reach[n] for the subtree at n: the product of the chance
// and the opponent-of-p probabilities on the way to n (r at n).
func (s *Solver) reachOthers(n int32, p int, r float64, pol []float64) {
	s.reach[n] = r
	nd := &s.t.nodes[n]
	kids := s.t.child[nd.first : nd.first+nd.n]
	switch {
	case nd.kind == terminal:
	case nd.kind == chance:
		for k, c := range kids {
			s.reachOthers(c, p, r*s.t.prob[int(nd.first)+k], pol)
		}
	case int(nd.player) == p:
		for _, c := range kids {
			s.reachOthers(c, p, r, pol)
		}
	default:
		off := s.t.infosets[nd.infoset].offset
		for k, c := range kids {
			s.reachOthers(c, p, r*pol[off+k], pol)
		}
	}
}

// brValue returns player p's value at n when p best-responds to pol.
func (s *Solver) brValue(n int32, p int, pol []float64) float64 {
	if s.done[n] {
		return s.memo[n]
	}
	nd := &s.t.nodes[n]
	kids := s.t.child[nd.first : nd.first+nd.n]
	v := 0.0
	switch {
	case nd.kind == terminal:
		v = nd.value
		if p == 1 {
			v = -v
		}
	case nd.kind == chance:
		for k, c := range kids {
			v += s.t.prob[int(nd.first)+k] * s.brValue(c, p, pol)
		}
	case int(nd.player) == p:
		v = s.brValue(kids[s.bestAction(nd.infoset, p, pol)], p, pol)
	default:
		off := s.t.infosets[nd.infoset].offset
		for k, c := range kids {
			if q := pol[off+k]; q > 0 {
				v += q * s.brValue(c, p, pol)
			}
		}
	}
	s.memo[n], s.done[n] = v, true
	return v
}

// bestAction returns the index, among the legal actions, of p's best
// response at information set is.
func (s *Solver) bestAction(is int32, p int, pol []float64) int32 {
	if b := s.best[is]; b >= 0 {
		return b
	}
	width := len(s.t.infosets[is].actions)
	best, bestV := int32(0), 0.0
	for k := 0; k < width; k++ {
		v := 0.0
		for _, h := range s.nodes[is] {
			nd := &s.t.nodes[h]
			v += s.reach[h] * s.brValue(s.t.child[int(nd.first)+k], p, pol)
		}
		if k == 0 || v > bestV {
			best, bestV = int32(k), v
		}
	}
	s.best[is] = best
	return best
}

// BestResponseTo returns, as BestResponse does for the average strategy,
// what each player gains by a best response to pol, a strategy of both
// players over this solver's game (from another algorithm: a PIMC player's
// choices, say). pol must give a distribution over the legal actions of
// every information set, in the order of LegalActions.
func (s *Solver) BestResponseTo(pol Policy) ([2]float64, error) {
	slots := make([]float64, s.t.slots)
	for _, is := range s.t.infosets {
		ap, ok := pol[is.key]
		if !ok {
			return [2]float64{}, fmt.Errorf("cfr: the policy has no entry for information state %q", is.key)
		}
		if !slices.Equal(ap.Actions, is.actions) || len(ap.Probs) != len(is.actions) {
			return [2]float64{}, fmt.Errorf("cfr: the policy at %q has actions %v, the game %v", is.key, ap.Actions, is.actions)
		}
		copy(slots[is.offset:], ap.Probs)
	}
	return [2]float64{s.bestResponse(0, slots), s.bestResponse(1, slots)}, nil
}

// InformationStates returns one state of every information set of g's
// decision nodes, keyed by the mover's information-state key, found by
// walking the whole game tree (at most maxNodes histories), for building
// a policy from a player that chooses at states (BestResponseTo).
func InformationStates(g games.Game, maxNodes int) (map[string]games.State, error) {
	out := map[string]games.State{}
	n := 0
	var walk func(s games.State) error
	walk = func(s games.State) error {
		if n++; n > maxNodes {
			return fmt.Errorf("cfr: game %s has more than %d histories", g.Name(), maxNodes)
		}
		if s.IsTerminal() {
			return nil
		}
		if !games.IsChanceNode(s) {
			key := s.(games.InformationState).InformationStateString(s.CurrentPlayer())
			if _, ok := out[key]; !ok {
				out[key] = s.Clone()
			}
		}
		for _, a := range s.LegalActions(nil) {
			c := s.Clone()
			c.ApplyAction(a)
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := games.RequireImperfect(g, "cfr"); err != nil {
		return nil, err
	}
	return out, walk(g.NewInitialState())
}
