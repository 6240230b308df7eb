package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"tabula/games"
	"tabula/mcts"
	"tabula/replay"
)

// selfPlayStats summarises one self-play phase.
type selfPlayStats struct {
	Games, Positions, Examples int
	Wins                       [3]int // first player wins, draws, second player wins
	Resigned, NoResign, False  int
	Moves                      int
}

// recordExamples turns a finished game into replay examples: the state's
// observation, the search's policy (positions with a full search only), the
// legal moves, and the result for the mover.
func recordExamples(g games.Game, rec mcts.GameRecord) ([]replay.Example, error) {
	p, h, w := g.ObservationShape()
	var out []replay.Example
	var buf []int
	err := rec.Examples(g, func(s games.State, pi []float32, z float32) error {
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
		out = append(out, e)
		return nil
	})
	return out, err
}

// generate plays n games of g with workers goroutines, each with its own
// mcts.SelfPlay over the evaluator from newEval(worker), and writes their
// examples into buf in chunks of chunkGames games. progress is called once
// per finished game. Cancelling ctx loses only the games in flight and the
// games of an unwritten chunk.
func generate(ctx context.Context, g games.Game, cfg SelfPlayConfig, workers, n int, seed uint64,
	newEval func(worker int) (mcts.Evaluator, error), buf *replay.Buffer, progress func()) (selfPlayStats, error) {
	var (
		mu      sync.Mutex
		stats   selfPlayStats
		pending []replay.Example
		games   int // games in pending
	)
	flush := func() error { // called with mu held
		if len(pending) == 0 {
			return nil
		}
		if _, err := buf.Write(pending); err != nil {
			return err
		}
		pending, games = nil, 0
		return nil
	}
	emit := func(rec mcts.GameRecord) error {
		ex, err := recordExamples(g, rec)
		if err != nil {
			return fmt.Errorf("self-play record: %w", err)
		}
		mu.Lock()
		defer mu.Unlock()
		stats.Games++
		stats.Moves += len(rec.Actions)
		stats.Examples += len(ex)
		switch {
		case rec.Returns[0] > 0:
			stats.Wins[0]++
		case rec.Returns[0] < 0:
			stats.Wins[2]++
		default:
			stats.Wins[1]++
		}
		if rec.Resigned {
			stats.Resigned++
		}
		if rec.NoResign {
			stats.NoResign++
			if rec.FalseResign() {
				stats.False++
			}
		}
		pending = append(pending, ex...)
		games++
		if progress != nil {
			progress()
		}
		if games >= cfg.ChunkGames {
			return flush()
		}
		return nil
	}
	if workers > n {
		workers = n
	}
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
			eval, err := newEval(w)
			if err != nil {
				errs[w] = err
				return
			}
			rng := rand.New(rand.NewPCG(seed, uint64(w)+1))
			sp, err := mcts.NewSelfPlay(cfg.MCTS, g, eval, rng)
			if err != nil {
				errs[w] = err
				return
			}
			errs[w] = sp.Run(ctx, share, emit)
		}(w, share)
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for _, err := range errs {
		if err != nil {
			if ctx.Err() == nil {
				return stats, err
			}
			// Cancelled: keep what finished games we have.
			if ferr := flush(); ferr != nil {
				return stats, ferr
			}
			return stats, ctx.Err()
		}
	}
	return stats, flush()
}
