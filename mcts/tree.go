package mcts

import (
	"math"

	"tabula/games"
)

// Copier is an optional interface a State may implement to copy another
// state of the same game into itself without allocating. Search keeps one
// scratch state per leaf in flight and, where the game's State is a Copier,
// refreshes it from the root with CopyFrom instead of Clone, so that a
// simulation allocates nothing.
type Copier interface {
	// CopyFrom makes the receiver an independent copy of src, which the
	// caller guarantees is a state of the same game.
	CopyFrom(src games.State)
}

// copyState returns a copy of src, reusing dst's storage when dst is a
// Copier; dst may be nil.
func copyState(dst, src games.State) games.State {
	if c, ok := dst.(Copier); ok && dst != nil {
		c.CopyFrom(src)
		return dst
	}
	return src.Clone()
}

// Node status values.
const (
	nodeUnexpanded uint8 = iota // reached by no evaluation yet
	nodePending                 // waiting for its evaluation in the current batch
	nodeExpanded                // evaluated; its edges exist
	nodeTerminal                // the game is over here
)

// node is one position in the tree. Its edges are edges[first : first+count].
type node struct {
	first  int32   // index of the first edge
	count  int32   // number of edges (legal actions)
	n      int32   // real visits: backups through this node, its own evaluation included
	vl     int32   // virtual visits of descents in flight
	w      float32 // sum of backed-up values from the point of view of player (at a terminal: Returns()[0])
	sv     float32 // with solved: the exact value of the position for player 0
	v      float32 // the evaluator's value of the position for player (Gumbel search's v_mix)
	tp     int32   // graph search: the position's entry in tree.tps, or -1
	player int8    // player to move (at a chance node: the player who moves after it)
	chance bool    // a chance node: its edges are the outcomes, their priors the probabilities
	status uint8
	solved bool // the game-theoretic value is known: a terminal, or proven by the solver from its children
	// deferred: the endgame prover has not yet been asked about the
	// children; it will be on the node's second visit (proveDeferred).
	deferred bool
}

// edge is one action out of a node, with AlphaZero's statistics.
type edge struct {
	action int32
	child  int32   // node index, or -1 before the child is first reached
	n      int32   // real visits
	vl     int32   // virtual visits in flight
	w      float32 // sum of values from the point of view of the parent's player
	p      float32 // prior
}

// step is one edge on a descent: the node left and the edge taken.
type step struct {
	node, edge int32
}

// tree is an arena of nodes and edges; the root is node 0. Storage is kept
// across searches: reset truncates, and reuse compacts the kept subtree into a
// second arena that then swaps with the first.
type tree struct {
	nodes    []node
	edges    []edge
	graph    bool             // share statistics across transpositions (Config.Graph)
	tt       map[uint64]int32 // graph search: position hash -> index in tps
	tps      []tpEntry        // graph search: one entry per position met
	spare    tree2            // second arena for compaction
	queue    []int32
	legalBuf []int

	// With Search.SetOutcomes only (nil otherwise): per node, the sum of
	// the final margins (for player 0) backed up through it and their
	// number (tree.addScore); the root's sum of its leaves' ownership for
	// player 0 and their number, and the same per root edge
	// (tree.addOwnership).
	ss    []float64
	sn    []int32
	own   []float64
	ownN  int
	cown  [][]float64
	cownN []int32
}

// tpEntry is what graph search knows of one position, summed over every
// node of the tree (and of the trees kept before it by tree reuse) that
// stands for it: the visits and values backed up through any of them, and
// an exact value once one of them is solved.
type tpEntry struct {
	n      int32
	w      float32 // sum of backed-up values for player
	sv     float32 // with solved: the exact value for player 0
	player int8
	solved bool
}

// entry returns the index of the entry of the position with hash h for a
// node whose player to move is player, adding an empty one if there is none.
func (t *tree) entry(h uint64, player int8) int32 {
	if k, ok := t.tt[h]; ok {
		return k
	}
	if t.tt == nil {
		t.tt = make(map[uint64]int32)
	}
	k := int32(len(t.tps))
	t.tps = append(t.tps, tpEntry{player: player})
	t.tt[h] = k
	return k
}

// entryValue is the mean value of entry k, which has visits, for player p.
func (t *tree) entryValue(k int32, p int8) float32 {
	te := &t.tps[k]
	q := te.w / float32(te.n)
	if te.player != p {
		q = -q
	}
	return q
}

// markSolved records in node i's entry, if it has one, that i is solved.
func (t *tree) markSolved(i int32) {
	nd := &t.nodes[i]
	if nd.tp >= 0 && nd.solved {
		e := &t.tps[nd.tp]
		e.solved, e.sv = true, nd.sv
	}
}

// syncSolved solves node i from its entry when another node of the same
// position was solved; it reports whether it did.
func (t *tree) syncSolved(i int32) bool {
	nd := &t.nodes[i]
	if nd.solved || nd.tp < 0 || !t.tps[nd.tp].solved {
		return false
	}
	nd.solved, nd.sv = true, t.tps[nd.tp].sv
	return true
}

type tree2 struct {
	nodes []node
	edges []edge
}

// reset empties the tree, leaving an unexpanded root.
func (t *tree) reset() {
	t.nodes = append(t.nodes[:0], node{status: nodeUnexpanded, tp: -1})
	t.edges = t.edges[:0]
	clear(t.tt)
	t.tps = t.tps[:0]
	t.ss, t.sn, t.ownN = t.ss[:0], t.sn[:0], 0
}

// newNode appends an unexpanded node and returns its index.
func (t *tree) newNode() int32 {
	t.nodes = append(t.nodes, node{status: nodeUnexpanded, tp: -1})
	return int32(len(t.nodes) - 1)
}

// expand gives node i the legal actions of s as edges, with priors from
// policy (renormalised over the legal actions; uniform where the policy has
// no mass), and records player to move.
func (t *tree) expand(i int32, s games.State, policy []float32) {
	t.legalBuf = s.LegalActions(t.legalBuf[:0])
	first := int32(len(t.edges))
	var sum float32
	for _, a := range t.legalBuf {
		p := policy[a]
		if !(p > 0) || math.IsInf(float64(p), 1) {
			p = 0
		}
		sum += p
		t.edges = append(t.edges, edge{action: int32(a), child: -1, p: p})
	}
	es := t.edges[first:]
	if sum > 0 && !math.IsInf(float64(sum), 0) {
		inv := 1 / sum
		for k := range es {
			es[k].p *= inv
		}
	} else {
		u := 1 / float32(len(es))
		for k := range es {
			es[k].p = u
		}
	}
	nd := &t.nodes[i]
	nd.first = first
	nd.count = int32(len(es))
	nd.player = int8(s.CurrentPlayer())
	nd.chance = false
	if cs, ok := s.(games.ChanceState); ok && cs.IsChanceNode() {
		nd.player, nd.chance = int8(cs.NextPlayer()), true
	}
	nd.status = nodeExpanded
}

// addVirtual adds v virtual visits along path.
func (t *tree) addVirtual(path []step, v int32) {
	for _, st := range path {
		t.nodes[st.node].vl += v
		t.edges[st.edge].vl += v
	}
}

// backup adds one real visit along path and at leaf, removing v virtual
// visits from the path. value0 is the result for player 0 (for a terminal
// leaf) or, when leafPlayer >= 0, value is from leafPlayer's point of view.
func (t *tree) backup(path []step, leaf int32, leafPlayer int8, value float32, v int32) {
	for _, st := range path {
		nd := &t.nodes[st.node]
		x := value
		if nd.player != leafPlayer {
			x = -value
		}
		nd.n++
		nd.vl -= v
		nd.w += x
		e := &t.edges[st.edge]
		e.n++
		e.vl -= v
		e.w += x
		if nd.tp >= 0 {
			te := &t.tps[nd.tp]
			te.n++
			te.w += x
		}
	}
	lf := &t.nodes[leaf]
	lf.n++
	if lf.status != nodeTerminal {
		lf.w += value
		if lf.tp >= 0 {
			te := &t.tps[lf.tp]
			te.n++
			te.w += value
		}
	}
}

// terminalBackup backs up the result of terminal leaf.
func (t *tree) terminalBackup(path []step, leaf int32, v int32) {
	// The terminal's w holds Returns()[0]: back it up as a value for player 0.
	t.backup(path, leaf, 0, t.nodes[leaf].w, v)
}

// rootValue is the mean value of the root for its player to move, or its
// exact value once solved.
func (t *tree) rootValue() float32 {
	r := &t.nodes[0]
	if r.solved {
		return r.valueFor(r.player)
	}
	if r.n == 0 {
		return 0
	}
	return r.w / float32(r.n)
}

// setTerminal marks a node where the game is over with result v for player
// 0: a solved node whose w holds Returns()[0].
func (nd *node) setTerminal(v float32) {
	nd.status = nodeTerminal
	nd.w = v
	nd.solved, nd.sv = true, v
}

// valueFor is the exact value of a solved node for player p.
func (nd *node) valueFor(p int8) float32 {
	if p == 0 {
		return nd.sv
	}
	return -nd.sv
}

// solvedBackup backs up the exact value of solved leaf (a terminal, or a
// node the solver proved) along path.
func (t *tree) solvedBackup(path []step, leaf int32) {
	lf := &t.nodes[leaf]
	if lf.status == nodeTerminal {
		t.terminalBackup(path, leaf, 0)
		return
	}
	t.backup(path, leaf, lf.player, lf.valueFor(lf.player), 0)
}

// propagate is the MCTS-solver step (Winands, Bjornsson and Saito 2008)
// after a solved leaf was reached through path: walking up, a node is
// solved when one of its children wins for its player (Returns of 1), or
// when all its children are solved (its value is then their best for its
// player). It stops at the first node that stays unsolved.
func (t *tree) propagate(path []step) {
	for k := len(path) - 1; k >= 0; k-- {
		i := path[k].node
		nd := &t.nodes[i]
		if nd.solved {
			continue // the root, searched on after it was solved
		}
		if !t.trySolve(i) {
			return
		}
	}
}

// trySolve solves expanded node i from its children if it can.
func (t *tree) trySolve(i int32) bool {
	nd := &t.nodes[i]
	if nd.chance {
		// The value of a chance node is an expectation, not the best of
		// its children: the solver does not prove through chance nodes.
		return false
	}
	best, open := float32(math.Inf(-1)), false
	for _, e := range t.edges[nd.first : nd.first+nd.count] {
		if e.child < 0 || !t.nodes[e.child].solved {
			open = true
			continue
		}
		v := t.nodes[e.child].valueFor(nd.player)
		if v >= 1 {
			best, open = v, false
			break
		}
		best = max(best, v)
	}
	if open {
		return false
	}
	nd.solved = true
	if nd.player == 0 {
		nd.sv = best
	} else {
		nd.sv = -best
	}
	t.markSolved(i)
	return true
}

// keep makes the child of the root reached by action the new root,
// compacting its subtree; it reports false (and leaves the tree alone) if
// there is no such expanded child.
func (t *tree) keep(action int) bool {
	r := &t.nodes[0]
	if r.status != nodeExpanded {
		return false
	}
	child := int32(-1)
	for _, e := range t.edges[r.first : r.first+r.count] {
		if int(e.action) == action {
			child = e.child
			break
		}
	}
	if child < 0 || t.nodes[child].status != nodeExpanded {
		return false
	}
	dst := &t.spare
	dst.nodes = append(dst.nodes[:0], t.nodes[child])
	dst.edges = dst.edges[:0]
	// Breadth-first copy: queue holds old indices of nodes copied, in the
	// order of their new indices.
	t.queue = append(t.queue[:0], child)
	for qi := 0; qi < len(t.queue); qi++ {
		old := t.nodes[t.queue[qi]]
		if old.status != nodeExpanded {
			continue
		}
		first := int32(len(dst.edges))
		for _, e := range t.edges[old.first : old.first+old.count] {
			if e.child >= 0 {
				dst.nodes = append(dst.nodes, t.nodes[e.child])
				t.queue = append(t.queue, e.child)
				e.child = int32(len(dst.nodes) - 1)
			}
			dst.edges = append(dst.edges, e)
		}
		dst.nodes[qi].first = first
	}
	t.nodes, dst.nodes = dst.nodes, t.nodes
	t.edges, dst.edges = dst.edges, t.edges
	t.keepOutcomes()
	return true
}
