package mcts

import (
	"errors"
	"fmt"

	"tabula/games"
)

// OutcomeEvaluator is an Evaluator that can also give, in the same
// evaluation, a network's score and ownership heads (KataGo's auxiliary
// heads; package nn's Evaluator implements it). A search backs them up only
// when asked (Search.SetOutcomes, for analysis): ordinary searches call
// Evaluate alone.
type OutcomeEvaluator interface {
	Evaluator
	// OutcomeHeads reports which of the two heads the evaluator has.
	OutcomeHeads() (ownership, score bool)
	// EvaluateOutcomes is Evaluate that also writes, when scores is not
	// nil, into scores[i] the predicted final margin of states[i] for its
	// player to move, in the game's unit (points in Go), and, when
	// ownership is not nil, into each ownership[i] that is not nil
	// (Height x Width values of the observation's board, row-major) the
	// predicted owner of each point in [-1, 1], +1 for the player to move.
	EvaluateOutcomes(states []games.State, policies [][]float32, values []float32, scores []float32, ownership [][]float32) error
}

// outcomeTrack is what a search that backs up outcomes needs beyond the
// values: the evaluator and the batch's buffers. The sums themselves are
// in the tree (tree.ss, tree.sn, tree.own).
type outcomeTrack struct {
	eval      OutcomeEvaluator
	score     bool
	ownership bool
	hw        int         // points of the board
	scores    []float32   // per batch slot
	own       [][]float32 // per batch slot, with ownership
	slot      []float32   // per batch slot: sizes the buffers
	ownBuf    []float32   // a terminal's ownership
	state     games.State // a solved leaf's position, replayed from the root
}

// SetOutcomes makes the following searches back up, beside the value, with
// score the score head's final margin over the tree (every node keeps the
// mean over the evaluations backed up through it, as KataGo's scoreLead is
// the search's average over a move's subtree) and, with ownership,
// accumulate the ownership head's output of every leaf evaluated below the
// root (the root's tree-averaged ownership) and below each of its children
// (RootChildOwnership). The evaluator must be an
// OutcomeEvaluator with the heads asked for. Leaves are then evaluated
// with EvaluateOutcomes; a finished game's leaf counts its own final score
// and ownership (games.Outcomer). Turning it on, or asking for a head not
// tracked yet, discards the tree, whose visits were not counted; asking for
// less than is tracked keeps the tracking as it is; both false turns it
// off and keeps the tree. Off by default: self-play and ordinary play
// never pay for it.
func (s *Search) SetOutcomes(score, ownership bool) error {
	sr := &s.sr
	if !score && !ownership {
		if sr.oc != nil {
			sr.oc = nil
			sr.t.ss, sr.t.sn, sr.t.own, sr.t.cown, sr.t.cownN = nil, nil, nil, nil, nil
			sr.t.ownN = 0
		}
		return nil
	}
	oe, ok := s.eval.(OutcomeEvaluator)
	if !ok {
		return errors.New("mcts: outcomes: the evaluator has no score or ownership head")
	}
	hasOwn, hasScore := oe.OutcomeHeads()
	if score && !hasScore {
		return errors.New("mcts: outcomes: the evaluator's network has no score head")
	}
	if ownership && !hasOwn {
		return errors.New("mcts: outcomes: the evaluator's network has no ownership head")
	}
	if oc := sr.oc; oc != nil && (oc.score || !score) && (oc.ownership || !ownership) {
		return nil // already tracking as much
	}
	if oc := sr.oc; oc != nil {
		score, ownership = score || oc.score, ownership || oc.ownership
	}
	sr.oc = &outcomeTrack{eval: oe, score: score, ownership: ownership}
	if sr.root != nil {
		sr.t.reset()
	}
	return nil
}

// OutcomeHeads reports which heads the search's evaluator can back up with
// SetOutcomes: none unless it is an OutcomeEvaluator.
func (s *Search) OutcomeHeads() (ownership, score bool) {
	if oe, ok := s.eval.(OutcomeEvaluator); ok {
		return oe.OutcomeHeads()
	}
	return false, false
}

// RootOwnership writes into dst the root's ownership averaged over the
// leaves evaluated below it since the tree was started or last advanced,
// for the root's player to move, and reports whether there is one (only
// with SetOutcomes' ownership on, after a search).
func (s *Search) RootOwnership(dst []float32) bool {
	t := &s.sr.t
	if s.sr.oc == nil || !s.sr.oc.ownership || t.ownN == 0 || len(dst) != len(t.own) {
		return false
	}
	inv := 1 / float64(t.ownN)
	if t.nodes[0].player == 1 {
		inv = -inv
	}
	for i, v := range t.own {
		dst[i] = float32(v * inv)
	}
	return true
}

// prepareOutcomes sizes the batch buffers of the tracking for the root's
// game.
func (s *Search) prepareOutcomes() {
	oc := s.sr.oc
	s.b.oc = oc
	if oc == nil {
		return
	}
	_, h, w := s.sr.root.Game().ObservationShape()
	n := len(s.b.items)
	if oc.hw != h*w || len(oc.slot) != n {
		oc.slot = make([]float32, n)
		oc.hw = h * w
		oc.scores = nil
		if oc.score {
			oc.scores = make([]float32, n)
		}
		oc.own = nil
		oc.ownBuf = make([]float32, oc.hw)
		if oc.ownership {
			flat := make([]float32, n*oc.hw)
			oc.own = make([][]float32, n)
			for i := range oc.own {
				oc.own[i] = flat[i*oc.hw : (i+1)*oc.hw : (i+1)*oc.hw]
			}
		}
	}
}

// evaluateOutcomes evaluates the batch's leaves with their outcomes.
func (b *batch) evaluateOutcomes() error {
	var own [][]float32
	if b.oc.ownership {
		own = b.oc.own[:b.n]
	}
	var sc []float32
	if b.oc.score {
		sc = b.oc.scores[:b.n]
	}
	return b.oc.eval.EvaluateOutcomes(b.states[:b.n], b.policies[:b.n], b.values[:b.n], sc, own)
}

// addScore adds score0, a final margin for player 0, to the sums of every
// node of path and of leaf.
func (t *tree) addScore(path []step, leaf int32, score0 float64) {
	for len(t.ss) < len(t.nodes) {
		t.ss = append(t.ss, 0)
		t.sn = append(t.sn, 0)
	}
	for _, st := range path {
		t.ss[st.node] += score0
		t.sn[st.node]++
	}
	t.ss[leaf] += score0
	t.sn[leaf]++
}

// addOwnership adds own, the ownership of the leaf reached through path,
// for player 0 (sign = +1) or for player 1 (sign = -1), to the root's sums
// and to those of the root's child the path went through.
func (t *tree) addOwnership(path []step, own []float32, sign float64) {
	if t.ownN == 0 {
		if len(t.own) != len(own) {
			t.own = make([]float64, len(own))
		}
		clear(t.own)
		for j := range t.cown {
			t.cownN[j] = 0
		}
	}
	for i, v := range own {
		t.own[i] += sign * float64(v)
	}
	t.ownN++
	if len(path) == 0 {
		return
	}
	r := &t.nodes[0]
	if len(t.cown) != int(r.count) {
		t.cown = make([][]float64, r.count)
		t.cownN = make([]int32, r.count)
	}
	j := path[0].edge - r.first
	if t.cownN[j] == 0 {
		if len(t.cown[j]) != len(own) {
			t.cown[j] = make([]float64, len(own))
		}
		clear(t.cown[j])
	}
	for i, v := range own {
		t.cown[j][i] += sign * float64(v)
	}
	t.cownN[j]++
}

// RootChildOwnership writes into dst the ownership averaged over the leaves
// evaluated below the root's child reached by action (KataGo's
// movesOwnership), for the root's player to move, and reports whether there
// is one: with SetOutcomes' ownership on, for an action visited since the
// tree was started or last advanced.
func (s *Search) RootChildOwnership(action int, dst []float32) bool {
	t := &s.sr.t
	if s.sr.oc == nil || !s.sr.oc.ownership || t.ownN == 0 || len(t.nodes) == 0 || t.nodes[0].status != nodeExpanded {
		return false
	}
	r := t.nodes[0]
	if len(t.cown) != int(r.count) {
		return false
	}
	for j, e := range t.edges[r.first : r.first+r.count] {
		if int(e.action) != action {
			continue
		}
		if t.cownN[j] == 0 || len(dst) != len(t.cown[j]) {
			return false
		}
		inv := 1 / float64(t.cownN[j])
		if r.player == 1 {
			inv = -inv
		}
		for i, v := range t.cown[j] {
			dst[i] = float32(v * inv)
		}
		return true
	}
	return false
}

// meanScore is node i's mean score for player 0, if it has one.
func (t *tree) meanScore(i int32) (float64, bool) {
	if int(i) >= len(t.sn) || t.sn[i] == 0 {
		return 0, false
	}
	return t.ss[i] / float64(t.sn[i]), true
}

// outcomeLeaf backs up the outcome of batch slot i's evaluated leaf, whose
// score and ownership are for the leaf's player to move.
func (sr *searcher) outcomeLeaf(path []step, leaf int32, i int) {
	oc := sr.oc
	sign := 1.0
	if sr.t.nodes[leaf].player == 1 {
		sign = -1
	}
	if oc.score {
		sr.t.addScore(path, leaf, sign*float64(oc.scores[i]))
	}
	if oc.ownership {
		sr.t.addOwnership(path, oc.own[i], sign)
	}
}

// outcomeTerminal backs up the final score and ownership of terminal leaf,
// position st (nothing for a game without games.Outcomer).
func (sr *searcher) outcomeTerminal(path []step, leaf int32, st games.State) {
	o, ok := st.(games.Outcomer)
	if !ok {
		return
	}
	if sr.oc.score {
		sr.t.addScore(path, leaf, o.FinalScore())
	}
	if sr.oc.ownership && len(sr.oc.ownBuf) == sr.oc.hw {
		o.FinalOwnership(sr.oc.ownBuf)
		sr.t.addOwnership(path, sr.oc.ownBuf, 1)
	}
}

// outcomeSolved backs up the outcome of solved leaf reached through path: a
// terminal's own (its position replayed from the root), or, for a node the
// solver proved, its mean score so far (nothing when it has none: it was
// proven before any evaluation) and no ownership.
func (sr *searcher) outcomeSolved(path []step, leaf int32) {
	if sr.t.nodes[leaf].status == nodeTerminal {
		st := copyState(sr.oc.state, sr.root)
		sr.oc.state = st
		for _, p := range path {
			st.ApplyAction(int(sr.t.edges[p.edge].action))
		}
		if !st.IsTerminal() {
			panic(fmt.Sprintf("mcts: outcomes: terminal node %d replays to a position that is not over", leaf))
		}
		sr.outcomeTerminal(path, leaf, st)
		return
	}
	if m, ok := sr.t.meanScore(leaf); ok && sr.oc.score {
		sr.t.addScore(path, leaf, m)
	}
}

// keepOutcomes carries the score sums through tree.keep's compaction: the
// node of new index k is the old node queue[k]. The root's ownership
// restarts with the new root.
func (t *tree) keepOutcomes() {
	t.ownN = 0
	if t.sn == nil {
		return
	}
	ss, sn := make([]float64, len(t.queue)), make([]int32, len(t.queue))
	for k, old := range t.queue {
		if int(old) < len(t.sn) {
			ss[k], sn[k] = t.ss[old], t.sn[old]
		}
	}
	t.ss, t.sn = ss, sn
}
