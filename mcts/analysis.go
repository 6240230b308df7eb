package mcts

import (
	"context"
	"errors"
	"sort"
	"time"

	"tabula/games"
)

// ChildStat is what the search knows of one action at the root, for
// analysis front ends (GTP's lz-analyze and kata-analyze).
type ChildStat struct {
	Action int
	// Visits is the number of playouts through the action.
	Visits int
	// Q is the mean value of the action for the player to move at the
	// root, in [-1, 1]; 0 without visits.
	Q float32
	// Prior is the evaluator's prior of the action (without root noise).
	Prior float32
	// Score, with Scored, is the final margin for the player to move at
	// the root averaged over the evaluations backed up through the
	// action's subtree (Search.SetOutcomes); Scored is false without
	// the tracking or before the action's first visit.
	Score  float32
	Scored bool
}

// RootChildren appends what the last search knows of every action at the
// root to dst, most visited first (ties: the higher prior first), and
// returns it; nothing before a search or while the root is unexpanded. It
// reads the tree and changes nothing.
func (s *Search) RootChildren(dst []ChildStat) []ChildStat {
	t := &s.sr.t
	if s.sr.root == nil || len(t.nodes) == 0 || t.nodes[0].status != nodeExpanded {
		return dst
	}
	r := t.nodes[0]
	start := len(dst)
	for _, e := range t.edges[r.first : r.first+r.count] {
		c := ChildStat{Action: int(e.action), Visits: int(e.n), Prior: e.p}
		if e.n > 0 {
			c.Q = e.w / float32(e.n)
		}
		if s.sr.oc != nil && e.child >= 0 {
			if m, ok := t.meanScore(e.child); ok {
				if r.player == 1 {
					m = -m
				}
				c.Score, c.Scored = float32(m), true
			}
		}
		dst = append(dst, c)
	}
	kids := dst[start:]
	sort.SliceStable(kids, func(i, j int) bool {
		if kids[i].Visits != kids[j].Visits {
			return kids[i].Visits > kids[j].Visits
		}
		return kids[i].Prior > kids[j].Prior
	})
	return dst
}

// PV appends to dst the principal variation that starts with root action
// first: first, then in each position reached the most visited action, while
// the tree has visited one, up to max actions in all. It reads the tree and
// changes nothing.
func (s *Search) PV(dst []int, first, max int) []int {
	t := &s.sr.t
	if s.sr.root == nil || len(t.nodes) == 0 || t.nodes[0].status != nodeExpanded || max <= 0 {
		return dst
	}
	r := t.nodes[0]
	var next int32 = -1
	for _, e := range t.edges[r.first : r.first+r.count] {
		if int(e.action) == first {
			next = e.child
		}
	}
	dst = append(dst, first)
	for n := 1; n < max && next >= 0; n++ {
		nd := t.nodes[next]
		if nd.status != nodeExpanded || nd.chance {
			break
		}
		best := int32(-1)
		for k := nd.first; k < nd.first+nd.count; k++ {
			if e := t.edges[k]; e.n > 0 && (best < 0 || e.n > t.edges[best].n) {
				best = k
			}
		}
		if best < 0 {
			break
		}
		dst = append(dst, int(t.edges[best].action))
		next = t.edges[best].child
	}
	return dst
}

// RootValue is the root's mean value for the player to move after the last
// search, in [-1, 1].
func (s *Search) RootValue() float32 {
	if s.sr.root == nil || len(s.sr.t.nodes) == 0 {
		return 0
	}
	return s.sr.t.rootValue()
}

// Ponder runs sims more playouts from st without root noise and chooses
// nothing. When st is the position the tree stands for, the tree is kept
// (whether or not tree reuse is on), so that repeated calls deepen one
// analysis; otherwise it is kept as Run keeps it. Read the result with
// RootChildren, PV and RootValue.
func (s *Search) Ponder(ctx context.Context, st games.State, sims int) error {
	if st == nil {
		return errors.New("mcts: nil state")
	}
	if st.IsTerminal() {
		return errTerminal
	}
	if games.IsChanceNode(st) {
		return errors.New("mcts: the position is a chance node: roll the dice first")
	}
	start := time.Now()
	if s.sr.root == nil || !sameState(s.sr.root, st) || len(s.b.states) == 0 {
		s.sync(st)
	}
	if s.cfg.CountReused {
		sims += int(s.sr.t.nodes[0].n)
	}
	return s.search(ctx, sims, false, start)
}

// Search returns the player's search, for analysis (Ponder, RootChildren,
// PV); a search between the player's moves changes what its next move
// reuses, as the opponent's thinking time would.
func (p *Player) Search() *Search { return p.s }
