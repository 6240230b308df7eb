package nn

import (
	"errors"
	"fmt"
	"time"

	"tabula/games"
)

// NetEvaluator implements mcts.Evaluator by running a Net in the calling
// goroutine: no worker goroutines, no channels, one forward pass per Evaluate
// call (split into passes of at most MaxBatch positions). It suits a self-play
// worker that already gathers a batch of leaves from its many games: give
// each worker its own NetEvaluator (NewNetEvaluator for the first, Worker
// for the others), one worker per core. It is not safe for concurrent use.
//
// Its optional cache works as the Evaluator's (keyed by State.Hash, verified
// by a hash of the observation and the legal actions; a position that occurs
// twice in one call is evaluated once); NetEvaluators made by Worker share it
// and their counters.
type NetEvaluator struct {
	e      *Evaluator // never started: holds the shape, the model, the cache and the counters
	net    *Net
	r      request
	logits []float32
	values []float32
}

// NewNetEvaluator returns an evaluator of positions of g running model m in
// batches of up to maxBatch positions, with a cache of cacheSize results (0:
// none).
func NewNetEvaluator(m *Model, g games.Game, maxBatch, cacheSize int) (*NetEvaluator, error) {
	if m == nil || g == nil {
		return nil, errors.New("nn: net evaluator: nil model or game")
	}
	cfg := EvaluatorConfig{MaxBatch: maxBatch, Workers: 1, CacheSize: cacheSize}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("nn: net evaluator: %w", err)
	}
	p, h, w := g.ObservationShape()
	sh := Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}
	if m.shape != sh {
		mine, theirs := m.shape.Diff(sh)
		return nil, fmt.Errorf("nn: net evaluator: the network does not fit game %s: it has %s, the game needs %s", g.Name(), mine, theirs)
	}
	e := &Evaluator{cfg: cfg, game: g, shape: sh, obsLen: p * h * w, numActions: sh.Actions}
	e.snap.Store(&snapshot{model: m, gen: 1})
	if cacheSize > 0 {
		e.cache = newEvalCache(cacheSize, sh.Actions)
	}
	return newNetEvaluator(e, m), nil
}

func newNetEvaluator(e *Evaluator, m *Model) *NetEvaluator {
	mb := e.cfg.MaxBatch
	return &NetEvaluator{
		e:      e,
		net:    m.newNet(mb, defaultChunk(mb, m.hw)),
		logits: make([]float32, mb*e.numActions),
		values: make([]float32, mb),
	}
}

// Worker returns a NetEvaluator for another goroutine: it shares n's model,
// cache and counters, with its own network buffers.
func (n *NetEvaluator) Worker() *NetEvaluator { return newNetEvaluator(n.e, n.e.snap.Load().model) }

// Stats returns the counters so far, of n and every NetEvaluator sharing its
// cache (see Worker), and the precision of the current model.
func (n *NetEvaluator) Stats() EvaluatorStats {
	s := n.e.Stats()
	s.Precision = n.e.snap.Load().model.Precision().String()
	return s
}

// SetModel makes the next Evaluate of n, and of every NetEvaluator sharing
// its cache (see Worker), run model m, a network of the same game, and
// empties that cache: its results are of the previous network. It keeps
// the cache's memory and, when m has the same architecture and precision
// as the model before, each NetEvaluator's network buffers. It is safe to
// call while they evaluate; a call in flight finishes with the model it
// started with (and caches its results as the previous network's).
func (n *NetEvaluator) SetModel(m *Model) error {
	e := n.e
	if m == nil {
		return errors.New("nn: net evaluator: nil model")
	}
	if m.shape != e.shape {
		mine, theirs := m.shape.Diff(e.shape)
		return fmt.Errorf("nn: net evaluator: the network does not fit game %s: it has %s, the game needs %s", e.game.Name(), mine, theirs)
	}
	e.weights.Lock()
	defer e.weights.Unlock()
	e.snap.Store(&snapshot{model: m, gen: e.snap.Load().gen + 1})
	return nil
}

// Evaluate implements mcts.Evaluator, with the same results as
// Evaluator.Evaluate on the same network. It allocates nothing once its
// buffers have grown to the largest call.
func (n *NetEvaluator) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	e := n.e
	if len(policies) != len(states) || len(values) != len(states) {
		return fmt.Errorf("nn: evaluate: %d states, %d policies, %d values", len(states), len(policies), len(values))
	}
	if len(states) == 0 {
		return nil
	}
	e.requests.Add(1)
	snap := e.snap.Load()
	if m := snap.model; n.net.m != m {
		if n.net.m.sameBuffers(m) {
			n.net.m = m // same sizes and precision: keep the buffers
		} else {
			mb := e.cfg.MaxBatch
			n.net = m.newNet(mb, defaultChunk(mb, m.hw))
		}
	}
	gen := snap.gen
	r := &n.r
	defer func() { r.policies, r.values = nil, nil }()
	if err := e.prepare(r, gen, states, policies, values); err != nil {
		return err
	}
	per, na, mb := e.obsLen, e.numActions, e.cfg.MaxBatch
	for start := 0; start < len(r.missing); start += mb {
		idx := r.missing[start:min(start+mb, len(r.missing))]
		t0 := time.Now()
		// prepare packed the observations of the positions left in
		// r.missing's order.
		err := n.net.Forward(r.obs[start*per:], len(idx), n.logits, n.values)
		e.forward.Add(int64(time.Since(t0)))
		if err != nil {
			return fmt.Errorf("nn: evaluate: %w", err)
		}
		e.batches.Add(1)
		e.evaluated.Add(int64(len(idx)))
		for k, i := range idx {
			legal := r.legal[r.legalOff[i]:r.legalOff[i+1]]
			maskedSoftmax(policies[i], n.logits[k*na:(k+1)*na], legal)
			values[i] = n.values[k]
			if e.cache != nil {
				e.cache.put(r.hash[i], r.check[i], gen, legal, policies[i], n.values[k])
			}
		}
	}
	r.fillDups()
	return nil
}
