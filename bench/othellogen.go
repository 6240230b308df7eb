package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"tabula/games"
	"tabula/games/othello"
	"tabula/internal/cputime"
	"tabula/match"
	"tabula/players"
)

// OthelloBucket asks for Count positions with MinEmpties..MaxEmpties empty
// squares.
type OthelloBucket struct {
	MinEmpties, MaxEmpties, Count int
}

// OthelloSetsConfig configures GenerateOthelloSets.
type OthelloSetsConfig struct {
	Game    *othello.Game
	Buckets []OthelloBucket
	Seed    uint64
	// Players are the specs whose games the positions come from; each game
	// draws a player for each side uniformly from them.
	Players []string
	// OpeningPlies: each game opens with 0..OpeningPlies uniformly random
	// moves; Epsilon is then the chance of a random move at each ply.
	OpeningPlies int
	Epsilon      float64
	// MaxGames stops the generator (with an error) when the buckets are
	// not full after this many games (0: 50 times the largest count + 100).
	MaxGames int
	// Critical keeps only positions where some legal move is a mistake
	// (of a worse result than the best): positions are labelled in rounds
	// and the others dropped, so it costs several times the solving.
	Critical bool
	TTBits   int // log2 of each solver's table entries
	Workers  int // goroutines labelling positions, each with its own solver
	// Progress, if set, is called after each position labelled (from the
	// workers, one at a time).
	Progress func(done, total int)
}

// Validate checks the fields.
func (c OthelloSetsConfig) Validate() error {
	switch {
	case c.Game == nil:
		return errors.New("othello sets: no game")
	case len(c.Buckets) == 0:
		return errors.New("othello sets: no buckets")
	case len(c.Players) == 0:
		return errors.New("othello sets: no players")
	case c.OpeningPlies < 0 || c.OpeningPlies > 60:
		return fmt.Errorf("othello sets: opening plies %d, want 0..60", c.OpeningPlies)
	case c.Epsilon < 0 || c.Epsilon > 1:
		return fmt.Errorf("othello sets: epsilon %g, want 0..1", c.Epsilon)
	case c.MaxGames < 0:
		return fmt.Errorf("othello sets: max games %d, want >= 0", c.MaxGames)
	case c.Workers < 1 || c.Workers > 64:
		return fmt.Errorf("othello sets: workers %d, want 1..64", c.Workers)
	case c.TTBits < 0 || c.TTBits > 28:
		return fmt.Errorf("othello sets: tt %d, want 0..28", c.TTBits)
	}
	sq := c.Game.Size() * c.Game.Size()
	for _, b := range c.Buckets {
		if b.MinEmpties < 1 || b.MaxEmpties < b.MinEmpties || b.MaxEmpties > sq-5 || b.Count < 1 {
			return fmt.Errorf("othello sets: bucket %d-%d of %d positions: want 1 <= min <= max <= %d and count >= 1",
				b.MinEmpties, b.MaxEmpties, b.Count, sq-5)
		}
	}
	return nil
}

// OthelloSetsStats reports what GenerateOthelloSets spent.
type OthelloSetsStats struct {
	Games int
	// SolveTime[i] is the total time spent labelling bucket i (summed over
	// the workers), SolveCPU[i] the CPU time of the labelling threads in it
	// (zero where the system does not say), Nodes[i] the solver's positions
	// searched.
	SolveTime []time.Duration
	SolveCPU  []time.Duration
	Nodes     []uint64
}

// GenerateOthelloSets plays seeded games between the configured players,
// takes from each game at most one position per bucket (at random among its
// positions in the bucket with at least two legal moves, skipping positions
// already taken), and labels every legal move with the exact endgame
// solver. The same config gives the same sets whatever the workers.
func GenerateOthelloSets(ctx context.Context, cfg OthelloSetsConfig) ([]*OthelloSet, OthelloSetsStats, error) {
	var stats OthelloSetsStats
	if err := cfg.Validate(); err != nil {
		return nil, stats, err
	}
	g := cfg.Game
	factories := make([]*players.Factory, len(cfg.Players))
	for i, s := range cfg.Players {
		spec, err := players.ParseSpec(s)
		if err != nil {
			return nil, stats, fmt.Errorf("othello sets: player %d: %w", i+1, err)
		}
		if factories[i], err = players.Build(g, spec); err != nil {
			return nil, stats, fmt.Errorf("othello sets: %w", err)
		}
		defer factories[i].Close()
	}
	sets := make([]*OthelloSet, len(cfg.Buckets))
	seen := make([]map[[2]uint64]bool, len(cfg.Buckets))
	for i, b := range cfg.Buckets {
		sets[i] = &OthelloSet{Game: g, MinEmpties: b.MinEmpties, MaxEmpties: b.MaxEmpties}
		seen[i] = map[[2]uint64]bool{}
	}
	maxGames := cfg.MaxGames
	if maxGames == 0 {
		for _, b := range cfg.Buckets {
			maxGames = max(maxGames, 50*b.Count+100)
		}
	}
	full := func() bool {
		for i, b := range cfg.Buckets {
			if len(sets[i].Positions) < b.Count {
				return false
			}
		}
		return true
	}
	stats.SolveTime = make([]time.Duration, len(sets))
	stats.SolveCPU = make([]time.Duration, len(sets))
	stats.Nodes = make([]uint64, len(sets))
	var legal []int
	for !full() {
		// A round: pick unlabelled positions until every bucket could be
		// full, label them, keep those wanted.
		pending := make([]*OthelloSet, len(sets))
		for i := range pending {
			pending[i] = &OthelloSet{Game: g}
		}
		if err := fillOthelloPending(ctx, cfg, factories, sets, pending, seen, maxGames, &stats, &legal); err != nil {
			return nil, stats, err
		}
		if err := labelOthelloSets(ctx, cfg, pending, &stats); err != nil {
			return nil, stats, err
		}
		for i, b := range cfg.Buckets {
			for _, p := range pending[i].Positions {
				if len(sets[i].Positions) < b.Count && (!cfg.Critical || p.critical()) {
					sets[i].Positions = append(sets[i].Positions, p)
				}
			}
		}
	}
	return sets, stats, nil
}

// critical reports whether some legal move of p is a mistake.
func (p OthelloPosition) critical() bool {
	best := p.Best()
	for _, l := range p.Labels {
		if IsOthelloMistake(best, l.Score) {
			return true
		}
	}
	return false
}

// fillOthelloPending plays games until every bucket i has, with the
// positions of sets[i] and pending[i], its count, taking at most one new
// position per bucket and game into pending.
func fillOthelloPending(ctx context.Context, cfg OthelloSetsConfig, factories []*players.Factory, sets, pending []*OthelloSet,
	seen []map[[2]uint64]bool, maxGames int, stats *OthelloSetsStats, legal *[]int) error {
	g := cfg.Game
	need := func(i int) bool { return len(sets[i].Positions)+len(pending[i].Positions) < cfg.Buckets[i].Count }
	for {
		more := false
		for i := range sets {
			more = more || need(i)
		}
		if !more {
			return nil
		}
		if stats.Games >= maxGames {
			return fmt.Errorf("othello sets: buckets not full after %d games", stats.Games)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(stats.Games)))
		moves, err := playOthelloGame(ctx, cfg, factories, rng, stats.Games)
		if err != nil {
			return err
		}
		stats.Games++
		// Walk the game once, collecting each bucket's candidates.
		cands := make([][]int, len(cfg.Buckets)) // plies
		st := g.NewInitialState().(*othello.State)
		for ply := 0; ; ply++ {
			if *legal = st.LegalActions((*legal)[:0]); len(*legal) >= 2 {
				e := othelloEmpties(st)
				for i, b := range cfg.Buckets {
					if e >= b.MinEmpties && e <= b.MaxEmpties {
						cands[i] = append(cands[i], ply)
					}
				}
			}
			if ply == len(moves) {
				break
			}
			st.ApplyAction(moves[ply])
		}
		for i := range cfg.Buckets {
			if !need(i) || len(cands[i]) == 0 {
				continue
			}
			ply := cands[i][rng.IntN(len(cands[i]))]
			pos := g.NewInitialState().(*othello.State)
			for _, a := range moves[:ply] {
				pos.ApplyAction(a)
			}
			key := [2]uint64{}
			key[0], key[1] = pos.Discs()
			key[0] |= uint64(pos.CurrentPlayer()) << 63 // off every board
			if seen[i][key] {
				continue
			}
			seen[i][key] = true
			pending[i].Positions = append(pending[i].Positions, OthelloPosition{Moves: g.FormatActions(moves[:ply]), State: pos})
		}
	}
}

// playOthelloGame plays one game and returns its moves.
func playOthelloGame(ctx context.Context, cfg OthelloSetsConfig, factories []*players.Factory, rng *rand.Rand, index int) ([]int, error) {
	g := cfg.Game
	var players [2]players.Player
	for side := range players {
		f := factories[rng.IntN(len(factories))]
		p, err := f.New(match.GameRNG(cfg.Seed^0x0e110, index, side))
		if err != nil {
			return nil, fmt.Errorf("othello sets: game %d: %w", index, err)
		}
		players[side] = p
	}
	opening := rng.IntN(cfg.OpeningPlies + 1)
	st := g.NewInitialState().(*othello.State)
	var moves, legal []int
	for !st.IsTerminal() {
		legal = st.LegalActions(legal[:0])
		var a int
		if len(moves) < opening || rng.Float64() < cfg.Epsilon {
			a = legal[rng.IntN(len(legal))]
		} else {
			p := players[st.CurrentPlayer()]
			var err error
			if a, err = p.ChooseAction(ctx, st.Clone()); err != nil {
				return nil, fmt.Errorf("othello sets: game %d: player %s: %w", index, p.Name(), err)
			}
		}
		if err := games.Play(st, a); err != nil {
			return nil, fmt.Errorf("othello sets: game %d: player %s: %w", index, players[st.CurrentPlayer()].Name(), err)
		}
		moves = append(moves, a)
	}
	return moves, nil
}

// labelOthelloSets labels every position of sets with cfg.Workers solvers.
func labelOthelloSets(ctx context.Context, cfg OthelloSetsConfig, sets []*OthelloSet, stats *OthelloSetsStats) error {
	type job struct{ set, pos int }
	var jobs []job
	for i, s := range sets {
		for k := range s.Positions {
			jobs = append(jobs, job{i, k})
		}
	}
	var (
		mu    sync.Mutex
		next  int
		done  int
		first error
		wg    sync.WaitGroup
	)
	for w := 0; w < cfg.Workers; w++ {
		sv, err := NewOthelloSolver(cfg.Game, cfg.TTBits)
		if err != nil {
			return fmt.Errorf("othello sets: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // for cputime.Thread
			defer runtime.UnlockOSThread()
			for {
				mu.Lock()
				if next == len(jobs) || first != nil {
					mu.Unlock()
					return
				}
				if err := ctx.Err(); err != nil {
					first = err
					mu.Unlock()
					return
				}
				j := jobs[next]
				next++
				mu.Unlock()
				pos := &sets[j.set].Positions[j.pos]
				n0, t0, c0 := sv.Nodes(), time.Now(), cputime.Thread()
				pos.Labels = LabelOthello(sv, pos.State)
				el, cpu, nodes := time.Since(t0), cputime.Thread()-c0, sv.Nodes()-n0
				mu.Lock()
				stats.SolveTime[j.set] += el
				stats.SolveCPU[j.set] += cpu
				stats.Nodes[j.set] += nodes
				done++
				if cfg.Progress != nil {
					cfg.Progress(done, len(jobs))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}
