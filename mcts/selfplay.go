package mcts

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"tabula/games"
)

// GameRecord is one finished self-play game. The pipeline turns it into
// (s, pi, z) training examples by replaying Actions (see Examples).
type GameRecord struct {
	// Game is the spec of the game (games.New(Game) rebuilds it).
	Game string
	// Actions are the moves played, from the initial state. In a game of
	// chance they include the chance outcomes (the dice), drawn by the
	// self-play driver with its RNG.
	Actions []int
	// Policies holds, per move, the visit distribution of a full search,
	// or nil where the move got a fast search that is not a policy target,
	// and at every chance outcome (never a training position).
	Policies [][]float32
	// RootValues holds, per move, the root value for the player to move
	// (0 at a chance outcome).
	RootValues []float32
	// RootVisits holds, per move, the root's visits when the move was
	// chosen, reused ones included (Result.Visits of the same search): under
	// a playout cap a fast search shows fewer. 0 at a chance outcome and a
	// random opening move (no search).
	RootVisits []int
	// ChanceOutcomes is how many of Actions are chance outcomes: the
	// searched moves are the others.
	ChanceOutcomes int
	// Returns is the result for players 0 and 1 (+1 win, -1 loss, 0 draw).
	Returns [2]float64
	// Resigned reports that the game ended by resignation: the player with
	// return -1 resigned instead of playing the move after Actions.
	Resigned bool
	// NoResign reports that resignation was disabled for this game so that
	// false resignations can be measured.
	NoResign bool
	// WouldResignMove is the index of the move (into Actions) before which
	// a player of a NoResign game would have resigned, or -1.
	WouldResignMove int
	// WouldResignPlayer is the player who would have resigned.
	WouldResignPlayer int
}

// FalseResign reports whether this is a no-resign game in which the player
// who would have resigned did better than the -1 its resignation would have
// recorded: it won or drew, or, in a game whose losses are worth less than
// -1 (backgammon:scoring=money, where -1 is a backgammon), lost less.
func (r GameRecord) FalseResign() bool {
	return r.NoResign && r.WouldResignMove >= 0 && r.Returns[r.WouldResignPlayer] > -1
}

// Examples replays the game through the checked path and calls fn for every
// position with a policy target: the state (valid only during the call), its
// policy, and the game result z for the player to move.
func (r GameRecord) Examples(g games.Game, fn func(s games.State, pi []float32, z float32) error) error {
	return r.MixedExamples(g, 0, fn)
}

// MixedExamples is Examples with the value target mixed from the game
// result and the search: (1-mix)*z + mix*q, where q is the root value of the
// move's search (RootValues) and, like z, is for the player to move. mix 0
// gives z, as Examples; 1 the search's value alone. mix must be in [0, 1].
func (r GameRecord) MixedExamples(g games.Game, mix float64, fn func(s games.State, pi []float32, v float32) error) error {
	if len(r.Policies) != len(r.Actions) {
		return fmt.Errorf("mcts: record: %d policies for %d actions", len(r.Policies), len(r.Actions))
	}
	if !(mix >= 0 && mix <= 1) {
		return fmt.Errorf("mcts: record: value target mix %v, want 0..1", mix)
	}
	if mix > 0 && len(r.RootValues) != len(r.Actions) {
		return fmt.Errorf("mcts: record: %d root values for %d actions", len(r.RootValues), len(r.Actions))
	}
	s := g.NewInitialState()
	for i, a := range r.Actions {
		if pi := r.Policies[i]; pi != nil {
			if games.IsChanceNode(s) {
				return fmt.Errorf("mcts: record: move %d: a policy at a chance node", i+1)
			}
			if len(pi) != g.NumActions() {
				return fmt.Errorf("mcts: record: move %d: policy of length %d, want %d", i+1, len(pi), g.NumActions())
			}
			v := r.Returns[s.CurrentPlayer()]
			if mix > 0 {
				q := float64(r.RootValues[i])
				if !(q >= -1 && q <= 1) {
					return fmt.Errorf("mcts: record: move %d: root value %v outside [-1, 1]", i+1, q)
				}
				v = (1-mix)*v + mix*q
			}
			if err := fn(s, pi, float32(v)); err != nil {
				return err
			}
		}
		if err := games.Play(s, a); err != nil {
			return fmt.Errorf("mcts: record: move %d: %w", i+1, err)
		}
	}
	return nil
}

// SelfPlay plays many games at once against itself, batching the leaves of
// all their trees into one Evaluate call per step. It is not safe for
// concurrent use: run one SelfPlay per worker goroutine.
type SelfPlay struct {
	cfg   Config
	g     games.Game
	eval  Evaluator
	rng   *rand.Rand
	slots []*slot
	b     batch
	next  int // slot where the next step starts gathering

	started, maxGames int
}

// slot is one game in flight.
type slot struct {
	sr       searcher
	rec      GameRecord
	active   bool
	full     bool
	noResign bool
	low      [2]int // consecutive moves below the resign threshold, per player
}

// NewSelfPlay returns a self-play worker for game g with evaluator eval and
// rng for every random choice (noise, temperature, playout caps,
// resignation), so that a seeded run with a deterministic evaluator
// reproduces.
func NewSelfPlay(cfg Config, g games.Game, eval Evaluator, rng *rand.Rand) (*SelfPlay, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if g == nil || eval == nil || rng == nil {
		return nil, errors.New("mcts: self-play: nil game, evaluator or rng")
	}
	p := &SelfPlay{cfg: cfg, g: g, eval: eval, rng: rng}
	prover, err := newProver(&p.cfg)
	if err != nil {
		return nil, err
	}
	p.slots = make([]*slot, cfg.GamesInFlight)
	for i := range p.slots {
		sl := &slot{}
		sl.sr.cfg = &p.cfg
		sl.sr.rng = rng
		sl.sr.prover = prover
		p.slots[i] = sl
	}
	p.b = newBatch(cfg.BatchSize, g.NumActions())
	return p, nil
}

// Run plays games and passes each finished one to emit, until maxGames games
// have been emitted (maxGames <= 0: no limit) or ctx is cancelled, which
// loses only the games in flight and returns ctx's error. An error from emit
// stops the run and is returned.
func (p *SelfPlay) Run(ctx context.Context, maxGames int, emit func(GameRecord) error) error {
	p.started, p.maxGames = 0, maxGames
	for _, sl := range p.slots {
		if err := p.newGame(sl); err != nil {
			return err
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		active := 0
		for _, sl := range p.slots {
			if sl.active {
				active++
			}
		}
		if active == 0 {
			return nil
		}
		per := (p.cfg.BatchSize + active - 1) / active
		for k := range p.slots {
			sl := p.slots[(p.next+k)%len(p.slots)]
			if sl.active {
				sl.sr.collect(&p.b, per)
			}
			if p.b.full() {
				p.next = (p.next + k + 1) % len(p.slots)
				break
			}
		}
		if err := p.b.evaluate(p.eval); err != nil {
			return fmt.Errorf("self-play: %w", err)
		}
		for _, sl := range p.slots {
			if sl.active && sl.sr.done >= sl.sr.target {
				if err := p.finishMove(sl, emit); err != nil {
					return err
				}
			}
		}
	}
}

// newGame starts the next game in sl, or deactivates it when enough games
// have been started.
func (p *SelfPlay) newGame(sl *slot) error {
	if p.maxGames > 0 && p.started >= p.maxGames {
		sl.active = false
		return nil
	}
	p.started++
	sl.active = true
	sl.sr.setRoot(p.g.NewInitialState())
	sl.rec = GameRecord{Game: p.g.Name(), WouldResignMove: -1}
	sl.noResign = p.cfg.Resign && p.rng.Float64() < p.cfg.NoResignFraction
	sl.rec.NoResign = sl.noResign
	sl.low = [2]int{}
	if err := p.rollChance(sl); err != nil {
		return err
	}
	if err := p.randomOpening(sl); err != nil {
		return err
	}
	p.startMove(sl)
	return nil
}

// randomOpening plays the random moves that begin a game under
// RandomOpeningPlies, recorded without policy targets; it stops early where
// every legal move would end the game (or only chance follows).
func (p *SelfPlay) randomOpening(sl *slot) error {
	if p.cfg.RandomOpeningPlies == 0 {
		return nil
	}
	plies := p.rng.IntN(p.cfg.RandomOpeningPlies + 1)
	root := sl.sr.root
	for range plies {
		if root.IsTerminal() || games.IsChanceNode(root) {
			return nil
		}
		all := root.LegalActions(sl.sr.t.legalBuf[:0])
		sl.sr.t.legalBuf = all
		legal := all[:0] // filtered in place: the moves that do not end the game
		for _, a := range all {
			sl.sr.scratch = copyState(sl.sr.scratch, root)
			sl.sr.scratch.ApplyAction(a)
			if !sl.sr.scratch.IsTerminal() {
				legal = append(legal, a)
			}
		}
		if len(legal) == 0 {
			return nil
		}
		a := legal[p.rng.IntN(len(legal))]
		sl.rec.Actions = append(sl.rec.Actions, a)
		sl.rec.Policies = append(sl.rec.Policies, nil)
		sl.rec.RootValues = append(sl.rec.RootValues, 0)
		sl.rec.RootVisits = append(sl.rec.RootVisits, 0)
		if err := sl.sr.advance(a); err != nil {
			return fmt.Errorf("self-play: %w", err)
		}
		if err := p.rollChance(sl); err != nil {
			return err
		}
	}
	return nil
}

// rollChance draws the outcomes of the chance nodes at sl's root with the
// worker's RNG, recording them (with no policy target) and advancing the
// tree, until the root is a decision node or the game is over.
func (p *SelfPlay) rollChance(sl *slot) error {
	for root := sl.sr.root; !root.IsTerminal() && games.IsChanceNode(root); {
		a, err := games.SampleChance(root, p.rng)
		if err != nil {
			return fmt.Errorf("self-play: %w", err)
		}
		sl.rec.Actions = append(sl.rec.Actions, a)
		sl.rec.Policies = append(sl.rec.Policies, nil)
		sl.rec.RootValues = append(sl.rec.RootValues, 0)
		sl.rec.RootVisits = append(sl.rec.RootVisits, 0)
		sl.rec.ChanceOutcomes++
		if err := sl.sr.advance(a); err != nil {
			return fmt.Errorf("self-play: %w", err)
		}
	}
	return nil
}

// startMove draws the kind of search the next move gets.
func (p *SelfPlay) startMove(sl *slot) {
	sl.full = !p.cfg.PlayoutCap || p.rng.Float64() < p.cfg.FullSearchFraction
	target := p.cfg.Simulations
	if !sl.full {
		target = p.cfg.FastSimulations
	}
	sl.sr.explore = p.cfg.GumbelNoiseMoves == 0 || sl.sr.root.MoveNumber() < p.cfg.GumbelNoiseMoves
	sl.sr.startMove(target, sl.full)
}

// finishMove plays the searched move of sl (or resigns), emitting the game
// when it ends.
func (p *SelfPlay) finishMove(sl *slot, emit func(GameRecord) error) error {
	root := sl.sr.root
	temp := p.cfg.FinalTemperature
	if root.MoveNumber() < p.cfg.TemperatureMoves {
		temp = p.cfg.Temperature
	}
	pi, v, a := sl.sr.finish(temp)
	player := root.CurrentPlayer()
	// With exact endgames on, a root proven lost is played out, not
	// resigned: each move left costs one network call (the root; its
	// children are proven), and the game's late positions and final margin
	// become training targets, which resigning would drop.
	if p.cfg.Resign && !(p.cfg.Endgame > 0 && sl.sr.t.nodes[0].solved) {
		if float64(v) < p.cfg.ResignThreshold {
			sl.low[player]++
		} else {
			sl.low[player] = 0
		}
		if sl.low[player] >= p.cfg.ResignConsecutive {
			if !sl.noResign {
				sl.rec.Resigned = true
				sl.rec.Returns[player] = -1
				sl.rec.Returns[1-player] = 1
				return p.endGame(sl, emit)
			}
			if sl.rec.WouldResignMove < 0 {
				sl.rec.WouldResignMove = len(sl.rec.Actions)
				sl.rec.WouldResignPlayer = player
			}
		}
	}
	var target []float32
	if sl.full {
		target = append([]float32(nil), pi...)
	}
	sl.rec.Actions = append(sl.rec.Actions, a)
	sl.rec.Policies = append(sl.rec.Policies, target)
	sl.rec.RootValues = append(sl.rec.RootValues, v)
	sl.rec.RootVisits = append(sl.rec.RootVisits, int(sl.sr.t.nodes[0].n))
	if err := sl.sr.advance(a); err != nil {
		return fmt.Errorf("self-play: %w", err)
	}
	if !root.IsTerminal() && len(sl.rec.Actions) < p.g.MaxGameLength() {
		if err := p.rollChance(sl); err != nil {
			return err
		}
	}
	if root.IsTerminal() || len(sl.rec.Actions) >= p.g.MaxGameLength() {
		sl.rec.Returns = root.Returns()
		return p.endGame(sl, emit)
	}
	p.startMove(sl)
	return nil
}

// endGame emits the record of sl and starts its next game.
func (p *SelfPlay) endGame(sl *slot, emit func(GameRecord) error) error {
	rec := sl.rec
	sl.rec = GameRecord{}
	if err := emit(rec); err != nil {
		return err
	}
	return p.newGame(sl)
}
