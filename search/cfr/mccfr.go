package cfr

import "math/rand/v2"

// External-sampling Monte Carlo CFR (Lanctot, Waugh, Zinkevich & Bowling
// 2009, "Monte Carlo Sampling for Regret Minimization in Extensive Games",
// NIPS; Lanctot's thesis 2013, ch. 4). Each iteration walks the tree once
// per player i, the traverser: at chance nodes and at the opponent's nodes
// it samples one child (chance by its probabilities, the opponent by its
// current strategy), at i's nodes it tries every action. The regret of
// action a at i's information set I grows by v(I,a) - v(I), the sampled
// counterfactual values, which are unbiased estimates of the true ones
// scaled by a constant; the average strategy grows, at the opponent's
// sampled nodes, by the current strategy there (OpenSpiel's "simple"
// averaging). One iteration touches about the square root of the tree
// instead of all of it, so many more fit in a second; each is noisier.

// runExternal performs n external-sampling iterations.
func (s *Solver) runExternal(n int) {
	for ; n > 0; n-- {
		s.iter++
		for p := 0; p < 2; p++ {
			s.sampled(0, p)
		}
	}
}

// regretMatch writes into σ the current strategy at the information set
// whose slots start at off: regret matching on the cumulative regrets.
func (s *Solver) regretMatch(off int, σ []float64) {
	r := s.regret[off : off+len(σ)]
	sum := 0.0
	for _, x := range r {
		sum += max(x, 0)
	}
	for k, x := range r {
		if sum > 0 {
			σ[k] = max(x, 0) / sum
		} else {
			σ[k] = 1 / float64(len(σ))
		}
	}
}

// sampled returns the sampled value for player p of the subtree at n and
// updates p's regrets and the opponent's average strategy on the way.
func (s *Solver) sampled(n int32, p int) float64 {
	nd := &s.t.nodes[n]
	switch nd.kind {
	case terminal:
		s.visits++
		if p == 0 {
			return nd.value
		}
		return -nd.value
	case chance:
		s.visits++
		return s.sampled(s.t.child[int(nd.first)+pick(s.rng, s.t.prob[nd.first:nd.first+nd.n])], p)
	}
	s.visits++
	off := s.t.infosets[nd.infoset].offset
	var buf [8]float64
	σ := buf[:0]
	if int(nd.n) > len(buf) {
		σ = make([]float64, 0, nd.n)
	}
	σ = σ[:nd.n]
	s.regretMatch(off, σ)
	kids := s.t.child[nd.first : nd.first+nd.n]
	if int(nd.player) != p {
		for k, x := range σ {
			s.avg[off+k] += x
		}
		return s.sampled(kids[pick(s.rng, σ)], p)
	}
	var vbuf [8]float64
	vs := vbuf[:0]
	if len(kids) > len(vbuf) {
		vs = make([]float64, 0, len(kids))
	}
	v := 0.0
	for k, c := range kids {
		x := s.sampled(c, p)
		vs = append(vs, x)
		v += σ[k] * x
	}
	for k := range kids {
		s.regret[off+k] += vs[k] - v
	}
	return v
}

// pick draws an index with the given probabilities (summing to 1 up to
// rounding; the last index takes what rounding leaves).
func pick(rng *rand.Rand, probs []float64) int {
	u := rng.Float64()
	for k, q := range probs {
		if u < q {
			return k
		}
		u -= q
	}
	return len(probs) - 1
}
