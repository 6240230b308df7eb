package mcts

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"tabula/games"
)

// batch gathers the leaves of one Evaluate call, possibly from many trees.
type batch struct {
	states   []games.State // scratch states, reused across batches
	policies [][]float32
	values   []float32
	items    []batchItem
	n        int
	oc       *outcomeTrack // Search.SetOutcomes: evaluate the leaves' outcomes too
}

// batchItem is one leaf waiting for its evaluation.
type batchItem struct {
	s    *searcher
	leaf int32
	path []step
}

// newBatch allocates room for size leaves of a game with numActions actions.
func newBatch(size, numActions int) batch {
	b := batch{
		states:   make([]games.State, size),
		policies: make([][]float32, size),
		values:   make([]float32, size),
		items:    make([]batchItem, size),
	}
	flat := make([]float32, size*numActions)
	for i := range b.policies {
		b.policies[i] = flat[i*numActions : (i+1)*numActions : (i+1)*numActions]
	}
	return b
}

func (b *batch) full() bool { return b.n == len(b.items) }

// evaluate sends the gathered leaves to eval in one call, then expands and
// backs up each. On error every leaf is rolled back, leaving the trees as
// they were before the batch was gathered.
func (b *batch) evaluate(eval Evaluator) error {
	if b.n == 0 {
		return nil
	}
	var err error
	if b.oc != nil {
		err = b.evaluateOutcomes()
	} else {
		err = eval.Evaluate(b.states[:b.n], b.policies[:b.n], b.values[:b.n])
	}
	if err == nil {
		for i := 0; i < b.n; i++ {
			if v := b.values[i]; math.IsNaN(float64(v)) {
				err = fmt.Errorf("evaluator returned NaN value for leaf %d of %d", i, b.n)
				break
			}
		}
	}
	if err != nil {
		for i := 0; i < b.n; i++ {
			it := &b.items[i]
			it.s.rollback(it)
		}
		b.n = 0
		return fmt.Errorf("mcts: evaluate batch: %w", err)
	}
	for i := 0; i < b.n; i++ {
		it := &b.items[i]
		v := min(max(b.values[i], -1), 1)
		it.s.complete(it, b.states[i], b.policies[i], v)
		if b.oc != nil {
			it.s.outcomeLeaf(it.path, it.leaf, i)
		}
	}
	b.n = 0
	return nil
}

// searcher is the search state of one game: its tree, its root position and
// the settings of the move being searched.
type searcher struct {
	cfg   *Config
	rng   *rand.Rand
	t     tree
	root  games.State
	alpha float64

	// The move being searched.
	target   int  // playouts wanted
	done     int  // playouts backed up
	inflight int  // leaves waiting in a batch
	noise    bool // Dirichlet noise at the root
	forced   bool // forced playouts and policy target pruning
	// stratified: cfg.Chance is stratified (sampleEdge).
	stratified bool

	// Gumbel search (gumbel.go).
	gumbel      bool      // cfg.Search is gumbel
	explore     bool      // Gumbel noise at the root of full searches (self-play sets it per move: gumbel_noise_moves)
	gExplore    bool      // Gumbel noise at the root of this search
	gScore      []float32 // per root edge: g(a) + logit(a)
	gConsidered []bool    // per root edge: among the m actions considered
	gStarted    []int32   // per root edge: descents started in this search
	gSched      []int32   // Sequential Halving: visits the action of simulation i has before it
	gNext       int       // root descents started in this search
	gM          int       // actions considered
	gq          []float32 // scratch per child: completed Q, then pi'
	gLost       []int32   // scratch: the children gumbelSelect finds proven lost

	rootPrior []float32 // root priors used by selection (noised), by edge
	pathBuf   []step
	scratch   games.State // proveChildren's copy of a position
	prover    Prover      // Config.Endgame's exact prover, or nil
	gammaBuf  []float64
	counts    []float64
	pi        []float32
	chanceP   []float32             // scratch priors of a chance node, by action
	outs      []games.ChanceOutcome // scratch outcomes of a chance node
	oc        *outcomeTrack         // Search.SetOutcomes; nil: values alone
}

// setRoot makes a copy of s the root of an empty tree.
func (sr *searcher) setRoot(s games.State) {
	sr.root = copyState(sr.root, s)
	sr.t.graph = sr.cfg.Graph && !games.HasChance(s.Game())
	sr.t.reset()
	if sr.cfg.DirichletAlpha > 0 {
		sr.alpha = sr.cfg.DirichletAlpha
	} else {
		sr.alpha = DefaultDirichletAlpha(s.Game())
	}
	if n := s.Game().NumActions(); len(sr.pi) != n {
		sr.pi = make([]float32, n)
		sr.chanceP = make([]float32, n)
	}
}

// startMove prepares a search of target playouts from the current root, or
// of target root visits, reused ones included, when CountReused is on.
func (sr *searcher) startMove(target int, full bool) {
	if sr.cfg.CountReused {
		target = max(target-int(sr.t.nodes[0].n), 0)
	}
	sr.target = target
	sr.done = 0
	sr.inflight = 0
	sr.gumbel = sr.cfg.Search == SearchGumbel
	sr.stratified = sr.cfg.Chance == ChanceStratified
	sr.noise = full && sr.cfg.DirichletEpsilon > 0 && !sr.gumbel
	sr.forced = full && sr.cfg.ForcedPlayouts && !sr.gumbel
	sr.gExplore = full && sr.explore
	if r := &sr.t.nodes[0]; r.status == nodeExpanded && r.solved && sr.t.graph {
		// A root kept by tree reuse may have been solved through its
		// position's entry, by a proof its own children do not show: the
		// move is chosen among children that achieve the root's value, so
		// it stays solved only if they prove it (else it is searched).
		r.solved = false
		sr.t.trySolve(0)
	}
	if r := &sr.t.nodes[0]; r.status == nodeExpanded && r.deferred {
		// A root kept by tree reuse whose children the prover has not
		// been asked about yet: the root's are all proven before a move.
		r.deferred = false
		sr.proveChildren(0, sr.root, true)
	}
	if sr.t.nodes[0].status == nodeExpanded {
		sr.prepareRoot()
	}
}

// advance plays action on the root through the checked path and keeps the
// subtree below it when tree reuse is on.
func (sr *searcher) advance(action int) error {
	if err := games.Play(sr.root, action); err != nil {
		return fmt.Errorf("mcts: advance: %w", err)
	}
	if !sr.cfg.TreeReuse || !sr.t.keep(action) {
		sr.t.reset()
	}
	return nil
}

// prepareRoot computes the root priors used by selection, with Dirichlet
// noise when the move is a full search.
func (sr *searcher) prepareRoot() {
	r := sr.t.nodes[0]
	es := sr.t.edges[r.first : r.first+r.count]
	sr.rootPrior = sr.rootPrior[:0]
	for _, e := range es {
		sr.rootPrior = append(sr.rootPrior, e.p)
	}
	if sr.gumbel {
		sr.prepareGumbel()
		return
	}
	if !sr.noise || len(es) < 2 {
		return
	}
	eps := float32(sr.cfg.DirichletEpsilon)
	noise := dirichlet(sr.rng, sr.alpha, len(es), &sr.gammaBuf)
	for k := range sr.rootPrior {
		sr.rootPrior[k] = (1-eps)*sr.rootPrior[k] + eps*float32(noise[k])
	}
}

// collect descends the tree up to max times, backing up terminal leaves at
// once and adding the others to b with virtual loss. It stops early when a
// descent reaches a leaf already waiting in the batch.
func (sr *searcher) collect(b *batch, max int) {
	vl := int32(sr.cfg.VirtualLoss)
	for added := 0; added < max && !b.full() && sr.done+sr.inflight < sr.target; {
		if sr.cfg.Solver && sr.t.nodes[0].solved {
			// The root's value is known: the search is over once the
			// leaves in flight are back.
			sr.target = sr.done + sr.inflight
			return
		}
		path, leaf := sr.descend()
		nd := &sr.t.nodes[leaf]
		if nd.solved {
			sr.t.solvedBackup(path, leaf)
			if sr.oc != nil {
				sr.outcomeSolved(path, leaf)
			}
			if sr.t.graph && sr.cfg.Solver {
				// It may have been solved through its position's entry
				// (another node of the position was proven): its
				// parents may follow.
				sr.t.propagate(path)
			}
			sr.done++
			continue
		}
		if nd.status == nodePending {
			sr.unstartRoot(path)
			return
		}
		st := copyState(b.states[b.n], sr.root)
		b.states[b.n] = st
		ended := false
		for k, p := range path {
			if sr.t.nodes[p.node].deferred && sr.proveDeferred(path, k, st) {
				ended = true
				break
			}
			st.ApplyAction(int(sr.t.edges[p.edge].action))
		}
		if ended {
			sr.done++
			continue
		}
		if games.IsChanceNode(st) {
			path, leaf = sr.throughChance(path, leaf, st)
			nd = &sr.t.nodes[leaf]
		}
		if st.IsTerminal() {
			nd.setTerminal(float32(st.Returns()[0]))
			sr.t.terminalBackup(path, leaf, 0)
			if sr.oc != nil {
				sr.outcomeTerminal(path, leaf, st)
			}
			if sr.cfg.Solver {
				sr.t.propagate(path)
			}
			sr.done++
			continue
		}
		if sr.t.graph && nd.tp < 0 {
			nd.tp = sr.t.entry(st.Hash(), int8(st.CurrentPlayer()))
			if sr.cfg.Solver && sr.t.syncSolved(leaf) {
				nd.player = int8(st.CurrentPlayer())
				sr.t.solvedBackup(path, leaf)
				if sr.oc != nil {
					sr.outcomeSolved(path, leaf)
				}
				sr.t.propagate(path)
				sr.done++
				continue
			}
		}
		nd.status = nodePending
		sr.t.addVirtual(path, vl)
		it := &b.items[b.n]
		it.s = sr
		it.leaf = leaf
		it.path = append(it.path[:0], path...)
		b.n++
		sr.inflight++
		added++
	}
}

// throughChance samples through the chance nodes met at the end of a
// descent: leaf (position st) is a chance node reached for the first time.
// It is expanded with every outcome as an edge, whose prior is the
// outcome's probability, and never evaluated; one outcome is sampled by its
// probability, played on st and its child becomes the leaf, until st is a
// decision node or the game is over. It returns the longer path and the new
// leaf.
func (sr *searcher) throughChance(path []step, leaf int32, st games.State) ([]step, int32) {
	for games.IsChanceNode(st) {
		sr.outs = st.(games.ChanceState).ChanceOutcomes(sr.outs[:0])
		for _, o := range sr.outs {
			sr.chanceP[o.Action] = float32(o.Prob)
		}
		sr.t.expand(leaf, st, sr.chanceP)
		for _, o := range sr.outs {
			sr.chanceP[o.Action] = 0
		}
		if sr.stratified {
			sr.t.nodes[leaf].v = sr.rng.Float32() // the offset of its outcome sequence
		}
		ei := sr.sampleEdge(leaf)
		c := sr.t.newNode()
		sr.t.edges[ei].child = c
		path = append(path, step{node: leaf, edge: ei})
		st.ApplyAction(int(sr.t.edges[ei].action))
		leaf = c
	}
	sr.pathBuf = path
	return path, leaf
}

// sampleEdge picks the outcome edge of chance node i that a descent
// follows, by Config.Chance. Either way an outcome is followed with its
// probability (the edge's prior), so an outcome's subtree gets visits in
// proportion to its probability and the node's mean value estimates the
// expectation over the outcomes: PUCT samples chance outcomes rather than
// weighting all of them. "sample" draws each visit's outcome
// independently; "stratified" takes the k-th point frac(u + k/phi) of a
// golden-ratio sequence from the node's own offset u (stored in the
// node's v, which a chance node, never evaluated, does not use), with k
// the node's visits so far, real and in flight.
func (sr *searcher) sampleEdge(i int32) int32 {
	nd := &sr.t.nodes[i]
	es := sr.t.edges[nd.first : nd.first+nd.count]
	var r float32
	if sr.stratified {
		k := float64(nd.n) + float64(nd.vl)
		_, f := math.Modf(float64(nd.v) + k*invPhi)
		r = float32(f)
	} else {
		r = sr.rng.Float32()
	}
	for j := range es {
		if r < es[j].p {
			return nd.first + int32(j)
		}
		r -= es[j].p
	}
	return nd.first + nd.count - 1
}

// invPhi is 1/phi, phi the golden ratio: the step of Config.Chance's
// stratified sequence.
const invPhi = 0.6180339887498949

// complete expands a leaf with its evaluation and backs the value up, or
// the leaf's exact value when the solver proves it from its children.
func (sr *searcher) complete(it *batchItem, st games.State, policy []float32, value float32) {
	sr.t.expand(it.leaf, st, policy)
	sr.t.nodes[it.leaf].v = value
	if lf := &sr.t.nodes[it.leaf]; lf.tp >= 0 && sr.t.tps[lf.tp].n > 0 {
		// Graph search: the position was searched below another node;
		// back up what that search found rather than the bare evaluation
		// (Czech, Korus and Kersting's Monte-Carlo graph search).
		value = sr.t.entryValue(lf.tp, lf.player)
	}
	// Below the root the prover waits for the node's second visit: most
	// nodes it reaches are visited once (proveDeferred).
	proved := sr.proveChildren(it.leaf, st, it.leaf == 0 || sr.t.graph)
	lf := &sr.t.nodes[it.leaf] // after proveChildren, which may grow the nodes
	if proved {
		value = lf.valueFor(lf.player)
	}
	sr.t.backup(it.path, it.leaf, lf.player, value, int32(sr.cfg.VirtualLoss))
	if proved {
		sr.t.propagate(it.path)
	}
	sr.inflight--
	sr.done++
	if it.leaf == 0 {
		sr.prepareRoot()
	}
}

// proveChildren looks one move ahead of freshly expanded node i (position
// st), with the solver on: a child where the game ends (only the one move that
// can end it, where the state implements games.Ending and nothing else
// proves children), whose next two plies are forced (where the game's states
// implement games.Threats), that the endgame prover solves (Config.Endgame)
// or, in graph search, whose position
// was proven elsewhere in the tree becomes a solved node without being
// visited or evaluated. It reports whether that solves i. Below the root
// it stops at the first child proven a win for i's player (the one of the
// highest prior is tried first): that solves i, and its siblings' proofs
// would be wasted. Proving every
// child before any is visited, not each leaf when it is first visited, matters:
// PUCT would otherwise keep visiting a child proven drawn while a winning
// one with a small prior waits unvisited. In graph search it also links
// every child whose position the tree has already visited to that
// position's entry, so that selection sees its value before the first
// visit through i.
//
// Without prove, the endgame prover is not asked: i is marked deferred, and
// proveDeferred asks it when a descent next passes through i (before any
// child of i is reached).
func (sr *searcher) proveChildren(i int32, st games.State, prove bool) bool {
	_, threats := st.(games.Threats)
	solver := sr.cfg.Solver
	prover := sr.prover != nil && sr.prover.Reaches(st)
	if prover && !prove {
		sr.t.nodes[i].deferred = true
		prover = false
	}
	proveAll := solver && (threats || prover)
	// Where one known move can end the game at once (games.Ending: Go's
	// pass after a pass), that child alone is looked at.
	ending := -1
	if e, ok := st.(games.Ending); ok && solver && !proveAll {
		ending = e.EndingAction()
	}
	if (!proveAll && ending < 0 && !sr.t.graph) || games.HasChance(st.Game()) {
		return false // nothing to prove or link, or a child may be a chance node
	}
	nd := sr.t.nodes[i]
	// Where every child is asked about, the child of the highest prior is
	// asked first: below the root, one child proven a win solves the node
	// and the others are skipped (each costs the prover an exact search).
	top := nd.first
	for k := nd.first + 1; proveAll && k < nd.first+nd.count; k++ {
		if sr.t.edges[k].p > sr.t.edges[top].p {
			top = k
		}
	}
	found := false
	for n := int32(0); n < nd.count; n++ {
		k := top
		if n > 0 {
			k = nd.first + n - 1
			if k >= top {
				k++
			}
		}
		prove := proveAll || int(sr.t.edges[k].action) == ending
		if !prove && !sr.t.graph {
			continue
		}
		sr.scratch = copyState(sr.scratch, st)
		c := sr.scratch
		c.ApplyAction(int(sr.t.edges[k].action))
		terminal := c.IsTerminal()
		tk := int32(-1) // graph search: the child's entry
		var h uint64
		if sr.t.graph && !terminal {
			h = c.Hash()
			if x, ok := sr.t.tt[h]; ok && (sr.t.tps[x].n > 0 || (solver && sr.t.tps[x].solved)) {
				tk = x
				ci := sr.t.newNode()
				sr.t.edges[k].child = ci
				cn := &sr.t.nodes[ci]
				cn.tp, cn.player = x, int8(c.CurrentPlayer())
				if solver && sr.t.syncSolved(ci) {
					found = true
					continue
				}
			}
		}
		if !prove {
			continue
		}
		// sv: the child's value for player 0, when proven.
		sv, proven := float32(0), terminal
		if terminal {
			sv = float32(c.Returns()[0])
		}
		if !proven && threats {
			if r := c.(games.Threats).ForcedResult(); r != 0 {
				sv, proven = float32(r), true
				if c.CurrentPlayer() != 0 {
					sv = -sv
				}
			}
		}
		if !proven && prover {
			sv, proven = sr.prover.Prove(c)
		}
		if !proven {
			continue
		}
		ci := sr.t.edges[k].child // linked to its entry above, or -1
		if ci < 0 {
			ci = sr.t.newNode()
			sr.t.edges[k].child = ci
		}
		cn := &sr.t.nodes[ci]
		cn.player = int8(c.CurrentPlayer())
		if terminal {
			cn.setTerminal(sv)
		} else {
			cn.solved, cn.sv = true, sv
			if sr.t.graph {
				if tk < 0 {
					tk = sr.t.entry(h, cn.player)
				}
				cn.tp = tk
				sr.t.markSolved(ci)
			}
		}
		found = true
		if solver && i != 0 && cn.valueFor(nd.player) >= 1 {
			break // i is won: its other children need no proof
		}
	}
	return found && solver && sr.t.trySolve(i)
}

// proveDeferred asks the endgame prover about the children of path[k].node
// (position st), deferred at its expansion, now that a descent passes
// through it a second time. A node visited once is backed up at its
// network value, and its children's exact searches are saved: in Othello
// 8x8 self-play (configs/othello8.yaml) this cut the proofs by 28%, and 99%
// of the nodes whose children were proven at expansion had no second visit
// in their move's search (many do in later moves', through tree reuse).
// Where the proofs solve the node, or the child the descent took, the
// descent ends there, and the solved node is backed up (with the
// MCTS-solver's propagation) along the path above it; proveDeferred then
// reports true.
func (sr *searcher) proveDeferred(path []step, k int, st games.State) bool {
	i := path[k].node
	sr.t.nodes[i].deferred = false
	if sr.proveChildren(i, st, true) {
		sr.t.solvedBackup(path[:k], i)
		if sr.oc != nil {
			sr.outcomeSolved(path[:k], i)
		}
		sr.t.propagate(path[:k])
		return true
	}
	if c := sr.t.edges[path[k].edge].child; c >= 0 && sr.t.nodes[c].solved {
		sr.t.solvedBackup(path[:k+1], c)
		if sr.oc != nil {
			sr.outcomeSolved(path[:k+1], c)
		}
		sr.t.propagate(path[:k+1])
		return true
	}
	return false
}

// rollback undoes the virtual loss of a leaf whose evaluation failed.
func (sr *searcher) rollback(it *batchItem) {
	sr.t.addVirtual(it.path, -int32(sr.cfg.VirtualLoss))
	sr.t.nodes[it.leaf].status = nodeUnexpanded
	sr.inflight--
	sr.unstartRoot(it.path)
}

// descend follows PUCT from the root to a node that is not expanded, or
// solved, and returns the path and that node. At an expanded chance node it
// follows a sampled outcome.
func (sr *searcher) descend() ([]step, int32) {
	path := sr.pathBuf[:0]
	cur := int32(0)
	for sr.t.nodes[cur].status == nodeExpanded && (cur == 0 || !sr.t.nodes[cur].solved) {
		var ei int32
		switch {
		case sr.t.nodes[cur].chance:
			ei = sr.sampleEdge(cur)
		case sr.gumbel && cur == 0:
			ei = sr.gumbelRootEdge()
		case sr.gumbel:
			ei = sr.gumbelSelect(cur)
		default:
			ei = sr.selectEdge(cur)
		}
		c := sr.t.edges[ei].child
		if c < 0 {
			c = sr.t.newNode()
			sr.t.edges[ei].child = c
		} else if sr.t.graph && sr.cfg.Solver {
			sr.t.syncSolved(c) // proven through another node of its position
		}
		path = append(path, step{node: cur, edge: ei})
		cur = c
	}
	sr.pathBuf = path
	return path, cur
}

// selectEdge returns the edge of expanded node i with the highest
// Q + c_puct P sqrt(N) / (1 + n), where N counts the node's visits (its own
// evaluation and virtual visits included) and unvisited edges take the
// node's value less the first-play-urgency reduction. Virtual visits count
// as losses. At the root of a search with forced playouts, an edge with
// fewer than sqrt(k P N) visits is taken first. With the solver, a solved
// child counts at its exact value, and a child proven lost for the node's
// player is never taken from a node still open (one has a child that is
// not proven lost).
func (sr *searcher) selectEdge(i int32) int32 {
	nd := &sr.t.nodes[i]
	es := sr.t.edges[nd.first : nd.first+nd.count]
	total := float32(nd.n + nd.vl)
	sq := float32(math.Sqrt(float64(total)))
	fpu := float32(-1)
	if nd.n > 0 {
		fpu = nd.w/float32(nd.n) - float32(sr.cfg.FPUReduction)
	}
	c := float32(sr.cfg.CPuct)
	solver := sr.cfg.Solver
	graph := sr.t.graph
	skipLost := solver && !nd.solved // only the root is searched once solved
	priors := []float32(nil)
	if i == 0 {
		priors = sr.rootPrior[:len(es)]
		if sr.forced && !nd.solved {
			k := float32(sr.cfg.ForcedPlayoutK)
			for j := range es {
				nv := es[j].n + es[j].vl
				if nv > 0 && float32(nv)*float32(nv) < k*priors[j]*total && !(skipLost && sr.lostChild(&es[j], nd.player)) {
					return nd.first + int32(j)
				}
			}
		}
	}
	best, bi := float32(math.Inf(-1)), 0
	for j := range es {
		e := &es[j]
		p := e.p
		if priors != nil {
			p = priors[j]
		}
		nv := e.n + e.vl
		q := fpu
		if graph && solver && e.child >= 0 {
			sr.t.syncSolved(e.child) // proven through another node of its position
		}
		if solver && e.child >= 0 && sr.t.nodes[e.child].solved {
			q = sr.t.nodes[e.child].valueFor(nd.player)
			if skipLost && q <= -1 {
				continue // an open node has a child not proven lost
			}
		} else if tp := sr.childEntry(e); tp >= 0 {
			// Graph search: the child's position's value over all its
			// visits, through any node, with this edge's virtual losses.
			q = sr.t.entryValue(tp, nd.player)
			if nv > 0 {
				q = (q*float32(e.n) - float32(e.vl)) / float32(nv)
			}
		} else if nv > 0 {
			q = (e.w - float32(e.vl)) / float32(nv)
		}
		u := q + c*p*sq/float32(1+nv)
		if u > best {
			best, bi = u, j
		}
	}
	return nd.first + int32(bi)
}

// childEntry is, in graph search, the entry of the child of e when the
// position has visits, else -1.
func (sr *searcher) childEntry(e *edge) int32 {
	if !sr.t.graph || e.child < 0 {
		return -1
	}
	tp := sr.t.nodes[e.child].tp
	if tp < 0 || sr.t.tps[tp].n == 0 {
		return -1
	}
	return tp
}

// lostChild reports whether the child of edge e is proven lost for player p.
func (sr *searcher) lostChild(e *edge, p int8) bool {
	return e.child >= 0 && sr.t.nodes[e.child].solved && sr.t.nodes[e.child].valueFor(p) <= -1
}

// solverCounts applies the solver's verdicts to the root visit counts: once
// the root is solved only the children that achieve its value keep their
// visits; before, children proven lost lose theirs (unless nothing would be
// left, when the open children get their priors). A proven win that a move
// ends at once keeps to the moves that do (others may win only later).
func (sr *searcher) solverCounts(es []edge, counts []float64) {
	r := &sr.t.nodes[0]
	if r.solved && r.valueFor(r.player) >= 1 {
		winsNow := func(e *edge) bool {
			c := e.child
			return c >= 0 && sr.t.nodes[c].status == nodeTerminal && sr.t.nodes[c].valueFor(r.player) >= 1
		}
		if slices.ContainsFunc(es, func(e edge) bool { return winsNow(&e) }) {
			for j := range es {
				if winsNow(&es[j]) {
					counts[j] = max(counts[j], 1)
				} else {
					counts[j] = 0
				}
			}
			return
		}
	}
	var kept float64
	for j := range es {
		e := &es[j]
		if e.child < 0 || !sr.t.nodes[e.child].solved {
			if r.solved {
				counts[j] = 0
			}
		} else {
			v := sr.t.nodes[e.child].valueFor(r.player)
			if (r.solved && v < r.valueFor(r.player)) || (!r.solved && v <= -1) {
				counts[j] = 0
			}
		}
		kept += counts[j]
	}
	if kept > 0 {
		return
	}
	for j := range es {
		e := &es[j]
		if r.solved {
			if e.child >= 0 && sr.t.nodes[e.child].solved && sr.t.nodes[e.child].valueFor(r.player) >= r.valueFor(r.player) {
				counts[j] = 1
			}
		} else if !sr.lostChild(e, r.player) {
			counts[j] = float64(sr.rootPrior[j]) + 1e-6
		}
	}
}

// setPolicy writes the root's policy target into sr.pi: counts (one weight
// per root edge of es) adjusted by the solver's proofs when it is on, then
// normalised. Both searches end with it.
func (sr *searcher) setPolicy(es []edge, counts []float64) {
	if sr.cfg.Solver {
		sr.solverCounts(es, counts)
	}
	var sum float64
	for _, x := range counts {
		sum += x
	}
	clear(sr.pi)
	for j, e := range es {
		sr.pi[e.action] = float32(counts[j] / sum)
	}
}

// finish turns the root visits into the policy target pi (pruned of forced
// playouts when they are on), the root value and an action chosen with
// temperature temp (0: most visited, ties broken at random). pi is owned by
// sr until the next call.
func (sr *searcher) finish(temp float64) (pi []float32, value float32, action int) {
	if sr.gumbel {
		return sr.gumbelFinish(temp)
	}
	r := sr.t.nodes[0]
	es := sr.t.edges[r.first : r.first+r.count]
	counts := sr.counts[:0]
	var sum float64
	for _, e := range es {
		counts = append(counts, float64(e.n))
		sum += float64(e.n)
	}
	sr.counts = counts
	if sum == 0 {
		// Only the root was evaluated: fall back on the priors.
		for j := range counts {
			counts[j] = float64(sr.rootPrior[j])
		}
	} else if sr.forced {
		sr.prune(es, counts, sum)
	}
	sr.setPolicy(es, counts)
	j := sr.pick(counts, temp)
	return sr.pi, sr.t.rootValue(), int(es[j].action)
}

// prune removes forced playouts from the root counts (KataGo's policy target
// pruning): every child but the most visited loses up to its forced playouts
// as long as its PUCT value stays below the best child's; a child left with
// one playout or fewer is dropped.
func (sr *searcher) prune(es []edge, counts []float64, total float64) {
	best := 0
	for j := range counts {
		if counts[j] > counts[best] {
			best = j
		}
	}
	c := sr.cfg.CPuct
	sq := math.Sqrt(total)
	eb := es[best]
	puctBest := float64(eb.w)/float64(eb.n) + c*float64(sr.rootPrior[best])*sq/(1+float64(eb.n))
	for j, e := range es {
		if j == best || e.n == 0 {
			continue
		}
		p := float64(sr.rootPrior[j])
		q := float64(e.w) / float64(e.n)
		forced := math.Floor(math.Sqrt(sr.cfg.ForcedPlayoutK * p * total))
		n := counts[j] - forced
		if gap := puctBest - q; gap > 0 {
			// Smallest n with q + c p sqrt(total)/(1+n) <= puctBest.
			n = math.Max(n, math.Ceil(c*p*sq/gap-1))
		} else {
			n = counts[j]
		}
		n = math.Min(n, counts[j])
		if n <= 1 {
			n = 0
		}
		counts[j] = n
	}
}

// pick chooses an index by counts^(1/temp), or the largest count when temp
// is 0, breaking ties at random.
func (sr *searcher) pick(counts []float64, temp float64) int {
	if temp <= 0 {
		best, ties := 0, 0
		for j, x := range counts {
			switch {
			case x > counts[best]:
				best, ties = j, 1
			case x == counts[best]:
				ties++
				if j != best && sr.rng.IntN(ties) == 0 {
					best = j
				}
			}
		}
		return best
	}
	var sum float64
	for _, x := range counts {
		sum += math.Pow(x, 1/temp)
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return sr.pick(counts, 0)
	}
	r := sr.rng.Float64() * sum
	for j, x := range counts {
		r -= math.Pow(x, 1/temp)
		if r < 0 {
			return j
		}
	}
	for j := len(counts) - 1; j >= 0; j-- {
		if counts[j] > 0 {
			return j
		}
	}
	return 0
}

// errTerminal is returned for a search of a finished game.
var errTerminal = errors.New("mcts: the game is over")
