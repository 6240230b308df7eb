package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"tabula/games"
	"tabula/internal/cputime"
	"tabula/mcts"
	"tabula/nn"
	"tabula/replay"
	"tabula/search/endgame"
)

// selfPlayStats summarises the self-play games of a round (or of an
// iteration, summed).
type selfPlayStats struct {
	Games, Positions, Examples int
	Wins                       [3]int // first player wins, draws, second player wins
	Resigned, NoResign, False  int
	Moves                      int
	// Leaves counts the non-terminal positions the searches asked the
	// evaluator for, NetEvals those run through the network (the rest
	// were answered by the cache or merged with an identical position).
	Leaves, NetEvals int64
	// CPU is the thread CPU time the workers spent on the games (search,
	// network and writing them out), 0 where thread clocks are not
	// measured. A round's total also counts the games cut short.
	CPU time.Duration
}

// recordExamples turns a finished game into replay examples: the state's
// observation, the search's policy (positions with a full search only), the
// legal moves, and the value target for the mover: the result, mixed with
// the root's search value by mix (experimental.value_target_mix). When the
// game's states are games.Outcomer and the game was played to its end (not
// resigned), every example also gets the final ownership map and score,
// turned to the mover's point of view (aux targets). With opp, every example
// whose move the opponent answered gets the answer's distribution
// (opponentTargets).
func recordExamples(g games.Game, rec mcts.GameRecord, mix float64, opp bool) ([]replay.Example, error) {
	p, h, w := g.ObservationShape()
	own, score, err := finalOutcome(g, rec)
	if err != nil {
		return nil, err
	}
	var replies [][]float32
	if opp {
		if replies, err = opponentTargets(g, rec); err != nil {
			return nil, err
		}
	}
	var out []replay.Example
	var buf []int
	err = rec.MixedExamples(g, mix, func(s games.State, pi []float32, z float32) error {
		e := replay.Example{
			Obs:    make([]float32, p*h*w),
			Policy: append([]float32(nil), pi...),
			Legal:  make([]bool, g.NumActions()),
			Value:  z,
		}
		s.Observation(e.Obs)
		buf = s.LegalActions(buf[:0])
		for _, a := range buf {
			e.Legal[a] = true
		}
		if own != nil {
			sign := float32(1)
			if s.CurrentPlayer() == 1 {
				sign = -1
			}
			e.Ownership = make([]float32, len(own))
			for i, o := range own {
				e.Ownership[i] = sign * o
			}
			e.Score = sign * score
		}
		if replies != nil {
			e.OppPolicy = replies[len(out)]
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// opponentTargets returns, for every move of rec with a policy target (in
// order: one per example of MixedExamples), the opponent-policy target of
// the position it was played in (KataGo's): the search policy of the next
// move when that move is the opponent's and had a full search, a one-hot on
// the move the opponent played when its search was a fast one, and nil for
// the last move, before a chance event (the dice) or before a move of the
// same player.
func opponentTargets(g games.Game, rec mcts.GameRecord) ([][]float32, error) {
	n := len(rec.Actions)
	mover := make([]int, n) // the player of each move, -1 at a chance event
	s := g.NewInitialState()
	for i, a := range rec.Actions {
		mover[i] = -1
		if !games.IsChanceNode(s) {
			mover[i] = s.CurrentPlayer()
		}
		if err := games.Play(s, a); err != nil {
			return nil, fmt.Errorf("self-play record: move %d: %w", i+1, err)
		}
	}
	var out [][]float32
	for i := range n {
		if rec.Policies[i] == nil {
			continue // no example
		}
		var reply []float32
		switch {
		case i+1 == n || mover[i] < 0 || mover[i+1] < 0 || mover[i+1] == mover[i]:
		case rec.Policies[i+1] != nil:
			reply = append([]float32(nil), rec.Policies[i+1]...)
		default:
			reply = make([]float32, g.NumActions())
			reply[rec.Actions[i+1]] = 1
		}
		out = append(out, reply)
	}
	return out, nil
}

// finalOutcome replays rec to its last position and returns the final
// ownership map and score from player 0's point of view, or nil when the
// game has no games.Outcomer states or did not reach a terminal position
// (resigned, or cut at its length cap without the rules ending it).
func finalOutcome(g games.Game, rec mcts.GameRecord) ([]float32, float32, error) {
	if _, ok := g.NewInitialState().(games.Outcomer); !ok || rec.Resigned {
		return nil, 0, nil
	}
	s := g.NewInitialState()
	for i, a := range rec.Actions {
		if err := games.Play(s, a); err != nil {
			return nil, 0, fmt.Errorf("mcts: record: move %d: %w", i+1, err)
		}
	}
	if !s.IsTerminal() {
		return nil, 0, nil
	}
	_, h, w := g.ObservationShape()
	own := make([]float32, h*w)
	o := s.(games.Outcomer)
	o.FinalOwnership(own)
	return own, float32(o.FinalScore()), nil
}

// gameSink takes the finished games of generate: into replay chunk files
// (chunkSink) or onto the bus (busSink).
type gameSink interface {
	// put takes one finished game's examples; moves is its number of
	// searched moves. It is called from several goroutines at once.
	put(ctx context.Context, examples []replay.Example, moves int) error
	// flush writes whatever put held back; generate calls it once at the
	// end, cancelled or not.
	flush() error
}

// chunkSink writes games into a replay buffer in chunks of chunkGames games.
type chunkSink struct {
	buf        *replay.Buffer
	chunkGames int

	mu      sync.Mutex
	pending []replay.Example
	games   int // games in pending
}

func (c *chunkSink) put(_ context.Context, examples []replay.Example, _ int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = append(c.pending, examples...)
	c.games++
	if c.games >= c.chunkGames {
		return c.flushLocked()
	}
	return nil
}

func (c *chunkSink) flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.flushLocked()
}

func (c *chunkSink) flushLocked() error {
	if len(c.pending) == 0 {
		return nil
	}
	if _, err := c.buf.Write(c.pending); err != nil {
		return err
	}
	c.pending, c.games = nil, 0
	return nil
}

// generate plays n games of g with workers goroutines, each with its own
// mcts.SelfPlay over the evaluator from newEval(worker), and hands every
// finished game to sink. onGame, when not nil, is called with each finished
// game's statistics, one call at a time. rw, when not nil, keeps every
// finished game's record (selfplay.records) and is flushed at the end.
// Cancelling ctx loses only the games in flight and those sink holds back
// and cannot flush. The first error (a chunk that cannot be written, say)
// stops every worker.
func generate(parent context.Context, g games.Game, cfg SelfPlayConfig, workers, n int, seed uint64,
	newEval func(worker int) (mcts.Evaluator, error), sink gameSink, rw *recordWriter, onGame func(selfPlayStats)) (st selfPlayStats, err error) {
	defer func() {
		if ferr := rw.flush(); ferr != nil && err == nil {
			err = ferr
		}
	}()
	var (
		mu    sync.Mutex
		stats selfPlayStats
	)
	mc := cfg.MCTS // with the game's exact endgame prover, when endgame is on
	if err := endgame.Configure(&mc, g); err != nil {
		return stats, err
	}
	// Each worker runs on an OS thread of its own so that its thread clock
	// measures its games: cpuMark[w] is the clock at its previous game.
	cpuMark := make([]time.Duration, workers)
	emit := func(ctx context.Context, rec mcts.GameRecord, worker int) error {
		if err := rw.selfPlay(rec, worker); err != nil {
			return err
		}
		ex, err := recordExamples(g, rec, cfg.ValueTargetMix, cfg.OpponentTargets)
		if err != nil {
			return fmt.Errorf("self-play record: %w", err)
		}
		moves := len(rec.Actions) - rec.ChanceOutcomes // searched moves, not dice
		if err := sink.put(ctx, ex, moves); err != nil {
			return err
		}
		one := selfPlayStats{Games: 1, Moves: moves, Examples: len(ex)}
		if now := cputime.Thread(); now > 0 {
			one.CPU, cpuMark[worker] = now-cpuMark[worker], now
		}
		switch {
		case rec.Returns[0] > 0:
			one.Wins[0] = 1
		case rec.Returns[0] < 0:
			one.Wins[2] = 1
		default:
			one.Wins[1] = 1
		}
		if rec.Resigned {
			one.Resigned = 1
		}
		if rec.NoResign {
			one.NoResign = 1
			if rec.FalseResign() {
				one.False = 1
			}
		}
		mu.Lock()
		defer mu.Unlock()
		stats.add(one)
		if onGame != nil {
			onGame(one)
		}
		return nil
	}
	if workers > n {
		workers = n
	}
	ctx, stop := context.WithCancel(parent)
	defer stop()
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		share := n / workers
		if w < n%workers {
			share++
		}
		wg.Add(1)
		go func(w, share int) {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpuMark[w] = cputime.Thread()
			defer func() {
				// The games cut short: the round's total counts them.
				if now := cputime.Thread(); now > 0 {
					mu.Lock()
					stats.CPU += now - cpuMark[w]
					mu.Unlock()
				}
			}()
			defer func() {
				if errs[w] != nil {
					stop()
				}
			}()
			eval, err := newEval(w)
			if err != nil {
				errs[w] = err
				return
			}
			rng := rand.New(rand.NewPCG(seed, uint64(w)+1))
			sp, err := mcts.NewSelfPlay(mc, g, eval, rng)
			if err != nil {
				errs[w] = err
				return
			}
			errs[w] = sp.Run(ctx, share, func(rec mcts.GameRecord) error { return emit(ctx, rec, w) })
		}(w, share)
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			if parent.Err() == nil {
				return stats, err
			}
		}
	}
	for _, err := range errs {
		if err != nil {
			if parent.Err() == nil {
				return stats, err
			}
			// Cancelled: keep what finished games we have.
			if ferr := sink.flush(); ferr != nil {
				return stats, ferr
			}
			return stats, parent.Err()
		}
	}
	return stats, sink.flush()
}

// directEvaluators returns, for generate, one nn.NetEvaluator per self-play
// worker over one folded copy of w: each worker runs the network in its own
// goroutine on the batch of leaves it gathered (mcts batch_size positions),
// with no hand-over to evaluator goroutines, so that W workers keep W cores
// busy. With sharedCache the workers share one cache of cfg.CacheSize
// results (more hits: a worker reuses the others' evaluations); without it
// each worker has its own, and then a worker's batches, and so the games of
// a seeded run, do not depend on how the workers' timing interleaves (the
// forward pass is not bitwise independent of the batch a position is in).
// stats sums the evaluators' counters.
func directEvaluators(cfg EvaluatorConfig, batchSize, workers int, w *nn.Weights, g games.Game,
	sharedCache bool) (newEval func(worker int) (mcts.Evaluator, error), stats func() nn.EvaluatorStats, err error) {
	if workers < 1 {
		return nil, nil, fmt.Errorf("self-play: %d workers, want at least 1", workers)
	}
	m, err := nn.NewModelFor(w, g, cfg.Precision)
	if err != nil {
		return nil, nil, err
	}
	se, err := modelEvaluators(cfg, batchSize, workers, m, g, sharedCache)
	if err != nil {
		return nil, nil, err
	}
	return se.newEval, se.stats, nil
}

// selfPlayEvaluators are the self-play workers' evaluators over one model.
type selfPlayEvaluators struct {
	evals  []*nn.NetEvaluator
	shared bool // evals share evals[0]'s cache
	// newEval returns worker's evaluator; stats sums their counters.
	newEval func(worker int) (mcts.Evaluator, error)
	stats   func() nn.EvaluatorStats
}

// setModel makes the evaluators run m from their next call on, keeping
// their caches' memory (emptied: its results are of the model before) and
// buffers: a new best network costs no new cache (backgammon's 2^18
// results took 1.4 GB dense), nor two caches alive until the old one is
// collected.
func (se *selfPlayEvaluators) setModel(m *nn.Model) error {
	for i, e := range se.evals {
		if se.shared && i > 0 {
			break // the others share evals[0]'s model and cache
		}
		if err := e.SetModel(m); err != nil {
			return err
		}
	}
	return nil
}

// runModel returns evaluators running m: se itself switched to m
// (setModel), or for se nil new ones (modelEvaluators, one shared cache).
func runModel(se *selfPlayEvaluators, cfg EvaluatorConfig, batchSize, workers int, m *nn.Model, g games.Game) (*selfPlayEvaluators, error) {
	if se != nil {
		return se, se.setModel(m)
	}
	return modelEvaluators(cfg, batchSize, workers, m, g, true)
}

// modelEvaluators is directEvaluators over a model already built (at
// cfg.Precision): a caller that plays many rounds with one network builds
// it, and runs precision auto's check, once.
func modelEvaluators(cfg EvaluatorConfig, batchSize, workers int, m *nn.Model, g games.Game, sharedCache bool) (*selfPlayEvaluators, error) {
	if workers < 1 {
		return nil, fmt.Errorf("self-play: %d workers, want at least 1", workers)
	}
	evals := make([]*nn.NetEvaluator, workers)
	for i := range evals {
		if sharedCache && i > 0 {
			evals[i] = evals[0].Worker()
			continue
		}
		var err error
		if evals[i], err = nn.NewNetEvaluator(m, g, batchSize, cfg.CacheSize); err != nil {
			return nil, err
		}
	}
	newEval := func(worker int) (mcts.Evaluator, error) {
		if worker < 0 || worker >= len(evals) {
			return nil, fmt.Errorf("self-play: evaluator for worker %d of %d", worker, len(evals))
		}
		return evals[worker], nil
	}
	stats := func() nn.EvaluatorStats {
		if sharedCache {
			return evals[0].Stats()
		}
		var sum nn.EvaluatorStats
		for _, e := range evals {
			s := e.Stats()
			sum.Requests += s.Requests
			sum.Positions += s.Positions
			sum.Evaluated += s.Evaluated
			sum.Batches += s.Batches
			sum.CacheHits += s.CacheHits
			sum.CacheMisses += s.CacheMisses
			sum.Merged += s.Merged
			sum.Forward += s.Forward
		}
		return sum
	}
	return &selfPlayEvaluators{evals: evals, shared: sharedCache, newEval: newEval, stats: stats}, nil
}
