package nn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"tabula/games"
	"tabula/internal/fastexp"
	"tabula/internal/prefetch"
)

// ErrClosed is returned by Evaluate once the Evaluator is closed or the
// context given to Start has ended.
var ErrClosed = errors.New("nn: evaluator closed")

// EvaluatorConfig tunes an Evaluator.
type EvaluatorConfig struct {
	// MaxBatch is the most positions one forward pass evaluates.
	MaxBatch int `yaml:"max_batch"`
	// MaxWait is how long a worker holding a partial batch waits for more
	// positions before it runs the batch anyway. Zero runs whatever is
	// queued at once.
	MaxWait time.Duration `yaml:"max_wait"`
	// Workers is the number of inference goroutines, each with its own
	// batches; 0 means one per core (GOMAXPROCS when the workers start).
	Workers int `yaml:"workers"`
	// CacheSize is the number of cached results, 0 for no cache. An entry
	// takes 32+4*NumActions bytes, or 32+4*64 = 288 for a game of at
	// least 512 actions (backgammon, chess), whose entries hold only the
	// legal actions' probabilities (evalCache).
	CacheSize int `yaml:"cache_size"`
	// Precision is the arithmetic of the network's residual tower:
	// "fp32" (or empty), "bf16", "int8", or "auto", the fastest that has
	// native kernels on this CPU and passes an accuracy check against FP32
	// (see NewModelFor). Training always runs in FP32.
	Precision string `yaml:"precision"`
}

// DefaultEvaluatorConfig returns batches of up to 64 positions, no wait, one
// worker per core and a 2^16-entry cache.
//
// No wait, because on a CPU the forward pass is nearly as efficient per
// position at batch 1 as at batch 256 (see BenchmarkForward), so waiting for a
// batch to fill only adds latency; batches still form from the positions that
// arrive while a worker is busy (BenchmarkEvaluator: a mean batch of ~20 with
// 64 callers and one worker).
func DefaultEvaluatorConfig() EvaluatorConfig {
	return EvaluatorConfig{MaxBatch: 64, MaxWait: 0, Workers: 0, CacheSize: 1 << 16}
}

// Validate names the first field out of range.
func (c EvaluatorConfig) Validate() error {
	switch {
	case c.MaxBatch < 1 || c.MaxBatch > 4096:
		return fmt.Errorf("nn: evaluator max_batch = %d, want 1..4096", c.MaxBatch)
	case c.MaxWait < 0 || c.MaxWait > 10*time.Second:
		return fmt.Errorf("nn: evaluator max_wait = %v, want 0..10s", c.MaxWait)
	case c.Workers < 0 || c.Workers > 256:
		return fmt.Errorf("nn: evaluator workers = %d, want 0..256 (0: one per core)", c.Workers)
	case c.CacheSize < 0 || c.CacheSize > 1<<26:
		return fmt.Errorf("nn: evaluator cache_size = %d, want 0..%d", c.CacheSize, 1<<26)
	}
	if err := ValidatePrecision(c.Precision); err != nil {
		return fmt.Errorf("nn: evaluator precision: %w", err)
	}
	return nil
}

// EvaluatorStats counts an Evaluator's work since it was made.
type EvaluatorStats struct {
	Requests    int64 // Evaluate calls
	Positions   int64 // non-terminal positions asked for
	Evaluated   int64 // positions run through the network
	Batches     int64 // forward passes
	CacheHits   int64 // positions answered from the cache
	CacheMisses int64 // positions looked up in the cache and not found
	// Merged counts positions answered by an identical position of the
	// same Evaluate call (with the cache on): each distinct position of a
	// call is run through the network once.
	Merged int64
	// Precision is the arithmetic of the network evaluated (fp32, bf16 or
	// int8: the choice of precision "auto"), where the evaluator knows it.
	Precision string
	// Forward is the time spent in the network's forward passes (the
	// monotonic clock's, summed over the workers): the network itself,
	// without the encoding, the cache and the softmax around it.
	Forward time.Duration
}

// Evaluator implements mcts.Evaluator with the network: Evaluate is safe for
// concurrent use by many goroutines, whose positions are gathered into
// batches of up to MaxBatch and run by worker goroutines, one Net each.
//
// A worker runs a batch as soon as it holds MaxBatch positions, or MaxWait
// after it took the first one. So that batches fill without waiting, give it
// at least MaxBatch*Workers positions in flight (many callers, or callers that
// pass many positions per call); with fewer, lower MaxBatch or MaxWait.
//
// Lifecycle: NewEvaluator starts no goroutines. The workers start at Start,
// or at the first Evaluate (with a background context) when Start was not
// called. They stop when Start's context ends or Close is called; then
// Evaluate returns ErrClosed, and an Evaluator cannot be restarted. Close
// waits until every worker has exited, so nothing leaks.
//
// The cache is keyed by State.Hash and verified by a second 64-bit hash of the
// observation and the legal actions, so a wrong result is returned only if two
// positions collide in both hashes at once. With the cache on, positions that
// occur more than once in one Evaluate call (transpositions reached by the
// games or descents of one batch) are run through the network once.
type Evaluator struct {
	cfg        EvaluatorConfig
	game       games.Game
	shape      Shape
	obsLen     int
	numActions int

	snap    atomic.Pointer[snapshot]
	weights sync.Mutex // serialises SetWeights

	jobs chan job
	pool sync.Pool // of *request

	life    sync.Mutex
	state   atomic.Int32  // evalNew, evalRunning, evalClosed
	quit    chan struct{} // closed by Close
	stopped chan struct{} // closed once every worker has exited
	started bool

	cache *evalCache

	requests, positions, evaluated, batches, merged atomic.Int64
	forward                                         atomic.Int64 // nanoseconds in forward passes

	aux auxRunner // EvaluateAux's network and buffers
}

// auxRunner is EvaluateAux's and EvaluateOutcomes' own Net, apart from the
// workers' batches.
type auxRunner struct {
	mu             sync.Mutex
	net            *Net
	obs, own       []float32
	logits, values []float32
	scores         []float32
	at             []int // EvaluateOutcomes: the call's index of each position in the pass
	legal          []int // their legal actions, concatenated
	legalOff       []int // position k's are legal[legalOff[k]:legalOff[k+1]]
	scratch        []int // one position's legal actions
}

// auxBatch is the most positions EvaluateAux and EvaluateOutcomes run in one
// forward pass.
const auxBatch = 32

const (
	evalNew int32 = iota
	evalRunning
	evalClosed
)

// snapshot is a network and its generation; cache entries of older
// generations are stale.
type snapshot struct {
	model *Model
	gen   uint64
}

// request is one Evaluate call's positions in flight.
type request struct {
	obs      []float32 // len(states) observations
	legal    []int     // legal actions of all positions, concatenated
	legalOff []int     // position i's legal actions are legal[legalOff[i]:legalOff[i+1]]
	scratch  []int     // one position's legal actions
	hash     []uint64
	check    []uint64
	missing  []int   // positions to evaluate
	dups     []dup   // positions answered by an identical earlier one
	seen     []int32 // open-addressing table of missing positions by hash: index+1, 0 empty
	policies [][]float32
	values   []float32
	pending  atomic.Int32
	err      error         // set by a worker before its last pending decrement
	errMu    sync.Mutex    // guards err
	done     chan struct{} // receives once when pending reaches zero
}

// dup says that position i of a request is the same as position of.
type dup struct{ i, of int }

// job is one position of a request.
type job struct {
	r *request
	i int // the position's index in the call
	k int // its index in r.missing: its observation's slot
}

// NewEvaluator returns an Evaluator for positions of g running network w (w
// is only read during the call). It starts no goroutines.
func NewEvaluator(cfg EvaluatorConfig, w *Weights, g games.Game) (*Evaluator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if g == nil {
		return nil, errors.New("nn: evaluator: nil game")
	}
	p, h, wd := g.ObservationShape()
	e := &Evaluator{
		cfg:        cfg,
		game:       g,
		shape:      Shape{Planes: p, Height: h, Width: wd, Actions: g.NumActions()},
		obsLen:     p * h * wd,
		numActions: g.NumActions(),
		jobs:       make(chan job, 4*cfg.MaxBatch),
		quit:       make(chan struct{}),
		stopped:    make(chan struct{}),
	}
	if err := e.shape.Validate(); err != nil {
		return nil, fmt.Errorf("nn: evaluator for %s: %w", g.Name(), err)
	}
	m, err := e.model(w)
	if err != nil {
		return nil, err
	}
	e.snap.Store(&snapshot{model: m, gen: 1})
	if cfg.CacheSize > 0 {
		e.cache = newEvalCache(cfg.CacheSize, e.numActions)
	}
	e.pool.New = func() any { return &request{done: make(chan struct{}, 1)} }
	return e, nil
}

// model checks that w fits the game and folds it.
func (e *Evaluator) model(w *Weights) (*Model, error) {
	if w == nil {
		return nil, errors.New("nn: evaluator: nil weights")
	}
	if w.Shape != e.shape {
		mine, theirs := w.Shape.Diff(e.shape)
		return nil, fmt.Errorf("nn: evaluator: the network does not fit game %s: it has %s, the game needs %s", e.game.Name(), mine, theirs)
	}
	return NewModelFor(w, e.game, e.cfg.Precision)
}

// SetWeights makes every later request use network w (w is only read during
// the call) and empties the cache. Requests already batched may still get
// the previous network's answer.
func (e *Evaluator) SetWeights(w *Weights) error {
	m, err := e.model(w)
	if err != nil {
		return err
	}
	e.weights.Lock()
	defer e.weights.Unlock()
	e.snap.Store(&snapshot{model: m, gen: e.snap.Load().gen + 1})
	return nil
}

// HasOwnership reports whether the current network has the ownership head.
func (e *Evaluator) HasOwnership() bool { return e.snap.Load().model.HasOwnership() }

// HasScore reports whether the current network has the score head.
func (e *Evaluator) HasScore() bool { return e.snap.Load().model.HasScore() }

// EvaluateAux runs the current network's auxiliary heads on states, for
// analysis: with ownership not nil, it writes into ownership[i] (Height x
// Width values, the board row-major as State.Observation lays it out) the
// ownership head's prediction for states[i], in [-1, 1], +1 where the
// player to move owns the point at the end; with scores not nil, it
// writes into scores[i] the score head's prediction of the final margin
// for the player to move, in the game's unit (Net.ForwardAux). Every
// state is run, terminal ones too (what a finished game's outcome is, the
// caller knows better). It runs in the calling goroutine on a Net of its
// own, one call at a time, without the workers, the cache or the
// counters, so that Evaluate, the search's path, does no more work than
// before; it allocates on its first calls only. Asking for a head the
// network lacks is an error.
func (e *Evaluator) EvaluateAux(states []games.State, ownership [][]float32, scores []float32) error {
	n := len(states)
	switch {
	case ownership == nil && scores == nil:
		return errors.New("nn: evaluate aux: neither ownership nor scores asked for")
	case ownership != nil && len(ownership) != n:
		return fmt.Errorf("nn: evaluate aux: %d states, %d ownership planes", n, len(ownership))
	case scores != nil && len(scores) != n:
		return fmt.Errorf("nn: evaluate aux: %d states, %d scores", n, len(scores))
	}
	m := e.snap.Load().model
	hw := e.shape.Height * e.shape.Width
	for i, s := range states {
		if err := e.checkState("evaluate aux", i, s); err != nil {
			return err
		}
		if ownership != nil && len(ownership[i]) != hw {
			return fmt.Errorf("nn: evaluate aux: ownership[%d] has %d values, want %d points", i, len(ownership[i]), hw)
		}
	}
	a := &e.aux
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ready(e, m)
	own, sc := a.outputs(hw, ownership != nil, scores != nil)
	for start := 0; start < n; start += auxBatch {
		nb := min(auxBatch, n-start)
		for k := range nb {
			states[start+k].Observation(a.obs[k*e.obsLen : (k+1)*e.obsLen])
		}
		if err := a.net.ForwardAux(a.obs, nb, a.logits, a.values, own, sc); err != nil {
			return fmt.Errorf("nn: evaluate aux: %w", err)
		}
		for k := range nb {
			if ownership != nil {
				copy(ownership[start+k], own[k*hw:(k+1)*hw])
			}
			if scores != nil {
				scores[start+k] = sc[k]
			}
		}
	}
	return nil
}

// OutcomeHeads reports whether the current network has the ownership and
// the score head (mcts.OutcomeEvaluator).
func (e *Evaluator) OutcomeHeads() (ownership, score bool) {
	m := e.snap.Load().model
	return m.HasOwnership(), m.HasScore()
}

// EvaluateOutcomes implements mcts.OutcomeEvaluator, for a search that
// backs up the auxiliary heads (analysis): for each state it writes what
// Evaluate writes (the softmax of the logits over the legal actions, the
// value) and, from the same forward pass (Net.ForwardAux), with scores not
// nil the score head's final margin for the player to move into scores[i],
// and the ownership head's prediction into each ownership[i] that is not
// nil (as EvaluateAux). A state without legal actions gets a zero policy,
// value, score and ownership. It runs in the calling goroutine on
// EvaluateAux's Net, one call at a time, by forward passes of up to
// auxBatch positions, without the workers; it neither reads nor fills the
// cache, whose entries hold no heads (a hit would lack the score). The
// counters count its positions and passes as Evaluate's. Asking for a
// head the network lacks is an error.
func (e *Evaluator) EvaluateOutcomes(states []games.State, policies [][]float32, values []float32, scores []float32, ownership [][]float32) error {
	n := len(states)
	switch {
	case len(policies) != n || len(values) != n:
		return fmt.Errorf("nn: evaluate outcomes: %d states, %d policies, %d values", n, len(policies), len(values))
	case scores != nil && len(scores) != n:
		return fmt.Errorf("nn: evaluate outcomes: %d states, %d scores", n, len(scores))
	case ownership != nil && len(ownership) != n:
		return fmt.Errorf("nn: evaluate outcomes: %d states, %d ownership planes", n, len(ownership))
	}
	if n == 0 {
		return nil
	}
	m := e.snap.Load().model
	hw := e.shape.Height * e.shape.Width
	for i, s := range states {
		if err := e.checkState("evaluate outcomes", i, s); err != nil {
			return err
		}
		if len(policies[i]) != e.numActions {
			return fmt.Errorf("nn: evaluate outcomes: policies[%d] has length %d, want %d actions", i, len(policies[i]), e.numActions)
		}
		if ownership != nil && ownership[i] != nil && len(ownership[i]) != hw {
			return fmt.Errorf("nn: evaluate outcomes: ownership[%d] has %d values, want %d points", i, len(ownership[i]), hw)
		}
	}
	a := &e.aux
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ready(e, m)
	own, sc := a.outputs(hw, ownership != nil, scores != nil)
	e.requests.Add(1)
	for start := 0; start < n; start += auxBatch {
		// The positions with legal actions go to the network, packed.
		a.at = a.at[:0]
		a.legalOff = append(a.legalOff[:0], 0)
		a.legal = a.legal[:0]
		for i := start; i < min(start+auxBatch, n); i++ {
			a.scratch = states[i].LegalActions(a.scratch[:0])
			if len(a.scratch) == 0 {
				clear(policies[i])
				values[i] = 0
				if scores != nil {
					scores[i] = 0
				}
				if ownership != nil && ownership[i] != nil {
					clear(ownership[i])
				}
				continue
			}
			for _, x := range a.scratch {
				if x < 0 || x >= e.numActions {
					return fmt.Errorf("nn: evaluate outcomes: states[%d] has legal action %d, want 0..%d", i, x, e.numActions-1)
				}
			}
			a.legal = append(a.legal, a.scratch...)
			a.legalOff = append(a.legalOff, len(a.legal))
			k := len(a.at)
			states[i].Observation(a.obs[k*e.obsLen : (k+1)*e.obsLen])
			a.at = append(a.at, i)
		}
		nb := len(a.at)
		if nb == 0 {
			continue
		}
		t0 := time.Now()
		err := a.net.ForwardAux(a.obs, nb, a.logits, a.values, own, sc)
		e.forward.Add(int64(time.Since(t0)))
		if err != nil {
			return fmt.Errorf("nn: evaluate outcomes: %w", err)
		}
		e.batches.Add(1)
		e.positions.Add(int64(nb))
		e.evaluated.Add(int64(nb))
		na := e.numActions
		for k, i := range a.at {
			maskedSoftmax(policies[i], a.logits[k*na:(k+1)*na], a.legal[a.legalOff[k]:a.legalOff[k+1]])
			values[i] = a.values[k]
			if scores != nil {
				scores[i] = sc[k]
			}
			if ownership != nil && ownership[i] != nil {
				copy(ownership[i], own[k*hw:(k+1)*hw])
			}
		}
	}
	return nil
}

// outputs returns the runner's ownership and score buffers for auxBatch
// positions of hw points, each nil unless asked for.
func (a *auxRunner) outputs(hw int, ownership, scores bool) (own, sc []float32) {
	if ownership {
		a.own = grow(a.own, auxBatch*hw)
		own = a.own
	}
	if scores {
		a.scores = grow(a.scores, auxBatch)
		sc = a.scores
	}
	return own, sc
}

// checkState reports states[i] = s that is nil or of another game, for
// the call op.
func (e *Evaluator) checkState(op string, i int, s games.State) error {
	if s == nil {
		return fmt.Errorf("nn: %s: states[%d] is nil", op, i)
	}
	if p, h, w := s.Game().ObservationShape(); p*h*w != e.obsLen || s.Game().NumActions() != e.numActions {
		return fmt.Errorf("nn: %s: states[%d] is a position of %s, want %s", op, i, s.Game().Name(), e.game.Name())
	}
	return nil
}

// ready points the runner's Net at m, with buffers for auxBatch positions.
func (a *auxRunner) ready(e *Evaluator, m *Model) {
	if a.net == nil || a.net.m != m {
		a.net = m.newNet(auxBatch, defaultChunk(auxBatch, m.hw))
		a.obs = grow(a.obs, auxBatch*e.obsLen)
		a.logits, a.values = grow(a.logits, auxBatch*e.numActions), grow(a.values, auxBatch)
	}
}

// Config returns the configuration the Evaluator was made with.
func (e *Evaluator) Config() EvaluatorConfig { return e.cfg }

// Stats returns the counters so far.
func (e *Evaluator) Stats() EvaluatorStats {
	s := EvaluatorStats{
		Requests:  e.requests.Load(),
		Positions: e.positions.Load(),
		Evaluated: e.evaluated.Load(),
		Batches:   e.batches.Load(),
		Merged:    e.merged.Load(),
		Forward:   time.Duration(e.forward.Load()),
	}
	if e.cache != nil {
		s.CacheHits, s.CacheMisses = e.cache.hits.Load(), e.cache.misses.Load()
	}
	return s
}

// Start starts the workers; they run until ctx ends or Close is called. It
// returns an error if the workers already started or the Evaluator is closed.
func (e *Evaluator) Start(ctx context.Context) error {
	e.life.Lock()
	defer e.life.Unlock()
	switch {
	case e.state.Load() == evalClosed:
		return ErrClosed
	case e.started:
		return errors.New("nn: evaluator already started")
	}
	e.startLocked(ctx)
	return nil
}

func (e *Evaluator) startLocked(ctx context.Context) {
	e.started = true
	n := e.cfg.Workers
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for range n {
		w := e.newWorker()
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ctx, e)
		}()
	}
	go func() {
		wg.Wait()
		e.state.Store(evalClosed)
		close(e.stopped)
	}()
	e.state.Store(evalRunning)
}

// Close stops the workers and waits for them to exit. Evaluate calls in
// flight or later return ErrClosed. Close is idempotent.
func (e *Evaluator) Close() error {
	e.life.Lock()
	select {
	case <-e.quit:
	default:
		close(e.quit)
	}
	if !e.started { // never started: mark it so that it never will be
		e.state.Store(evalClosed)
		e.started = true
		close(e.stopped)
	}
	e.life.Unlock()
	<-e.stopped
	return nil
}

// ensureStarted starts the workers on first use.
func (e *Evaluator) ensureStarted() error {
	switch e.state.Load() {
	case evalRunning:
		return nil
	case evalClosed:
		return ErrClosed
	}
	e.life.Lock()
	defer e.life.Unlock()
	if !e.started {
		e.startLocked(context.Background())
	}
	if e.state.Load() == evalClosed {
		return ErrClosed
	}
	return nil
}

// Evaluate implements mcts.Evaluator. For each non-terminal states[i] it
// writes into policies[i] the softmax of the network's logits over the legal
// actions (zero elsewhere) and into values[i] the value for the player to
// move. For a terminal state it writes a zero policy and value 0. It is safe
// for concurrent use.
func (e *Evaluator) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	if len(policies) != len(states) || len(values) != len(states) {
		return fmt.Errorf("nn: evaluate: %d states, %d policies, %d values", len(states), len(policies), len(values))
	}
	if len(states) == 0 {
		return nil
	}
	if err := e.ensureStarted(); err != nil {
		return err
	}
	e.requests.Add(1)
	r := e.pool.Get().(*request)
	if err := e.prepare(r, e.snap.Load().gen, states, policies, values); err != nil {
		e.release(r)
		return err
	}
	if len(r.missing) == 0 {
		e.release(r)
		return nil
	}
	r.pending.Store(int32(len(r.missing)))
	for k, i := range r.missing {
		select {
		case e.jobs <- job{r, i, k}:
		case <-e.stopped:
			return ErrClosed // r is abandoned: queued jobs may still point at it
		}
	}
	select {
	case <-r.done:
	case <-e.stopped:
		if r.pending.Load() != 0 {
			return ErrClosed
		}
		<-r.done
	}
	r.errMu.Lock()
	err := r.err
	r.errMu.Unlock()
	if err == nil {
		r.fillDups()
	}
	e.release(r)
	return err
}

// fillDups copies the results of the evaluated positions to their
// duplicates.
func (r *request) fillDups() {
	for _, d := range r.dups {
		copy(r.policies[d.i], r.policies[d.of])
		r.values[d.i] = r.values[d.of]
	}
}

// release returns r to the pool without references to the caller's data.
func (e *Evaluator) release(r *request) {
	r.policies, r.values, r.err = nil, nil, nil
	e.pool.Put(r)
}

// prepare fills r with the observations, legal actions and hashes of states,
// answers what the cache holds of generation gen and lists the rest in
// r.missing.
func (e *Evaluator) prepare(r *request, gen uint64, states []games.State, policies [][]float32, values []float32) error {
	n := len(states)
	r.policies, r.values = policies, values
	r.obs = grow(r.obs, n*e.obsLen)
	r.hash, r.check = grow(r.hash, n), grow(r.check, n)
	r.legalOff = grow(r.legalOff, n+1)
	r.legal, r.missing, r.dups = r.legal[:0], r.missing[:0], r.dups[:0]
	if e.cache != nil {
		size := 16
		for size < 2*n {
			size *= 2
		}
		r.seen = grow(r.seen, size)
		clear(r.seen)
	}
	if e.cache != nil {
		// The table's slots are in no cache: ask for all of them before
		// the first lookup, so that their waits overlap each other and
		// the encoding below.
		for i, s := range states {
			if s != nil {
				r.hash[i] = s.Hash()
				e.cache.prefetch(r.hash[i])
			}
		}
	}
	asked := 0
	for i, s := range states {
		r.legalOff[i] = len(r.legal)
		if len(policies[i]) != e.numActions {
			return fmt.Errorf("nn: evaluate: policies[%d] has length %d, want %d actions", i, len(policies[i]), e.numActions)
		}
		if s == nil {
			return fmt.Errorf("nn: evaluate: states[%d] is nil", i)
		}
		if p, h, w := s.Game().ObservationShape(); p*h*w != e.obsLen || s.Game().NumActions() != e.numActions {
			return fmt.Errorf("nn: evaluate: states[%d] is a position of %s, want %s", i, s.Game().Name(), e.game.Name())
		}
		r.scratch = s.LegalActions(r.scratch[:0])
		r.legal = append(r.legal, r.scratch...)
		legal := r.legal[r.legalOff[i]:]
		if len(legal) == 0 {
			clear(policies[i])
			values[i] = 0
			continue
		}
		asked++
		for _, a := range legal {
			if a < 0 || a >= e.numActions {
				return fmt.Errorf("nn: evaluate: states[%d] has legal action %d, want 0..%d", i, a, e.numActions-1)
			}
		}
		// Written at the next free slot, which a position the cache or
		// an earlier one of the call answers leaves to the next: the
		// positions left for the network lie in slots 0, 1, ... in
		// r.missing's order, one block for the forward pass.
		m := len(r.missing)
		obs := r.obs[m*e.obsLen : (m+1)*e.obsLen]
		s.Observation(obs)
		if e.cache != nil {
			r.check[i] = checkHash(obs, legal) // r.hash[i] is the state's hash (above)
			if e.cache.get(r.hash[i], r.check[i], gen, legal, policies[i], &values[i]) {
				continue
			}
			if j := r.firstSeen(i); j >= 0 {
				r.dups = append(r.dups, dup{i: i, of: j})
				continue
			}
		}
		r.missing = append(r.missing, i)
	}
	r.legalOff[n] = len(r.legal)
	e.positions.Add(int64(asked))
	e.merged.Add(int64(len(r.dups)))
	return nil
}

// firstSeen returns the earlier position of r still to evaluate that equals
// position i (same hash and check), or -1 after recording i as the first of
// its kind.
func (r *request) firstSeen(i int) int {
	mask := uint64(len(r.seen) - 1)
	for k := r.hash[i] & mask; ; k = (k + 1) & mask {
		j := int(r.seen[k]) - 1
		if j < 0 {
			r.seen[k] = int32(i + 1)
			return -1
		}
		if r.hash[j] == r.hash[i] && r.check[j] == r.check[i] {
			return j
		}
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// checkHash mixes the observation and the legal actions into the 64-bit check
// value stored beside a cache entry.
func checkHash(obs []float32, legal []int) uint64 {
	// Four independent lanes, each a chain of multiplies, so that the CPU
	// overlaps them (one chain took ~5 cycles an element, 2% of Go 9x9
	// self-play), each taking two elements a step, then folded into one:
	// 70 ns for Othello 8x8's 192 elements, against 92 one element a step
	// (BenchmarkCheckHash).
	h0, h1, h2, h3 := uint64(0x9e3779b97f4a7c15), uint64(0x6a09e667f3bcc909), uint64(0xbb67ae8584caa73b), uint64(0x3c6ef372fe94f82b)
	// The elements' bits, read as integers (not through a float register).
	u := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(obs))), len(obs))
	pair := func(i int) uint64 { return uint64(u[i]) | uint64(u[i+1])<<32 }
	i := 0
	for ; i+8 <= len(u); i += 8 {
		h0 = (h0 ^ pair(i)) * 0xbf58476d1ce4e5b9
		h1 = (h1 ^ pair(i+2)) * 0xbf58476d1ce4e5b9
		h2 = (h2 ^ pair(i+4)) * 0xbf58476d1ce4e5b9
		h3 = (h3 ^ pair(i+6)) * 0xbf58476d1ce4e5b9
		h0 ^= h0 >> 29
		h1 ^= h1 >> 29
		h2 ^= h2 >> 29
		h3 ^= h3 >> 29
	}
	for ; i < len(u); i++ {
		h0 = (h0 ^ uint64(u[i])) * 0xbf58476d1ce4e5b9
		h0 ^= h0 >> 29
	}
	h := h0
	for _, x := range [3]uint64{h1, h2, h3} {
		h = (h ^ x) * 0xbf58476d1ce4e5b9
		h ^= h >> 29
	}
	for _, a := range legal {
		h = (h ^ uint64(a)) * 0x94d049bb133111eb
		h ^= h >> 31
	}
	return h
}

// worker holds one inference goroutine's buffers.
type worker struct {
	net    *Net
	batch  []job
	obs    []float32
	logits []float32
	values []float32
}

func (e *Evaluator) newWorker() *worker {
	mb := e.cfg.MaxBatch
	return &worker{
		batch:  make([]job, 0, mb),
		obs:    make([]float32, mb*e.obsLen),
		logits: make([]float32, mb*e.numActions),
		values: make([]float32, mb),
	}
}

// run gathers batches until ctx ends or e closes. A batch is run when it is
// full or MaxWait after its first position arrived.
func (w *worker) run(ctx context.Context, e *Evaluator) {
	maxBatch, wait := e.cfg.MaxBatch, e.cfg.MaxWait
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		w.batch = w.batch[:0]
		select {
		case j := <-e.jobs:
			w.batch = append(w.batch, j)
		case <-e.quit:
			return
		case <-ctx.Done():
			return
		}
		if wait > 0 {
			timer.Reset(wait)
		}
	gather:
		for len(w.batch) < maxBatch {
			select {
			case j := <-e.jobs:
				w.batch = append(w.batch, j)
				continue
			default:
			}
			if wait == 0 {
				break
			}
			select {
			case j := <-e.jobs:
				w.batch = append(w.batch, j)
			case <-timer.C:
				break gather
			case <-e.quit:
				break gather
			case <-ctx.Done():
				break gather
			}
		}
		timer.Stop()
		w.flush(e)
	}
}

// flush evaluates the gathered batch with the current network and answers
// every position.
func (w *worker) flush(e *Evaluator) {
	s := e.snap.Load()
	w.useModel(s.model, e.cfg.MaxBatch)
	n, per, na := len(w.batch), e.obsLen, e.numActions
	for k, j := range w.batch {
		copy(w.obs[k*per:(k+1)*per], j.r.obs[j.k*per:(j.k+1)*per])
	}
	t0 := time.Now()
	err := w.net.Forward(w.obs, n, w.logits, w.values)
	e.forward.Add(int64(time.Since(t0)))
	e.batches.Add(1)
	e.evaluated.Add(int64(n))
	for k, j := range w.batch {
		r := j.r
		if err != nil {
			r.errMu.Lock()
			r.err = fmt.Errorf("nn: evaluate: %w", err)
			r.errMu.Unlock()
		} else {
			legal := r.legal[r.legalOff[j.i]:r.legalOff[j.i+1]]
			policy := r.policies[j.i]
			maskedSoftmax(policy, w.logits[k*na:(k+1)*na], legal)
			r.values[j.i] = w.values[k]
			if e.cache != nil {
				e.cache.put(r.hash[j.i], r.check[j.i], s.gen, legal, policy, w.values[k])
			}
		}
		if r.pending.Add(-1) == 0 {
			r.done <- struct{}{}
		}
		w.batch[k] = job{}
	}
}

// useModel points the worker's Net at m, keeping its buffers when they fit m
// (Model.sameBuffers).
func (w *worker) useModel(m *Model, maxBatch int) {
	switch {
	case w.net != nil && w.net.m == m:
	case w.net != nil && w.net.m.sameBuffers(m):
		w.net.m = m
	default:
		w.net = m.newNet(maxBatch, defaultChunk(maxBatch, m.hw))
	}
}

// maskedSoftmax writes the softmax of logits over the legal actions into dst
// and zero elsewhere, in float32 (fastexp: within 5e-6 of math.Exp; in
// float64 the exponentials were half the softmax's time).
func maskedSoftmax(dst, logits []float32, legal []int) {
	clear(dst)
	mx := float32(math.Inf(-1))
	for _, a := range legal {
		mx = max(mx, logits[a])
	}
	var sum float32
	for _, a := range legal {
		v := fastexp.NonPos(logits[a] - mx)
		dst[a] = v
		sum += v
	}
	inv := 1 / sum
	for _, a := range legal {
		dst[a] *= inv
	}
}

// evalCache is a direct-mapped table of results split into independently
// locked shards. A result's policy is stored in one of two layouts, chosen
// per game by its number of actions:
//
//   - dense: the whole row of numActions probabilities, as Evaluate writes
//     it (4*numActions bytes a slot);
//   - sparse, for games with at least 8*sparseCap actions (backgammon's
//     1352, chess's 4272): only the probabilities of the legal actions, in
//     the order of the position's legal-action list, at most sparseCap of
//     them (4*sparseCap bytes a slot). The list itself is not stored: the
//     check hash covers it (checkHash), so a hit has the same list, and get
//     scatters the probabilities back over it into a zeroed row, the very
//     row maskedSoftmax wrote (zero off the legal actions). A position with
//     more than sparseCap legal actions is not cached (random backgammon
//     play: 0.15% of positions, at most 87; chess: 0.005%, at most 70).
type evalCache struct {
	shards     []cacheShard
	numActions int
	stride     int // float32s a slot holds: numActions (dense) or sparseCap
	sparse     bool
	hits       atomic.Int64
	misses     atomic.Int64
}

type cacheShard struct {
	mu       sync.Mutex
	entries  []cacheEntry
	policy   []float32 // slots x stride
	numSlots uint64
	_        [64]byte // keep shards' locks on separate cache lines
}

// cacheEntry is a slot's key and value, in one cache line: a lookup, which
// finds the slot in no cache in a table of 2^18, misses once, not once per
// field (the policy is read only on a hit).
type cacheEntry struct {
	key, check, gen uint64 // gen 0: empty
	value           float32
	n               uint16 // sparse: the number of legal actions stored
}

const (
	cacheShards = 16
	// sparseCap is the most legal actions a sparse slot holds.
	sparseCap = 64
)

// cacheSparse reports whether a game of numActions actions gets the sparse
// layout: only when its action space dwarfs sparseCap, so that its
// positions rarely have more legal actions than a slot holds (Go 19x19's
// 362 points would overflow it for most of a game, and stays dense).
func cacheSparse(numActions int) bool { return numActions >= 8*sparseCap }

// cacheEntryBytes is the memory one cached result takes for a game of
// numActions actions.
func cacheEntryBytes(numActions int) int {
	stride := numActions
	if cacheSparse(numActions) {
		stride = sparseCap
	}
	return int(unsafe.Sizeof(cacheEntry{})) + 4*stride
}

func newEvalCache(size, numActions int) *evalCache {
	return newEvalCacheLayout(size, numActions, cacheSparse(numActions))
}

// newEvalCacheLayout is newEvalCache with the layout chosen by the caller.
func newEvalCacheLayout(size, numActions int, sparse bool) *evalCache {
	shards := min(size, cacheShards)
	c := &evalCache{shards: make([]cacheShard, shards), numActions: numActions, stride: numActions, sparse: sparse}
	if c.sparse {
		c.stride = sparseCap
	}
	for i := range c.shards {
		slots := size / shards
		if i < size%shards {
			slots++
		}
		c.shards[i] = cacheShard{entries: make([]cacheEntry, slots), policy: make([]float32, slots*c.stride), numSlots: uint64(slots)}
	}
	return c
}

// slot maps a position's hash to its shard and slot, by multiplying and
// keeping the high bits (no division): the shard from the hash, the slot
// from the hash times an odd constant, which is another uniform hash.
func (c *evalCache) slot(hash uint64) (*cacheShard, int) {
	hi, _ := bits.Mul64(hash, uint64(len(c.shards)))
	sh := &c.shards[hi]
	i, _ := bits.Mul64(hash*0x9e3779b97f4a7c15, sh.numSlots)
	return sh, int(i)
}

// prefetch asks the CPU for the slot of hash, its entry and its policy,
// which get reads and put writes, without waiting for them (of a sparse
// slot, the first two cache lines: 32 legal actions).
func (c *evalCache) prefetch(hash uint64) {
	sh, i := c.slot(hash)
	prefetch.Lines(unsafe.Pointer(&sh.entries[i]), unsafe.Sizeof(cacheEntry{}))
	n := c.stride
	if c.sparse {
		n = 32
	}
	prefetch.Lines(unsafe.Pointer(&sh.policy[i*c.stride]), uintptr(n)*4)
}

// get copies the entry for (hash, check) of generation gen, a position
// whose legal actions are legal, into policy (all numActions of them) and
// value, and reports whether there was one.
func (c *evalCache) get(hash, check, gen uint64, legal []int, policy []float32, value *float32) bool {
	sh, i := c.slot(hash)
	sh.mu.Lock()
	e := &sh.entries[i]
	ok := e.gen == gen && e.key == hash && e.check == check
	if ok && c.sparse {
		ok = int(e.n) == len(legal)
		if ok {
			clear(policy)
			row := sh.policy[i*c.stride : i*c.stride+len(legal)]
			for j, a := range legal {
				policy[a] = row[j]
			}
		}
	} else if ok {
		copy(policy, sh.policy[i*c.stride:(i+1)*c.stride])
	}
	if ok {
		*value = e.value
	}
	sh.mu.Unlock()
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return ok
}

// put stores the result of a position whose legal actions are legal,
// replacing whatever held its slot; with the sparse layout, a position
// with more than sparseCap legal actions is not stored.
func (c *evalCache) put(hash, check, gen uint64, legal []int, policy []float32, value float32) {
	if c.sparse && len(legal) > sparseCap {
		return
	}
	sh, i := c.slot(hash)
	sh.mu.Lock()
	sh.entries[i] = cacheEntry{key: hash, check: check, gen: gen, value: value, n: uint16(len(legal))}
	if c.sparse {
		row := sh.policy[i*c.stride : i*c.stride+len(legal)]
		for j, a := range legal {
			row[j] = policy[a]
		}
	} else {
		copy(sh.policy[i*c.stride:(i+1)*c.stride], policy)
	}
	sh.mu.Unlock()
}
