package mcts

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"tabula/games"
)

// ISMCTSConfig tunes ISMCTS.
type ISMCTSConfig struct {
	// Iterations per move: each draws one determinisation.
	Iterations int
	// C is the UCB exploration constant, on rewards scaled to [0, 1]
	// (Cowling et al. use 0.7).
	C float64
}

// Validate checks the ranges.
func (c ISMCTSConfig) Validate() error {
	if c.Iterations < 1 {
		return fmt.Errorf("ismcts: iterations %d, want at least 1", c.Iterations)
	}
	if c.C < 0 || math.IsNaN(c.C) {
		return fmt.Errorf("ismcts: exploration constant %v, want at least 0", c.C)
	}
	return nil
}

// ISMCTS is single-observer information-set MCTS (SO-ISMCTS: Cowling,
// Powley and Whitehouse 2012, "Information Set Monte Carlo Tree Search",
// IEEE TCIAIG 4(2)). The tree's nodes are information sets of the player to
// move at the root, reached by sequences of actions from it. Each iteration
// draws a determinisation consistent with that player's information state
// (games.InformationState.Resample) and descends the tree in it: at a node
// whose actions available in the determinisation are all in the tree, it
// picks the child of highest UCB, where a child's count of visits is set
// against its availability count (the number of descents that found the
// action legal) instead of the parent's visits; otherwise it adds one
// untried available action. A random playout finishes the determinised game
// and every node on the path is credited with the result for the player who
// moved into it. Chance events are drawn as they come. The move played is
// the root's most visited child. It is not safe for concurrent use.
type ISMCTS struct {
	cfg ISMCTSConfig
	rng *rand.Rand
	buf []int
}

// isNode is one node of the information-set tree: the edge into it and its
// statistics.
type isNode struct {
	kids   map[int]*isNode
	player int     // who chose the action into this node (-1: chance)
	visits float64 // descents through the node
	avail  float64 // descents that found its action available
	reward float64 // sum of player's rewards in [0, 1]
}

func (n *isNode) child(a, player int) (*isNode, bool) {
	if n.kids == nil {
		n.kids = map[int]*isNode{}
	}
	k, ok := n.kids[a]
	if !ok {
		k = &isNode{player: player}
		n.kids[a] = k
	}
	return k, ok
}

// NewISMCTS returns an IS-MCTS player for g, a game of imperfect information
// (games.RequireImperfect).
func NewISMCTS(g games.Game, cfg ISMCTSConfig, rng *rand.Rand) (*ISMCTS, error) {
	if err := games.RequireImperfect(g, "ismcts"); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &ISMCTS{cfg: cfg, rng: rng}, nil
}

// ChooseAction searches from the mover's information state in s and
// returns the most visited action.
func (m *ISMCTS) ChooseAction(ctx context.Context, s games.State) (int, error) {
	visits, err := m.Search(ctx, s)
	if err != nil {
		return 0, err
	}
	best, bestN := -1, -1.0
	for _, a := range s.LegalActions(m.buf) {
		if n := visits[a]; n > bestN {
			best, bestN = a, n
		}
	}
	return best, nil
}

// Search runs cfg.Iterations iterations from s and returns the visits of
// each root action, indexed by action.
func (m *ISMCTS) Search(ctx context.Context, s games.State) ([]float64, error) {
	if s.IsTerminal() {
		return nil, fmt.Errorf("ismcts: the game is over")
	}
	if games.IsChanceNode(s) {
		return nil, fmt.Errorf("ismcts: asked to move at a chance node")
	}
	is, ok := s.(games.InformationState)
	if !ok {
		return nil, fmt.Errorf("ismcts: game %s has no information states", s.Game().Name())
	}
	me := s.CurrentPlayer()
	root := &isNode{player: -1}
	var path []*isNode
	for it := 0; it < m.cfg.Iterations; it++ {
		if it%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		d := is.Resample(me, m.rng)
		path = append(path[:0], root)
		m.descend(root, d, &path)
		for !d.IsTerminal() { // random playout
			a, _ := games.SampleChance(d, m.rng)
			if !games.IsChanceNode(d) {
				m.buf = d.LegalActions(m.buf)
				a = m.buf[m.rng.IntN(len(m.buf))]
			}
			d.ApplyAction(a)
		}
		r := d.Returns()
		for _, n := range path {
			n.visits++
			if n.player >= 0 {
				n.reward += (r[n.player] + 1) / 2
			}
		}
	}
	out := make([]float64, s.Game().NumActions())
	for a, k := range root.kids {
		out[a] = k.visits
	}
	return out, nil
}

// descend walks determinisation d down the tree from n, selecting by UCB
// with availability counts, until it adds a node or the game ends; the
// nodes passed are appended to path and d is left at the last one.
func (m *ISMCTS) descend(n *isNode, d games.State, path *[]*isNode) {
	for !d.IsTerminal() {
		if games.IsChanceNode(d) {
			a, _ := games.SampleChance(d, m.rng)
			n, _ = n.child(a, -1)
			d.ApplyAction(a)
			*path = append(*path, n)
			continue
		}
		mover := d.CurrentPlayer()
		m.buf = d.LegalActions(m.buf)
		var untried []int
		for _, a := range m.buf {
			if k, ok := n.kids[a]; ok {
				k.avail++
			} else {
				untried = append(untried, a)
			}
		}
		if len(untried) > 0 {
			a := untried[m.rng.IntN(len(untried))]
			k, _ := n.child(a, mover)
			k.avail++
			d.ApplyAction(a)
			*path = append(*path, k)
			return
		}
		best, bestU := -1, math.Inf(-1)
		for _, a := range m.buf {
			k := n.kids[a]
			u := k.reward/k.visits + m.cfg.C*math.Sqrt(math.Log(k.avail)/k.visits)
			if u > bestU {
				best, bestU = a, u
			}
		}
		n = n.kids[best]
		d.ApplyAction(best)
		*path = append(*path, n)
	}
}
