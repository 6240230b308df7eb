package mcts

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"tabula/games"
)

// Result is the outcome of one search.
type Result struct {
	// Policy is the visit distribution pi over all actions (length
	// NumActions, zero on illegal actions, summing to one), pruned of forced
	// playouts when they are on. It is owned by the Search and overwritten
	// by its next Run: copy it to keep it.
	Policy []float32
	// Value is the mean value of the root for the player to move, in [-1, 1].
	Value float32
	// Action is the action chosen with the temperature of this move.
	Action int
	// Simulations is the number of playouts of this search.
	Simulations int
	// Visits is the number of visits of the root, reused ones included.
	Visits int
}

// Search is a PUCT search of one game that keeps its tree between moves. It
// is not safe for concurrent use.
//
// Games of chance are searched too. The position searched must be a
// decision node (the caller rolls the dice first). Inside the tree a chance
// node is expanded with every outcome as an edge, its prior the outcome's
// probability, and is never evaluated: each descent samples one outcome by
// its probability and goes on below it (sampled, not all outcomes
// weighted), so the chance node's mean value estimates the expectation. A
// chance node counts for the player who moves after it when values are
// backed up, and the solver does not prove through chance nodes.
type Search struct {
	cfg  Config
	eval Evaluator
	sr   searcher
	b    batch
}

// NewSearch returns a search with configuration cfg, evaluator eval, and rng
// for the Dirichlet noise and the temperature sampling.
func NewSearch(cfg Config, eval Evaluator, rng *rand.Rand) (*Search, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if eval == nil {
		return nil, errors.New("mcts: nil evaluator")
	}
	if rng == nil {
		return nil, errors.New("mcts: nil rng")
	}
	s := &Search{cfg: cfg, eval: eval}
	s.sr.cfg = &s.cfg
	s.sr.rng = rng
	prover, err := newProver(&s.cfg)
	if err != nil {
		return nil, err
	}
	s.sr.prover = prover
	return s, nil
}

// Config returns the configuration of the search.
func (s *Search) Config() Config { return s.cfg }

// SetMoveTime sets the time limit of the next searches (Config.MoveTime;
// 0: none, the simulations alone stop them), for a game clock that gives
// each move its share. A negative d is taken as 0.
func (s *Search) SetMoveTime(d time.Duration) { s.cfg.MoveTime = max(d, 0) }

// Run searches position st, with root noise when the configuration has an
// epsilon above zero, and returns the visit distribution, the root value and
// the action chosen with the temperature for st's move number. With tree
// reuse on, the tree is kept when st is the position last searched or
// advanced to (see Advance), or one move after it; otherwise the search
// starts afresh.
func (s *Search) Run(ctx context.Context, st games.State) (Result, error) {
	if st == nil {
		return Result{}, errors.New("mcts: nil state")
	}
	if st.IsTerminal() {
		return Result{}, errTerminal
	}
	if games.IsChanceNode(st) {
		return Result{}, errors.New("mcts: the position is a chance node: roll the dice first")
	}
	start := time.Now() // MoveTime counts the tree's reuse too
	s.sync(st)
	if err := s.search(ctx, s.cfg.Simulations, true, start); err != nil {
		return Result{}, err
	}
	temp := s.cfg.FinalTemperature
	if st.MoveNumber() < s.cfg.TemperatureMoves {
		temp = s.cfg.Temperature
	}
	pi, v, a := s.sr.finish(temp)
	return Result{Policy: pi, Value: v, Action: a, Simulations: s.sr.done, Visits: int(s.sr.t.nodes[0].n)}, nil
}

// sync makes st the root: it keeps the tree when st is the root or one move
// after it, and starts afresh otherwise.
func (s *Search) sync(st games.State) {
	sr := &s.sr
	if sr.root != nil && s.cfg.TreeReuse && sameState(sr.root, st) {
		return
	}
	if sr.root != nil && s.cfg.TreeReuse && sr.root.MoveNumber()+1 == st.MoveNumber() && !sr.root.IsTerminal() {
		// The opponent may have played one move since our last search.
		if len(s.b.states) == 0 {
			s.b = newBatch(s.cfg.BatchSize, st.Game().NumActions())
		}
		sr.t.legalBuf = sr.root.LegalActions(sr.t.legalBuf[:0])
		scratch := s.b.states[0]
		for i := 0; i < len(sr.t.legalBuf); i++ {
			a := sr.t.legalBuf[i]
			scratch = copyState(scratch, sr.root)
			scratch.ApplyAction(a)
			if sameState(scratch, st) {
				s.b.states[0] = scratch
				if sr.advance(a) == nil {
					return
				}
				break
			}
		}
		s.b.states[0] = scratch
	}
	sr.setRoot(st)
	if len(s.b.states) == 0 || len(s.b.policies[0]) != st.Game().NumActions() {
		s.b = newBatch(s.cfg.BatchSize, st.Game().NumActions())
	}
}

// sameState reports whether a and b are the same position as far as their
// hashes and move numbers tell.
func sameState(a, b games.State) bool {
	return a.Hash() == b.Hash() && a.MoveNumber() == b.MoveNumber()
}

// search runs target playouts (or until the move time, counted from start,
// is spent) from the root.
func (s *Search) search(ctx context.Context, target int, full bool, start time.Time) error {
	sr := &s.sr
	var deadline time.Time
	if s.cfg.MoveTime > 0 {
		deadline = start.Add(s.cfg.MoveTime)
	}
	sr.startMove(target, full)
	s.prepareOutcomes()
	for sr.done < sr.target {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("mcts: search: %w", err)
		}
		// Until the root is expanded, a batch holds the root alone.
		sr.collect(&s.b, s.cfg.BatchSize)
		if err := s.b.evaluate(s.eval); err != nil {
			return err
		}
		if !deadline.IsZero() && sr.t.nodes[0].status == nodeExpanded && time.Now().After(deadline) {
			break
		}
	}
	return nil
}

// Advance plays action from the searched position so that the next Run can
// reuse the subtree below it (if tree reuse is on). The action is checked.
func (s *Search) Advance(action int) error {
	if s.sr.root == nil {
		return errors.New("mcts: advance before any search")
	}
	return s.sr.advance(action)
}

// Player is a PUCT player for matches: no root noise, temperature 0. It
// keeps its tree between moves, following its own moves and the opponent's
// replies. A player spec such as "net:path=FILE,sims=200" maps to
// NewPlayer(cfg with Simulations=200, a network evaluator, rng).
type Player struct {
	s    *Search
	last Result
}

// NewPlayer returns a match player searching with cfg (its noise and
// temperatures are switched off) and evaluator eval; rng breaks ties.
func NewPlayer(cfg Config, eval Evaluator, rng *rand.Rand) (*Player, error) {
	cfg.DirichletEpsilon = 0
	cfg.Temperature = 0
	cfg.FinalTemperature = 0
	cfg.TemperatureMoves = 0
	cfg.PlayoutCap = false
	cfg.ForcedPlayouts = false
	s, err := NewSearch(cfg, eval, rng)
	if err != nil {
		return nil, err
	}
	return &Player{s: s}, nil
}

// ChooseAction searches st and returns the most visited action.
func (p *Player) ChooseAction(ctx context.Context, st games.State) (int, error) {
	r, err := p.s.Run(ctx, st)
	if err != nil {
		return 0, err
	}
	p.last = r
	if err := p.s.Advance(r.Action); err != nil {
		return 0, err
	}
	return r.Action, nil
}

// Follow keeps the tree along the actions played since the player's last
// search: actions is every action of the game from its initial state, dice
// included, and those past the searched position are advanced through (the
// player's own move, the rolls and the opponent's moves between), so that
// with tree reuse the next search starts from the visits already below the
// position it reaches. Run only keeps what matches the position it is given:
// actions of another game leave a fresh search, never a wrong one.
func (p *Player) Follow(actions []int) {
	sr := &p.s.sr
	if sr.root == nil || !p.s.cfg.TreeReuse {
		return
	}
	for i := sr.root.MoveNumber(); i >= 0 && i < len(actions) && !sr.root.IsTerminal(); i++ {
		if sr.advance(actions[i]) != nil {
			return
		}
	}
}

// LastValue is the root value of the last search, for the player who was to
// move.
func (p *Player) LastValue() float32 { return p.last.Value }

// LastPolicy is the visit distribution of the last search over all actions
// (nil before the first). It is owned by the player and overwritten by its
// next search: copy it to keep it.
func (p *Player) LastPolicy() []float32 { return p.last.Policy }
