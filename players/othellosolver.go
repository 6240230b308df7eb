package players

import (
	"context"
	"fmt"
	"math/rand/v2"

	"tabula/games"
	"tabula/games/othello"
	"tabula/search/othelloend"
)

// buildOthelloSolver returns a factory of exact Othello endgame players
// (package othelloend): spec "solver", parameter tt (log2 table entries,
// default 20). They are perfect but only practical with about 20 empty
// squares or fewer (8x8; a few more on 6x6).
func buildOthelloSolver(g *othello.Game, spec Spec) (*Factory, error) {
	name := spec.String()
	cfg := othelloend.Config{TTBits: spec.Int("tt", 20), Size: g.Size()}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("player %s: %w", name, err)
	}
	pool := &pool[*othelloend.Solver]{make: func() (*othelloend.Solver, error) { return othelloend.New(cfg) }}
	return &Factory{Name: name, New: func(rng *rand.Rand) (Player, error) {
		return &othelloSolverPlayer{name: name, pool: pool, rng: rng}, nil
	}}, nil
}

// maxSolverEmpties bounds the positions the Othello solver player takes:
// beyond it a solve would take hours or more.
const maxSolverEmpties = 28

// othelloSolverPlayer plays a move of the best exact final disc margin, at
// random among equals. Its Value is that margin (empties to the winner).
type othelloSolverPlayer struct {
	name  string
	pool  *pool[*othelloend.Solver]
	rng   *rand.Rand
	value float64
}

func (p *othelloSolverPlayer) Name() string   { return p.name }
func (p *othelloSolverPlayer) Value() float64 { return p.value }
func (p *othelloSolverPlayer) ChooseAction(_ context.Context, s games.State) (int, error) {
	st, ok := s.(*othello.State)
	if !ok {
		return 0, fmt.Errorf("player %s: not an othello position", p.name)
	}
	if st.IsTerminal() {
		return 0, errGameOver
	}
	if e := othelloend.Empties(st); e > maxSolverEmpties {
		return 0, fmt.Errorf("player %s: %d empty squares: the exact solver takes positions with at most %d", p.name, e, maxSolverEmpties)
	}
	sv, err := p.pool.get()
	if err != nil {
		return 0, fmt.Errorf("player %s: %w", p.name, err)
	}
	labels := sv.ActionScores(st)
	p.pool.put(sv)
	// Labels come best first: pick among those tied with the first.
	ties := 1
	for ties < len(labels) && labels[ties].Score == labels[0].Score {
		ties++
	}
	pick := labels[p.rng.IntN(ties)]
	p.value = float64(pick.Score)
	return pick.Action, nil
}
