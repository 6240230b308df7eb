package cfr

import (
	"fmt"
	"slices"

	"tabula/games"
)

// Node kinds.
const (
	terminal = iota
	chance
	decision
)

// node is one history of the game tree. Its children are
// tree.child[first : first+n], in the order of the legal actions (at a
// chance node: of the outcomes, with probabilities tree.prob[first:...]).
type node struct {
	kind    int8
	player  int8
	infoset int32   // decision nodes: index into tree.infosets
	first   int32   // first child's slot in tree.child
	n       int32   // children
	value   float64 // terminal nodes: player 0's return
}

// infoset is one information set: the histories its player cannot tell
// apart, all with the same legal actions.
type infoset struct {
	key     string
	player  int
	actions []int
	offset  int // first of its len(actions) entries in the per-action tables
}

// tree is the whole game tree of a game, built once, with the information
// sets of its decision nodes.
type tree struct {
	nodes    []node
	child    []int32
	prob     []float64
	infosets []infoset
	index    map[string]int32 // information-state key -> infoset
	slots    int              // per-action table entries: sum of len(actions)
	maxWidth int              // the most children of a node
}

// buildTree enumerates every history of g from its initial state, keying
// decision nodes by the mover's InformationStateString. It fails when the
// tree exceeds maxNodes nodes or an information set's histories disagree on
// the legal actions.
func buildTree(g games.Game, maxNodes int) (*tree, error) {
	t := &tree{index: map[string]int32{}}
	s, ok := g.NewInitialState().(games.InformationState)
	if !ok {
		return nil, fmt.Errorf("game %s: states do not implement games.InformationState", g.Name())
	}
	if _, err := t.add(s, maxNodes); err != nil {
		return nil, fmt.Errorf("game %s: %w", g.Name(), err)
	}
	return t, nil
}

// add appends the subtree of s and returns its root's index.
func (t *tree) add(s games.InformationState, maxNodes int) (int32, error) {
	if len(t.nodes) >= maxNodes {
		return 0, fmt.Errorf("the game tree has more than %d nodes", maxNodes)
	}
	id := int32(len(t.nodes))
	t.nodes = append(t.nodes, node{})
	if s.IsTerminal() {
		t.nodes[id] = node{kind: terminal, value: s.Returns()[0]}
		return id, nil
	}
	var actions []int
	nd := node{first: int32(len(t.child))}
	if cs, ok := s.(games.ChanceState); ok && cs.IsChanceNode() {
		nd.kind = chance
		for _, o := range cs.ChanceOutcomes(nil) {
			actions = append(actions, o.Action)
			t.prob = append(t.prob, o.Prob)
			t.child = append(t.child, 0)
		}
	} else {
		nd.kind = decision
		p := s.CurrentPlayer()
		nd.player = int8(p)
		actions = s.LegalActions(nil)
		key := s.InformationStateString(p)
		is, seen := t.index[key]
		if !seen {
			is = int32(len(t.infosets))
			t.index[key] = is
			t.infosets = append(t.infosets, infoset{key: key, player: p, actions: actions, offset: t.slots})
			t.slots += len(actions)
		} else if !slices.Equal(t.infosets[is].actions, actions) {
			return 0, fmt.Errorf("information state %q has legal actions %v and %v", key, t.infosets[is].actions, actions)
		}
		nd.infoset = is
		for range actions {
			t.child = append(t.child, 0)
			t.prob = append(t.prob, 0)
		}
	}
	nd.n = int32(len(actions))
	t.maxWidth = max(t.maxWidth, len(actions))
	t.nodes[id] = nd
	for i, a := range actions {
		c := s.Clone()
		c.ApplyAction(a)
		k, err := t.add(c.(games.InformationState), maxNodes)
		if err != nil {
			return 0, err
		}
		t.child[int(nd.first)+i] = k
	}
	return id, nil
}
