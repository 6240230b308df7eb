package mcts

import (
	"math"
	"math/bits"
	"unsafe"

	"tabula/internal/fastexp"
	"tabula/internal/prefetch"
)

// Search algorithms (Config.Search).
const (
	// SearchPUCT is AlphaZero's PUCT search.
	SearchPUCT = "puct"
	// SearchGumbel is Gumbel AlphaZero's search (Danihelka, Guez,
	// Schrittwieser and Silver, "Policy improvement by planning with
	// Gumbel", ICLR 2022).
	SearchGumbel = "gumbel"
)

// Gumbel search, as this package implements it.
//
// At the root, m = min(GumbelM, legal moves not proven lost) actions are
// drawn without replacement by Gumbel-top-k: the top m of g(a) + logit(a),
// with g(a) ~ Gumbel(0, 1) in self-play and g = 0 in Search and Player
// (match play: no noise). Sequential Halving then spends the search's
// simulations on them (gumbelSchedule): ceil(log2 m) phases, each giving the
// actions still in an even share of the budget; after each phase the best
// half by g(a) + logit(a) + sigma(q(a)) stays, and the last phase shares
// what is left of the budget between the last two. The action played is the
// survivor: the best by that score among the most visited actions.
//
// Below the root, the selection is the paper's deterministic one: the child
// maximising pi'(a) - N(a) / (1 + sum_b N(b)), where pi' = softmax(logit +
// sigma(completedQ)), N counts visits in flight too (they spread a batch),
// and completedQ is q(a) for visited children and the mixed value v_mix
// (the network's value of the node mixed with the prior-weighted q of the
// visited children) for the others. sigma(q) = (c_visit + max_b N(b))
// c_scale q, with q mapped from the game's value range [-1, 1] to [0, 1].
//
// The search's policy (Result.Policy, the policy target of self-play) is
// pi' at the root, not the visit distribution. Dirichlet noise and forced
// playouts do not apply (Validate refuses forced playouts): the Gumbel noise
// is the exploration and the survivor is the move. One addition to the
// paper: where the move's temperature is above 0 (self-play's
// temperature_moves opening moves), the move is drawn from the root visits
// raised to 1/temperature, as PUCT's is, so that self-play's openings vary
// as much as PUCT's (Sequential Halving's visits are spread: with 100
// simulations over 7 moves, 32/32/12/12/4/4/4); the policy target stays pi'.
// temperature_moves: 0 gives the paper's self-play (always the survivor). Tree reuse
// keeps the subtree as with PUCT; the q values at the root include the kept
// visits, while the schedule counts the visits of this search only. With the
// solver, a proven child counts at its exact value, children proven lost are
// neither considered nor visited while another move is open, and the policy
// keeps to the moves that achieve a proven root value (as PUCT's does).
// Chance nodes below the root are sampled as with PUCT.
//
// Batching: root actions follow the schedule as descents start, so leaves
// in flight take the next slots of the schedule. A halving decided while
// leaves of the phase are still in flight uses the q values known then.

// gumbelSchedule returns, into seq, the Sequential Halving plan of n
// simulations over m considered actions: seq[i] is the number of visits (in
// this search) that the action given simulation i has before it, so that
// simulation i goes to the best-scored action having exactly seq[i] visits.
// Phase k of ceil(log2 m) gives each of its r_k = ceil(m / 2^k) actions
// max(1, floor(n / (ceil(log2 m) r_k))) visits, round by round; the last
// phase (two actions) takes the rest of the budget. With m = 1 every
// simulation goes to the one action.
func gumbelSchedule(seq []int32, n, m int) []int32 {
	seq = seq[:0]
	if m <= 1 {
		for i := range n {
			seq = append(seq, int32(i))
		}
		return seq
	}
	phases := bits.Len(uint(m - 1)) // ceil(log2 m)
	r, base := m, 0
	for k := 0; len(seq) < n; k++ {
		per := max(1, n/(phases*r))
		if k >= phases-1 {
			per = n // the last phase: rounds until the budget is spent
		}
		for j := 0; j < per && len(seq) < n; j++ {
			for a := 0; a < r && len(seq) < n; a++ {
				seq = append(seq, int32(base+j))
			}
		}
		base += per
		r = (r + 1) / 2
	}
	return seq
}

// gumbelNoise draws from Gumbel(0, 1).
func (sr *searcher) gumbelNoise() float32 {
	u := sr.rng.Float64()
	for u == 0 {
		u = sr.rng.Float64()
	}
	return float32(-math.Log(-math.Log(u)))
}

// logit is the log of prior p, floored so that a zero prior stays finite.
func logit(p float32) float32 {
	return float32(math.Log(float64(max(p, 1e-30))))
}

// prepareGumbel draws the root's Gumbel noise, picks the considered actions
// and plans Sequential Halving over what is left of the search's budget.
func (sr *searcher) prepareGumbel() {
	r := &sr.t.nodes[0]
	es := sr.t.edges[r.first : r.first+r.count]
	k := len(es)
	sr.gScore = sr.gScore[:0]
	sr.gConsidered = sr.gConsidered[:0]
	sr.gStarted = sr.gStarted[:0]
	open := 0
	for j := range es {
		s := logit(es[j].p)
		if sr.gExplore {
			s += sr.gumbelNoise()
		}
		sr.gScore = append(sr.gScore, s)
		sr.gConsidered = append(sr.gConsidered, false)
		sr.gStarted = append(sr.gStarted, 0)
		if !(sr.cfg.Solver && sr.lostChild(&es[j], r.player)) {
			open++
		}
	}
	// Gumbel-top-m among the moves not proven lost (all moves if none is
	// open: the root is then solved and the search stops at once).
	m := min(sr.cfg.GumbelM, k)
	if open > 0 {
		m = min(m, open)
	}
	for range m {
		best := -1
		for j := range es {
			if sr.gConsidered[j] || (open > 0 && sr.cfg.Solver && sr.lostChild(&es[j], r.player)) {
				continue
			}
			if best < 0 || sr.gScore[j] > sr.gScore[best] {
				best = j
			}
		}
		sr.gConsidered[best] = true
	}
	sr.gM = m
	sr.gNext = 0
	sr.gSched = gumbelSchedule(sr.gSched, max(sr.target-sr.done-sr.inflight, 0), m)
}

// completedQ writes into q the completed Q-values of the children of
// expanded node i, for its player to move: the exact value of a solved
// child, the mean value of a visited one, and v_mix for the others. It
// returns the largest visit count of a child.
func (sr *searcher) completedQ(i int32, q []float32) (maxN int32) {
	nd := &sr.t.nodes[i]
	es := sr.t.edges[nd.first : nd.first+nd.count]
	var sumN, sumP, sumPQ, sumW float32
	for j := range es {
		e := &es[j]
		if e.n > 0 {
			qj := e.w / float32(e.n)
			sumN += float32(e.n)
			sumW += e.w
			sumP += e.p
			sumPQ += e.p * qj
			maxN = max(maxN, e.n)
		}
	}
	vmix := vMix(nd.v, sumN, sumP, sumPQ, sumW)
	for j := range es {
		e := &es[j]
		switch {
		case sr.cfg.Solver && e.child >= 0 && sr.t.nodes[e.child].solved:
			q[j] = sr.t.nodes[e.child].valueFor(nd.player)
		case sr.childEntry(e) >= 0:
			// Graph search: the child's position over all its visits.
			q[j] = sr.t.entryValue(sr.t.nodes[e.child].tp, nd.player)
		case e.n > 0:
			q[j] = e.w / float32(e.n)
		default:
			q[j] = vmix
		}
	}
	return maxN
}

// vMix is the mixed value of a node of network value v whose visited
// children have sumN visits, priors summing to sumP, prior-weighted mean
// values summing to sumPQ and values summing to sumW: v where no child is
// visited, else (v + sumN sum(p q) / sum(p)) / (1 + sumN), or the plain
// mean of all the values where the visited children have no prior.
func vMix(v, sumN, sumP, sumPQ, sumW float32) float32 {
	switch {
	case sumN > 0 && sumP > 0:
		return (v + sumN/sumP*sumPQ) / (1 + sumN)
	case sumN > 0:
		return (v + sumW) / (1 + sumN)
	}
	return v
}

// sigmaScale is the factor of q in sigma(q) = (c_visit + maxN) c_scale
// (q+1)/2, the constant part dropped (softmax and argmax ignore it).
func (sr *searcher) sigmaScale(maxN int32) float32 {
	return float32((sr.cfg.GumbelCVisit + float64(maxN)) * sr.cfg.GumbelCScale * 0.5)
}

// qBuf returns the searcher's scratch slice of n values.
func (sr *searcher) qBuf(n int) []float32 {
	if cap(sr.gq) < n {
		sr.gq = make([]float32, n)
	}
	return sr.gq[:n]
}

// gumbelRootEdge returns the root edge for the next descent by the
// Sequential Halving schedule, and counts the descent as started.
func (sr *searcher) gumbelRootEdge() int32 {
	r := &sr.t.nodes[0]
	es := sr.t.edges[r.first : r.first+r.count]
	q := sr.qBuf(len(es))
	scale := sr.sigmaScale(sr.completedQ(0, q))
	want := int32(-1)
	if sr.gNext < len(sr.gSched) {
		want = sr.gSched[sr.gNext]
	}
	skipLost := sr.cfg.Solver && !r.solved
	pick := func(considered bool) int {
		best, fallback := -1, -1
		var bestS, fbS float32
		for j := range es {
			if considered && !sr.gConsidered[j] || skipLost && sr.lostChild(&es[j], r.player) {
				continue
			}
			s := sr.gScore[j] + scale*q[j]
			if sr.gStarted[j] == want && (best < 0 || s > bestS) {
				best, bestS = j, s
			}
			// Off the schedule (a child proven lost left it short): the
			// least visited, then the best scored.
			if fallback < 0 || sr.gStarted[j] < sr.gStarted[fallback] || sr.gStarted[j] == sr.gStarted[fallback] && s > fbS {
				fallback, fbS = j, s
			}
		}
		if best < 0 {
			return fallback
		}
		return best
	}
	j := pick(true)
	if j < 0 {
		j = pick(false) // every considered move is proven lost
	}
	if j < 0 {
		j = 0 // every move is proven lost: the root is solved
	}
	sr.gStarted[j]++
	sr.gNext++
	return r.first + int32(j)
}

// unstartRoot undoes the count of a root descent along path that will not
// be backed up (it met a leaf already waiting, or its evaluation failed).
func (sr *searcher) unstartRoot(path []step) {
	if !sr.gumbel || len(path) == 0 || path[0].node != 0 {
		return
	}
	j := path[0].edge - sr.t.nodes[0].first
	if j >= 0 && int(j) < len(sr.gStarted) && sr.gStarted[j] > 0 {
		sr.gStarted[j]--
		sr.gNext--
	}
}

// gumbelSelect returns the child of expanded non-root node i maximising
// pi'(a) - N(a) / (1 + sum_b N(b)), visits in flight counted in N. With the
// solver, children proven lost are skipped while the node is open.
//
// It is completedQ and the selection in three passes over the edges, not
// five: selection below the root is most of the tree's time in self-play,
// and half of that was waiting for each level's edges, which it now asks
// for a level ahead. The children not yet visited (most of them) share one
// completed Q, v_mix, and so one exponential. The result is the same, to
// the bit, as completedQ's values put through the softmax
// (TestGumbelSelectMatchesCompletedQ).
func (sr *searcher) gumbelSelect(i int32) int32 {
	t := &sr.t
	nd := &t.nodes[i]
	es := t.edges[nd.first : nd.first+nd.count]
	q := sr.qBuf(len(es))
	solver, graph := sr.cfg.Solver, t.graph
	skipLost := solver && !nd.solved
	// Pass 1: v_mix's sums over the visited children, the visits with
	// those in flight, the completed Q of every child but those that take
	// v_mix (marked NaN), and the children proven lost.
	var sumN, sumP, sumPQ, sumW float32
	var maxN, sumNV int32
	qmax := float32(math.Inf(-1))
	nan := float32(math.NaN())
	plain := false
	lost := sr.gLost[:0]
	for j := range es {
		e := &es[j]
		n := e.n
		sumNV += n + e.vl
		if e.child < 0 {
			// Never reached (so not visited): v_mix.
			q[j] = nan
			plain = true
			continue
		}
		qj := nan
		if n > 0 {
			qj = e.w / float32(n)
			sumN += float32(n)
			sumW += e.w
			sumP += e.p
			sumPQ += e.p * qj
			maxN = max(maxN, n)
		}
		c := &t.nodes[e.child]
		if c.count > 0 {
			// The next level's edges, if the descent goes on through
			// this child (it goes on only through a child reached
			// before): they come from memory while this one computes.
			prefetch.Lines(unsafe.Pointer(&t.edges[c.first]), uintptr(c.count)*unsafe.Sizeof(edge{}))
		}
		switch {
		case solver && c.solved:
			qj = c.valueFor(nd.player)
			if skipLost && qj <= -1 {
				lost = append(lost, int32(j))
			}
		case graph && c.tp >= 0 && t.tps[c.tp].n > 0:
			qj = t.entryValue(c.tp, nd.player)
		}
		q[j] = qj
		if qj != qj {
			plain = true
			continue
		}
		qmax = max(qmax, qj)
	}
	sr.gLost = lost
	vmix := vMix(nd.v, sumN, sumP, sumPQ, sumW)
	scale := sr.sigmaScale(maxN)
	var ev float32 // the exponential of v_mix
	if plain {
		qmax = max(qmax, vmix)
		ev = fastexp.NonPos(scale * (vmix - qmax))
	}
	// Pass 2: q becomes the unnormalised pi'.
	var z float32
	for j := range es {
		x := ev
		if qj := q[j]; qj == qj {
			x = fastexp.NonPos(scale * (qj - qmax))
		}
		q[j] = es[j].p * x
		z += q[j]
	}
	inv := float32(0)
	if z > 0 {
		inv = 1 / z
	}
	// Pass 3: the selection, not of a child proven lost while the node is
	// open (-Inf scores below every other, and NaN, with inv 0, fails >).
	for _, j := range lost {
		q[j] = float32(math.Inf(-1))
	}
	invN := 1 / float32(1+sumNV)
	best, bi := float32(math.Inf(-1)), -1
	for j := range es {
		if s := q[j]*inv - float32(es[j].n+es[j].vl)*invN; s > best {
			best, bi = s, j
		}
	}
	if bi < 0 {
		bi = 0 // every child is proven lost: the node is solved
	}
	return nd.first + int32(bi)
}

// gumbelFinish computes the root's completed-Q policy pi' (kept to the
// moves that achieve a proven value, with the solver), the root value and
// the action: the survivor of Sequential Halving, or with temp > 0 (the
// opening moves of self-play) a move drawn from the root visits^(1/temp).
// pi is owned by sr until the next call.
func (sr *searcher) gumbelFinish(temp float64) (pi []float32, value float32, action int) {
	r := &sr.t.nodes[0]
	es := sr.t.edges[r.first : r.first+r.count]
	q := sr.qBuf(len(es))
	scale := sr.sigmaScale(sr.completedQ(0, q))
	qmax := float32(math.Inf(-1))
	for j := range es {
		qmax = max(qmax, q[j])
	}
	// The survivor: the best score among the most visited considered moves.
	surv, most := -1, int32(-1)
	var survS float32
	for j := range es {
		if j >= len(sr.gConsidered) || !sr.gConsidered[j] {
			continue
		}
		s := sr.gScore[j] + scale*q[j]
		if sr.gStarted[j] > most || sr.gStarted[j] == most && s > survS {
			surv, most, survS = j, sr.gStarted[j], s
		}
	}
	counts := sr.counts[:0]
	var sum float64
	for j := range es {
		x := float64(es[j].p) * math.Exp(float64(scale*(q[j]-qmax)))
		counts = append(counts, x)
		sum += x
	}
	sr.counts = counts
	if !(sum > 0) {
		for j := range counts {
			counts[j] = 1
		}
	}
	sr.setPolicy(es, counts)
	if surv < 0 || counts[surv] == 0 {
		// No survivor (no considered move), or the solver rules it out.
		surv = sr.pick(counts, 0)
	}
	if temp > 0 {
		// An opening move: drawn from the root visits^(1/temp), as PUCT's,
		// for the variety of openings (the target stays pi').
		var visits float64
		for j := range es {
			counts[j] = float64(es[j].n)
			visits += counts[j]
		}
		if visits == 0 {
			for j, e := range es {
				counts[j] = float64(sr.pi[e.action])
			}
		}
		if sr.cfg.Solver {
			sr.solverCounts(es, counts)
		}
		surv = sr.pick(counts, temp)
	}
	return sr.pi, sr.t.rootValue(), int(es[surv].action)
}
