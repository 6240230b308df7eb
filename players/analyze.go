package players

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tabula/games"
	"tabula/gtp"
)

// pvLength is the longest principal variation an analysis reports.
const pvLength = 16

var (
	_ gtp.Analyzer        = (*netPlayer)(nil)
	_ gtp.OutcomeAnalyzer = (*netPlayer)(nil)
	_ gtp.TimeLimiter     = (*netPlayer)(nil)
	_ gtp.TimeLimiter     = (*alphaBetaPlayer)(nil)
)

// SetMoveTime limits the next searches to d (a GTP game clock's share of
// one move), or to the shorter of d and the player's own time= when it has
// one; 0 restores its own limit. The simulations still cap a search.
func (p *netPlayer) SetMoveTime(d time.Duration) {
	own := p.ownTime
	switch {
	case d <= 0:
		d = own
	case own > 0:
		d = min(d, own)
	}
	p.p.Search().SetMoveTime(d)
}

// Analyze deepens the player's search of s by sims playouts (see
// mcts.Search.Ponder) and reports its root: each action's visits, mean
// value, prior and, for visited ones, principal variation.
func (p *netPlayer) Analyze(ctx context.Context, s games.State, sims int) (gtp.Analysis, error) {
	sr := p.p.Search()
	if err := sr.Ponder(ctx, s, sims); err != nil {
		return gtp.Analysis{}, err
	}
	p.kids = sr.RootChildren(p.kids[:0])
	out := gtp.Analysis{Value: float64(sr.RootValue()), Moves: make([]gtp.AnalysisMove, len(p.kids))}
	for i, c := range p.kids {
		m := gtp.AnalysisMove{Action: c.Action, Visits: c.Visits, Q: float64(c.Q), Prior: float64(c.Prior)}
		if c.Visits > 0 {
			m.PV = sr.PV(nil, c.Action, pvLength)
		} else {
			m.PV = []int{c.Action}
		}
		out.Moves[i] = m
	}
	return out, nil
}

// MoveSimulations is the playouts of one move's search.
func (p *netPlayer) MoveSimulations() int { return p.p.Search().Config().Simulations }

// OutcomeHeads reports which of the ownership and score heads the player's
// network has (none for a player not built from a checkpoint).
func (p *netPlayer) OutcomeHeads() (ownership, score bool) {
	if p.aux == nil {
		return false, false
	}
	return p.aux.HasOwnership(), p.aux.HasScore()
}

// Outcome implements gtp.OutcomeAnalyzer with the network's heads
// (nn.Evaluator.EvaluateAux), in one pass for the position and its
// children: the ownership of s by its player to move, point by point in
// action order (the observation's board order, row-major from the top-left
// point in Go and Othello), and for each action the score head's final
// margin at the child, negated to s's player to move (the child's mover is
// the other player). A child that ends the game gets the game's own final
// score (games.Outcomer) instead. The heads see s as it is, without the
// symmetries of sym=K.
func (p *netPlayer) Outcome(s games.State, actions []int, own []float64) ([]float64, error) {
	if p.aux == nil {
		return nil, errors.New("the player has no network")
	}
	if s.IsTerminal() || games.IsChanceNode(s) {
		return nil, errors.New("the position is over or a chance event: nothing to estimate")
	}
	me := s.CurrentPlayer()
	var states []games.State
	var scores []float64
	if len(actions) > 0 {
		scores = make([]float64, len(actions))
	}
	evalAt := make([]int, 0, len(actions)) // indices of actions whose child the network scores
	for i, a := range actions {
		if !s.IsLegal(a) {
			return nil, fmt.Errorf("action %d is not legal here", a)
		}
		c := s.Clone()
		c.ApplyAction(a)
		if c.IsTerminal() {
			o, ok := c.(games.Outcomer)
			if !ok {
				return nil, fmt.Errorf("game %s ends without a score", s.Game().Name())
			}
			scores[i] = o.FinalScore()
			if me == 1 {
				scores[i] = -scores[i]
			}
			continue
		}
		if games.IsChanceNode(c) || c.CurrentPlayer() == me {
			return nil, fmt.Errorf("after action %d the same player moves or chance follows: the score head's side is not the opponent's", a)
		}
		states = append(states, c)
		evalAt = append(evalAt, i)
	}
	var planes [][]float32
	if own != nil {
		_, h, w := s.Game().ObservationShape()
		if len(own) != h*w {
			return nil, fmt.Errorf("ownership of %d points, want %d", len(own), h*w)
		}
		states = append(states, s)
		planes = make([][]float32, len(states))
		for i := range planes {
			planes[i] = make([]float32, h*w)
		}
	}
	if len(states) == 0 {
		return scores, nil
	}
	var sc []float32
	if len(evalAt) > 0 {
		sc = make([]float32, len(states))
	}
	if err := p.aux.EvaluateAux(states, planes, sc); err != nil {
		return nil, err
	}
	for k, i := range evalAt {
		scores[i] = -float64(sc[k])
	}
	if own != nil {
		for q, v := range planes[len(states)-1] {
			own[q] = float64(v)
		}
	}
	return scores, nil
}
