package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"tabula/games"
)

// UCTConfig configures plain UCT: UCB1 selection, one node added per
// iteration, a uniformly random playout from it.
type UCTConfig struct {
	// Rollouts is the number of iterations (each one random playout) per
	// move. The player spec "mcts:rollouts=1000" maps to Rollouts=1000.
	Rollouts int `yaml:"rollouts"`
	// C is the exploration constant of UCB1, Q + C sqrt(ln N / n).
	C float64 `yaml:"c"`
	// MoveTime, when positive, also stops a search after this much time.
	MoveTime time.Duration `yaml:"move_time"`
}

// DefaultUCTConfig returns 1000 rollouts with C = sqrt(2).
func DefaultUCTConfig() UCTConfig {
	return UCTConfig{Rollouts: 1000, C: math.Sqrt2}
}

// Validate checks every field and returns an error naming the first one out
// of range.
func (c UCTConfig) Validate() error {
	switch {
	case c.Rollouts < 1:
		return fmt.Errorf("mcts: uct rollouts = %d, want >= 1", c.Rollouts)
	case !(c.C >= 0 && c.C <= 100):
		return fmt.Errorf("mcts: uct c = %v, want in [0, 100]", c.C)
	case c.MoveTime < 0:
		return fmt.Errorf("mcts: uct move_time = %v, want >= 0", c.MoveTime)
	}
	return nil
}

// UCT is Monte-Carlo tree search with random rollouts (Kocsis and
// Szepesvari's UCT). It starts a fresh tree for every move and is not safe
// for concurrent use. It plays games of chance too: a chance node is
// expanded with every outcome as an edge, and each iteration descends into
// one outcome sampled by its probability (so the node's mean is a sampled
// expectation); rollouts draw the dice the same way.
type UCT struct {
	cfg     UCTConfig
	rng     *rand.Rand
	t       tree
	root    games.State
	scratch games.State
	buf     []int
	pathBuf []step
	prior   []float32
	outs    []games.ChanceOutcome
}

// NewUCT returns a UCT player drawing its playouts and tie-breaks from rng.
func NewUCT(cfg UCTConfig, rng *rand.Rand) (*UCT, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, errors.New("mcts: uct: nil rng")
	}
	return &UCT{cfg: cfg, rng: rng}, nil
}

// ChooseAction searches st and returns the most visited action.
func (u *UCT) ChooseAction(ctx context.Context, st games.State) (int, error) {
	if st == nil {
		return 0, errors.New("mcts: uct: nil state")
	}
	if st.IsTerminal() {
		return 0, errTerminal
	}
	if games.IsChanceNode(st) {
		return 0, errors.New("mcts: uct: the position is a chance node: roll the dice first")
	}
	u.root = copyState(u.root, st)
	if n := st.Game().NumActions(); len(u.prior) != n {
		u.prior = make([]float32, n)
	}
	u.t.reset()
	u.expand(0, u.root)
	var deadline time.Time
	if u.cfg.MoveTime > 0 {
		deadline = time.Now().Add(u.cfg.MoveTime)
	}
	for i := range u.cfg.Rollouts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, fmt.Errorf("mcts: uct: %w", err)
			}
			if !deadline.IsZero() && i > 0 && time.Now().After(deadline) {
				break
			}
		}
		u.iterate()
	}
	r := u.t.nodes[0]
	es := u.t.edges[r.first : r.first+r.count]
	best, ties := 0, 0
	for j := range es {
		switch {
		case es[j].n > es[best].n:
			best, ties = j, 1
		case es[j].n == es[best].n:
			ties++
			if j != best && u.rng.IntN(ties) == 0 {
				best = j
			}
		}
	}
	return int(es[best].action), nil
}

// iterate runs one UCT iteration: select, expand one node, play out, back up.
func (u *UCT) iterate() {
	t := &u.t
	path := u.pathBuf[:0]
	cur := int32(0)
	for t.nodes[cur].status == nodeExpanded {
		ei := u.selectEdge(cur)
		c := t.edges[ei].child
		path = append(path, step{node: cur, edge: ei})
		if c < 0 {
			c = t.newNode()
			t.edges[ei].child = c
			cur = c
			break
		}
		cur = c
	}
	u.pathBuf = path
	if t.nodes[cur].status == nodeTerminal {
		t.terminalBackup(path, cur, 0)
		return
	}
	u.scratch = copyState(u.scratch, u.root)
	for _, p := range path {
		u.scratch.ApplyAction(int(t.edges[p.edge].action))
	}
	if u.scratch.IsTerminal() {
		t.nodes[cur].status = nodeTerminal
		t.nodes[cur].w = float32(u.scratch.Returns()[0])
		t.terminalBackup(path, cur, 0)
		return
	}
	u.expand(cur, u.scratch)
	player := t.nodes[cur].player
	r := rollout(u.scratch, u.rng, &u.buf)
	t.backup(path, cur, player, float32(r[player]), 0)
}

// expand expands node i at state s: uniform priors at a decision (UCB1
// ignores them), the outcomes' probabilities at a chance node.
func (u *UCT) expand(i int32, s games.State) {
	cs, ok := s.(games.ChanceState)
	if !ok || !cs.IsChanceNode() {
		u.t.expand(i, s, u.prior)
		return
	}
	u.outs = cs.ChanceOutcomes(u.outs[:0])
	for _, o := range u.outs {
		u.prior[o.Action] = float32(o.Prob)
	}
	u.t.expand(i, s, u.prior)
	for _, o := range u.outs {
		u.prior[o.Action] = 0
	}
}

// selectEdge returns the edge of node i with the highest UCB1 value; an
// unvisited edge comes first. At a chance node it samples an outcome by
// its probability: chance nodes keep every outcome as an edge and descend
// into the sampled one, so each outcome's subtree gets visits in proportion
// to its probability and the node's value is their weighted mean.
func (u *UCT) selectEdge(i int32) int32 {
	nd := &u.t.nodes[i]
	es := u.t.edges[nd.first : nd.first+nd.count]
	if nd.chance {
		r := u.rng.Float32()
		for j := range es {
			if r < es[j].p {
				return nd.first + int32(j)
			}
			r -= es[j].p
		}
		return nd.first + nd.count - 1
	}
	logN := math.Log(float64(nd.n))
	c := u.cfg.C
	best, bi := math.Inf(-1), 0
	for j := range es {
		e := &es[j]
		if e.n == 0 {
			return nd.first + int32(j)
		}
		n := float64(e.n)
		v := float64(e.w)/n + c*math.Sqrt(logN/n)
		if v > best {
			best, bi = v, j
		}
	}
	return nd.first + int32(bi)
}
