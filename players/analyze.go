package players

import (
	"context"
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
// value, prior and, for visited ones, principal variation; with
// TrackOutcomes, each visited action's score averaged over its subtree
// and the root's and each visited action's averaged ownership.
func (p *netPlayer) Analyze(ctx context.Context, s games.State, sims int) (gtp.Analysis, error) {
	sr := p.p.Search()
	if err := sr.Ponder(ctx, s, sims); err != nil {
		return gtp.Analysis{}, err
	}
	p.kids = sr.RootChildren(p.kids[:0])
	out := gtp.Analysis{Value: float64(sr.RootValue()), Moves: make([]gtp.AnalysisMove, len(p.kids))}
	for i, c := range p.kids {
		m := gtp.AnalysisMove{Action: c.Action, Visits: c.Visits, Q: float64(c.Q), Prior: float64(c.Prior),
			Score: float64(c.Score), Scored: c.Scored}
		if c.Visits > 0 {
			m.PV = sr.PV(nil, c.Action, pvLength)
		} else {
			m.PV = []int{c.Action}
		}
		out.Moves[i] = m
	}
	_, h, w := s.Game().ObservationShape()
	if len(p.own) != h*w {
		p.own = make([]float32, h*w)
	}
	if sr.RootOwnership(p.own) {
		out.Ownership = float64s(p.own)
		for i := range out.Moves {
			if m := &out.Moves[i]; m.Visits > 0 && sr.RootChildOwnership(m.Action, p.own) {
				m.Ownership = float64s(p.own)
			}
		}
	}
	return out, nil
}

func float64s(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// MoveSimulations is the playouts of one move's search.
func (p *netPlayer) MoveSimulations() int { return p.p.Search().Config().Simulations }

// OutcomeHeads reports which of the ownership and score heads the
// player's search can back up (mcts.Search.OutcomeHeads: those of its
// network; none for a player whose evaluator is not a network's).
func (p *netPlayer) OutcomeHeads() (ownership, score bool) {
	return p.p.Search().OutcomeHeads()
}

// TrackOutcomes implements gtp.OutcomeAnalyzer: the search backs up the
// score head, when the network has it, and with ownership accumulates the
// ownership head at the root (mcts.Search.SetOutcomes), from now on.
func (p *netPlayer) TrackOutcomes(ownership bool) error {
	_, score := p.OutcomeHeads()
	if !score && !ownership {
		return nil // nothing asked: the tracking stays as it is
	}
	return p.p.Search().SetOutcomes(score, ownership)
}
