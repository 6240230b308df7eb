package players

import (
	"errors"
	"fmt"
	"math"

	"tabula/games"
	"tabula/nn"
	"tabula/search"
)

// netEdge bounds a network value used as a search's evaluation: the value is
// clamped to [-netEdge, netEdge], strictly inside (-1, 1), so that alpha-beta's
// proven wins and losses (beyond +-1) and expectiminimax's terminal returns
// (+-1) order beyond every network value.
const netEdge = 1 - 1e-6

// chessNetK is the logistic scale, per centipawn, that best turns the hand
// evaluation into game results: a game is scored sigmoid(K*cp) with
// K = 0.00261584, fitted by scripts/texel on 83,932 positions of depth-3
// alpha-beta self-play (docs/benchmarks.md, "Learned evaluation
// weights"). A Tactical game's network value v,
// an expected score 2P-1 = tanh(K*cp/2), is turned into centipawns by
// cp = 2*atanh(v)/K, so that the searcher's margins in centipawns
// (aspiration windows, futility, delta pruning) keep their meaning.
const chessNetK = 0.00261584

// maxNetCP bounds a Tactical game's network value in centipawns, as the
// hand evaluation bounds its own (chess: 9999, times Centipawn() = 1e-4,
// inside (-1, 1)).
const maxNetCP = 9999

// netEvalKeys are the spec keys that load a network as a searcher's
// evaluation (eval=net): they mean nothing without it.
var netEvalKeys = []string{"path", "model", "precision", "cache"}

// loadNetEvaluator loads the network a spec names (path=FILE or
// model=NAME), checks that it is a network of g and returns a batching
// evaluator of it with the spec's precision and cache, which the caller
// closes: the net player's.
func loadNetEvaluator(g games.Game, spec Spec) (*nn.Evaluator, error) {
	w, _, err := loadNetWeights(g, spec)
	if err != nil {
		return nil, err
	}
	return nn.NewEvaluator(netEvaluatorConfig(spec), w, g)
}

// loadNetWeights reads the network a spec names (path=FILE or model=NAME)
// and checks that it is a network of g; it returns the weights and the
// file's path.
func loadNetWeights(g games.Game, spec Spec) (*nn.Weights, string, error) {
	path, err := netPath(spec)
	if err != nil {
		return nil, "", err
	}
	ck, err := nn.LoadCheckpoint(path)
	if err != nil {
		return nil, "", err
	}
	if err := ck.CheckGame(g); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return ck.Weights, path, nil
}

// netEvalOf returns the network of an alphabeta or expectimax spec's
// eval=net, or nil when the spec's eval is another; it refuses the network
// keys (path, model, precision, cache) without eval=net. The network runs in
// the searcher's own goroutine (nn.NetEvaluator, one per searcher from
// Worker, their cache shared): a forward pass is part of the search's
// thread, so a cpu= budget counts it as it counts the hand evaluation.
func netEvalOf(g games.Game, spec Spec) (*nn.NetEvaluator, error) {
	if spec.Str("eval", "") != "net" {
		for _, k := range netEvalKeys {
			if spec.Has(k) {
				return nil, fmt.Errorf("%s is for eval=net (a value network as the evaluation), not eval=%s", k, spec.Str("eval", "hand"))
			}
		}
		return nil, nil
	}
	if !spec.Has("path") && !spec.Has("model") {
		return nil, errors.New("eval=net needs path=FILE or model=NAME (a shipped network, models/manifest.json)")
	}
	ev, err := loadLeafNet(g, spec)
	if err != nil {
		return nil, fmt.Errorf("eval=net: %w", err)
	}
	return ev, nil
}

// loadLeafNet loads the network a spec names as a direct evaluator with the
// spec's precision and cache (netEvaluatorConfig's, as the net player's).
func loadLeafNet(g games.Game, spec Spec) (*nn.NetEvaluator, error) {
	w, path, err := loadNetWeights(g, spec)
	if err != nil {
		return nil, err
	}
	cfg := netEvaluatorConfig(spec)
	m, err := nn.NewModelFor(w, g, cfg.Precision)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return nn.NewNetEvaluator(m, g, cfg.MaxBatch, cfg.CacheSize)
}

// netLeaf is a network as the evaluation at a searcher's horizon: Evaluate
// (games.Heuristic, alpha-beta) and Evaluation (search.Evaluation,
// expectiminimax). A decision is one forward pass in the caller's
// goroutine (or a hit in the cache the searchers share); a chance node is
// the expectation over its outcomes, the decisions after them evaluated in
// one batch. One netLeaf serves one searcher: it is not safe for concurrent
// use.
//
// A search cannot return an error from its evaluation: the first error of
// the evaluator is kept, the position scored 0, and Err reports it after
// the search.
type netLeaf struct {
	ev *nn.NetEvaluator // this searcher's own
	// cp is a Tactical game's centipawn in heuristic units, 0 otherwise:
	// with it the value is given in centipawns (see chessNetK).
	cp float64

	one    [1]games.State
	onePol [1][]float32
	oneVal [1]float32

	// levels are the buffers of chance nodes, one per nesting level
	// (a chance outcome leading to another chance node).
	levels []*chanceLevel
	err    error
}

// chanceLevel holds one chance node's outcomes, the positions after them
// and the network's answers.
type chanceLevel struct {
	outs   []games.ChanceOutcome
	kids   []games.State
	batch  []games.State // the kids to evaluate, in batch order
	idx    []int         // batch[i] is kids[idx[i]]
	pols   [][]float32
	vals   []float32
	values []float64 // per kid, for the chance node's next player
}

// newNetLeaf returns a leaf evaluator of root's network for positions of g,
// with its own buffers (root.Worker) over root's cache.
func newNetLeaf(root *nn.NetEvaluator, g games.Game) *netLeaf {
	l := &netLeaf{ev: root.Worker()}
	if t, ok := g.NewInitialState().(search.Tactical); ok {
		l.cp = t.Centipawn()
	}
	l.onePol[0] = make([]float32, g.NumActions())
	return l
}

// Err returns the first error of the evaluator since the last call, and
// forgets it.
func (l *netLeaf) Err() error {
	err := l.err
	l.err = nil
	return err
}

// scale turns the network's value for the player to move into the
// searcher's units: clamped strictly inside (-1, 1), or in a Tactical game
// centipawns times Centipawn().
func (l *netLeaf) scale(v float32) float64 {
	x := float64(v)
	if l.cp != 0 {
		cp := 2 * math.Atanh(max(-1, min(1, x))) / chessNetK
		return max(-maxNetCP, min(maxNetCP, cp)) * l.cp
	}
	return max(-netEdge, min(netEdge, x))
}

// Evaluate scores decision s for the player to move (games.Heuristic).
func (l *netLeaf) Evaluate(s games.State) float64 {
	if games.IsChanceNode(s) {
		return l.chance(s.(games.ChanceState), 0)
	}
	l.one[0] = s
	err := l.ev.Evaluate(l.one[:], l.onePol[:], l.oneVal[:])
	l.one[0] = nil
	if err != nil {
		l.fail(err)
		return 0
	}
	return l.scale(l.oneVal[0])
}

// Evaluation scores s for the player who moves next (search.Evaluation).
func (l *netLeaf) Evaluation(s games.State) float64 { return l.Evaluate(s) }

func (l *netLeaf) fail(err error) {
	if l.err == nil {
		l.err = err
	}
}

// level returns the buffers of nesting level n.
func (l *netLeaf) level(n int, g games.Game) *chanceLevel {
	for len(l.levels) <= n {
		l.levels = append(l.levels, &chanceLevel{})
	}
	c := l.levels[n]
	if c.pols == nil {
		m := 0
		if st, ok := g.(games.Stochastic); ok {
			m = st.MaxChanceOutcomes()
		}
		c.kids = make([]games.State, m)
		c.pols = make([][]float32, m)
		for i := range c.pols {
			c.pols[i] = make([]float32, g.NumActions())
		}
		c.vals = make([]float32, m)
		c.values = make([]float64, m)
	}
	return c
}

// chance returns the expected value of chance node s for its next player:
// the mean over its outcomes, weighted by their probabilities, of the
// network's value of the position each leads to (a terminal one scores its
// return). The decisions after the outcomes go through the network as one
// batch.
func (l *netLeaf) chance(s games.ChanceState, depth int) float64 {
	c := l.level(depth, s.Game())
	next := s.NextPlayer()
	c.outs = s.ChanceOutcomes(c.outs[:0])
	c.batch, c.idx = c.batch[:0], c.idx[:0]
	for i, o := range c.outs {
		c.kids[i] = copyInto(c.kids[i], s)
		k := c.kids[i]
		k.ApplyAction(o.Action)
		switch {
		case k.IsTerminal():
			c.values[i] = max(-1, min(1, k.Returns()[next]))
		case games.IsChanceNode(k):
			v := l.chance(k.(games.ChanceState), depth+1)
			if k.(games.ChanceState).NextPlayer() != next {
				v = -v
			}
			c.values[i] = v
		default:
			c.batch = append(c.batch, k)
			c.idx = append(c.idx, i)
		}
	}
	if n := len(c.batch); n > 0 {
		err := l.ev.Evaluate(c.batch, c.pols[:n], c.vals[:n])
		clear(c.batch)
		if err != nil {
			l.fail(err)
			return 0
		}
		for j, i := range c.idx {
			v := l.scale(c.vals[j])
			if c.kids[i].CurrentPlayer() != next {
				v = -v
			}
			c.values[i] = v
		}
	}
	sum := 0.0
	for i, o := range c.outs {
		sum += o.Prob * c.values[i]
	}
	return max(-netEdge, min(netEdge, sum))
}

// copyInto makes dst a copy of src, in place when the state can copy itself
// (search.Copier), else a clone.
func copyInto(dst, src games.State) games.State {
	if c, ok := dst.(search.Copier); ok && dst != nil {
		c.CopyFrom(src)
		return dst
	}
	return src.Clone()
}
