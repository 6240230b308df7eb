package players

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/games/backgammon/bearoff"
	"tabula/games/backgammon/td"
	"tabula/internal/cputime"
	"tabula/search"
)

// buildChance builds the players for games of chance: "expectimax"
// (search.ExpectiSearcher with an evaluation at the horizon) and "pubeval"
// (Tesauro's benchmark player, backgammon only).
func buildChance(g games.Game, spec Spec) (*Factory, error) {
	name := spec.String()
	_, isBG := g.(*backgammon.Game)
	switch spec.Kind {
	case "pubeval":
		if !isBG {
			return nil, fmt.Errorf("player %s: pubeval plays backgammon only, not %s", name, g.Name())
		}
		return &Factory{Name: name, New: func(*rand.Rand) (Player, error) { return &pubevalPlayer{name: name}, nil }}, nil
	case "expectimax":
	default:
		return nil, fmt.Errorf("player spec %q: unknown kind %q", name, spec.Kind)
	}
	prune, err := search.ParsePruning(spec.Str("prune", "star2"))
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	limits := search.ExpectiLimits{MoveTime: spec.Duration("time", 0), CPU: spec.Duration("cpu", 0)}
	depth := 1
	if limits.MoveTime > 0 || limits.CPU > 0 {
		depth = 4
	}
	cfg := search.ExpectiConfig{Depth: spec.Int("depth", depth), Pruning: prune}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	if limits.CPU > 0 && !cputime.ThreadMeasured() {
		return nil, fmt.Errorf("player %s: cpu=%v needs a per-thread CPU clock, which this system lacks (Linux has one); give time= instead", name, limits.CPU)
	}
	rollouts := spec.Int("rollouts", 32)
	// evalFor makes one game's evaluation; leaf is its network with
	// eval=net (nil otherwise).
	var evalFor func(rng *rand.Rand, leaf *netLeaf) (search.Evaluation, error)
	switch ev := spec.Str("eval", "hand"); ev {
	case "net":
		evalFor = func(_ *rand.Rand, leaf *netLeaf) (search.Evaluation, error) { return leaf.Evaluation, nil }
	case "hand":
		h, ok := g.(games.Heuristic)
		if !ok {
			return nil, fmt.Errorf("player %s: game %s has no heuristic (eval=hand)", name, g.Name())
		}
		evalFor = func(*rand.Rand, *netLeaf) (search.Evaluation, error) { return h.Evaluate, nil }
	case "pubeval":
		if !isBG {
			return nil, fmt.Errorf("player %s: eval=pubeval is for backgammon only, not %s", name, g.Name())
		}
		ev := moneyScale(g, pubevalEvaluation)
		evalFor = func(*rand.Rand, *netLeaf) (search.Evaluation, error) { return ev, nil }
	case "td":
		if !isBG {
			return nil, fmt.Errorf("player %s: eval=td is for backgammon only, not %s", name, g.Name())
		}
		ev := moneyScale(g, td.Trained.Evaluation)
		evalFor = func(*rand.Rand, *netLeaf) (search.Evaluation, error) { return ev, nil }
	case "rollout":
		evalFor = func(rng *rand.Rand, _ *netLeaf) (search.Evaluation, error) {
			return search.RolloutEvaluation(rollouts, nil, rng)
		}
	default:
		return nil, fmt.Errorf("player %s: eval=%q, want hand, pubeval, td, rollout or net", name, ev)
	}
	if _, err := search.NewExpecti(cfg, func(games.State) float64 { return 0 }); err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	if where := spec.Str("bearoff", ""); where != "" {
		if !isBG {
			return nil, fmt.Errorf("player %s: bearoff is for backgammon only, not %s", name, g.Name())
		}
		var db *bearoff.DB
		if where == "mem" {
			db = bearoff.Build()
		} else {
			var err error
			if db, err = bearoff.LoadOrBuild(where); err != nil {
				return nil, fmt.Errorf("player %s: %w", name, err)
			}
		}
		base := evalFor
		evalFor = func(rng *rand.Rand, leaf *netLeaf) (search.Evaluation, error) {
			ev, err := base(rng, leaf)
			if err != nil {
				return nil, err
			}
			return db.Evaluation(ev), nil
		}
	}
	netEval, err := netEvalOf(g, spec)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	f := &Factory{Name: name, New: func(rng *rand.Rand) (Player, error) {
		var leaf *netLeaf
		if netEval != nil {
			// Each game's player has its own buffers over the shared
			// network and cache.
			leaf = newNetLeaf(netEval, g)
		}
		ev, err := evalFor(rng, leaf)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		e, err := search.NewExpecti(cfg, ev)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", name, err)
		}
		return &expectiPlayer{name: name, e: e, limits: limits, net: leaf}, nil
	}}
	return f, nil
}

// moneyScale returns ev, a win/loss evaluation of backgammon in [-1, 1],
// divided by 3 when g is backgammon with money scoring, whose Returns give a
// single game 1/3: the search compares the evaluation at its horizon with
// the returns of the games it sees end, so both must be on one scale.
func moneyScale(g games.Game, ev search.Evaluation) search.Evaluation {
	bg, ok := g.(*backgammon.Game)
	if !ok || !bg.Money() {
		return ev
	}
	scale := bg.SingleGame()
	return func(s games.State) float64 { return ev(s) * scale }
}

// pubevalEvaluation scores a backgammon state for the player who moves next
// with pubeval, squashed into (-1, 1). Pubeval rates the position left by
// the player who has just moved, on a scale whose level differs from one
// side's view to the other's (right after any move it is well above 0), so
// one side's score alone is not a value that can be compared across the
// two sides' positions, as a search of two turns or more compares them. The
// value is the difference of the two sides' scores, each read as if that
// side had just moved: antisymmetric, 0 for a symmetric position. Its
// scale is arbitrary: it is not a probability.
func pubevalEvaluation(st games.State) float64 {
	s := st.(*backgammon.State)
	next := s.NextPlayer()
	q := s.Position()
	race := backgammon.IsRace(&q)
	return 0.999 * math.Tanh((backgammon.Pubeval(&q, next, race)-backgammon.Pubeval(&q, 1-next, race))/10)
}

type expectiPlayer struct {
	name   string
	e      *search.ExpectiSearcher
	limits search.ExpectiLimits
	value  float64
	nodes  int64
	depth  int
	// net, when set, is the network of eval=net, whose errors end the
	// move.
	net *netLeaf
}

func (p *expectiPlayer) Name() string   { return p.name }
func (p *expectiPlayer) Value() float64 { return p.value }
func (p *expectiPlayer) ChooseAction(ctx context.Context, s games.State) (int, error) {
	if s.IsTerminal() {
		return 0, errGameOver
	}
	r, err := p.e.SearchLimits(ctx, s, p.limits)
	if err != nil {
		return 0, fmt.Errorf("player %s: %w", p.name, err)
	}
	if p.net != nil {
		if err := p.net.Err(); err != nil {
			return 0, fmt.Errorf("player %s: eval=net: %w", p.name, err)
		}
	}
	p.value, p.nodes, p.depth = r.Value, r.Nodes, r.Depth
	return r.Move, nil
}

type pubevalPlayer struct {
	name string
	buf  []backgammon.TurnEnd
}

func (p *pubevalPlayer) Name() string { return p.name }
func (p *pubevalPlayer) ChooseAction(_ context.Context, st games.State) (int, error) {
	s, ok := st.(*backgammon.State)
	if !ok {
		return 0, fmt.Errorf("player %s: not a backgammon position", p.name)
	}
	if s.IsTerminal() {
		return 0, errGameOver
	}
	var a int
	a, p.buf = s.PubevalMove(p.buf)
	if a < 0 {
		return 0, fmt.Errorf("player %s: no move at a decision", p.name)
	}
	return a, nil
}
