// Package td trains a linear backgammon evaluation by temporal-difference
// learning from self-play: TD(lambda) (Sutton, "Learning to predict by the
// methods of temporal differences", Machine Learning 3, 1988) as Tesauro
// applied it in TD-Gammon (Tesauro, "Temporal difference learning and
// TD-Gammon", CACM 38(3), 1995), here with no hidden layer: the value of the
// position a player leaves after its move is sigmoid(w·x), its chance of
// winning, over pubeval's 122 inputs (backgammon.Pubeval describes them)
// plus a bias, with one weight vector for contact positions and one for
// races, as pubeval has.
//
// Self-play picks, for the player to move, the end of turn of highest
// value; after each turn the weights move by alpha times the TD error
// (the next turn's value from the same player's side, or the game's
// result at the end) times the eligibility trace, which decays by lambda
// per turn.
package td

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"tabula/games"
	"tabula/games/backgammon"
)

// NumInputs is the number of inputs, the bias included.
const NumInputs = 123

// Weights are the evaluation's weights: Contact when the players' checkers
// can still meet, Race otherwise.
type Weights struct {
	Contact, Race [NumInputs]float64
}

// Inputs writes pubeval's inputs of position q for player me into x, and a
// constant 1 last.
func Inputs(q *backgammon.Position, me int, x *[NumInputs]float64) {
	clear(x[:])
	op := 1 - me
	for k := 0; k < backgammon.Points; k++ {
		i := backgammon.Points - 1 - k
		n := int(q.Board[me][i])
		base := 5 * k
		if q.Board[op][23-i] == 1 {
			x[base] = 1
		}
		if n == 1 {
			x[base+1] = 1
		}
		if n >= 2 {
			x[base+2] = 1
		}
		if n == 3 {
			x[base+3] = 1
		}
		if n >= 4 {
			x[base+4] = float64(n-3) / 2
		}
	}
	x[120] = float64(q.Bar[op]) / 2
	x[121] = float64(q.Off[me]) / backgammon.Checkers
	x[122] = 1
}

// vector returns the weights that apply to q.
func (w *Weights) vector(q *backgammon.Position) *[NumInputs]float64 {
	if backgammon.IsRace(q) {
		return &w.Race
	}
	return &w.Contact
}

// Value returns the chance that me wins from q, a position me has just
// moved into (the opponent rolls next): 1 when me has borne off.
func (w *Weights) Value(q *backgammon.Position, me int) float64 {
	if q.Off[me] == backgammon.Checkers {
		return 1
	}
	var x [NumInputs]float64
	Inputs(q, me, &x)
	v := w.vector(q)
	var z float64
	for i, xi := range x {
		z += v[i] * xi
	}
	return 1 / (1 + math.Exp(-z))
}

// Move returns the first action of the turn ending in the position of
// highest Value for the player to move at decision s (ties: the smallest
// action), with the updated scratch buffer.
func (w *Weights) Move(s *backgammon.State, buf []backgammon.TurnEnd) (int, []backgammon.TurnEnd) {
	buf = s.TurnEnds(buf)
	me := s.CurrentPlayer()
	best, move := math.Inf(-1), -1
	for i := range buf {
		if v := w.Value(&buf[i].Pos, me); v > best {
			best, move = v, buf[i].Action
		}
	}
	return move, buf
}

// Evaluation scores a backgammon state for the player who moves next, in
// (-1, 1) (search.Evaluation's contract): 2P-1 with P that player's chance
// of winning. At a chance node the player who has just moved left the
// position, so P is one minus its Value; at a decision the position is
// scored as if the player to move had just left it, an approximation the
// 1-turn expectimax never needs (it scores ends of turns).
func (w *Weights) Evaluation(st games.State) float64 {
	s := st.(*backgammon.State)
	q := s.Position()
	next := s.NextPlayer()
	var p float64
	if s.IsChanceNode() {
		p = 1 - w.Value(&q, 1-next)
	} else {
		p = w.Value(&q, next)
	}
	return 0.999 * (2*p - 1)
}

// Config sets up Train.
type Config struct {
	Games  int     // self-play games
	Alpha  float64 // step size
	Lambda float64 // trace decay, 0..1
	Seed   uint64
}

// Validate names the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Games < 1:
		return fmt.Errorf("td: games = %d, want >= 1", c.Games)
	case !(c.Alpha > 0 && c.Alpha <= 1):
		return fmt.Errorf("td: alpha = %v, want in (0, 1]", c.Alpha)
	case !(c.Lambda >= 0 && c.Lambda <= 1):
		return fmt.Errorf("td: lambda = %v, want in [0, 1]", c.Lambda)
	}
	return nil
}

// Train plays cfg.Games games of self-play with w choosing every move and
// updates w by TD(lambda) after every turn. progress, if set, is called
// after each game with the number played. It stops early when ctx is done.
func Train(ctx context.Context, w *Weights, cfg Config, progress func(games int)) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7d))
	g := backgammon.New(false)
	var (
		buf      []backgammon.TurnEnd
		outcomes []games.ChanceOutcome
		x        [NumInputs]float64
		// The traces, for the contact and race weights; values are taken
		// from player 0's side, so a position player 1 left contributes
		// minus its gradient.
		eC, eR [NumInputs]float64
	)
	for n := 0; n < cfg.Games; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		clear(eC[:])
		clear(eR[:])
		s := g.NewInitialState().(*backgammon.State)
		prev := math.NaN() // player 0's value of the last end of turn
		for !s.IsTerminal() {
			if s.IsChanceNode() {
				outcomes = s.ChanceOutcomes(outcomes)
				r, a := rng.Float64(), outcomes[len(outcomes)-1].Action
				for _, o := range outcomes {
					if r < o.Prob {
						a = o.Action
						break
					}
					r -= o.Prob
				}
				s.ApplyAction(a)
				continue
			}
			me := s.CurrentPlayer()
			var a int
			a, buf = w.Move(s, buf)
			if a < 0 {
				return fmt.Errorf("td: game %d: no move at a decision", n)
			}
			s.ApplyAction(a)
			if !s.IsChanceNode() && !s.IsTerminal() {
				continue // the second half of the turn
			}
			q := s.Position()
			// The value of the end of turn for player 0 and its gradient.
			var u float64
			if s.IsTerminal() {
				u = 0
				if s.Returns()[0] > 0 {
					u = 1
				}
			} else {
				v := w.Value(&q, me)
				u = v
				if me == 1 {
					u = 1 - v
				}
			}
			if !math.IsNaN(prev) {
				delta := cfg.Alpha * (u - prev)
				for i := range eC {
					w.Contact[i] += delta * eC[i]
					w.Race[i] += delta * eR[i]
				}
			}
			if s.IsTerminal() {
				break
			}
			for i := range eC {
				eC[i] *= cfg.Lambda
				eR[i] *= cfg.Lambda
			}
			v := w.Value(&q, me)
			grad := v * (1 - v)
			if me == 1 {
				grad = -grad
			}
			Inputs(&q, me, &x)
			e := &eC
			if backgammon.IsRace(&q) {
				e = &eR
			}
			for i, xi := range x {
				e[i] += grad * xi
			}
			prev = u
		}
		if progress != nil {
			progress(n + 1)
		}
	}
	return nil
}
