// Package backgammon implements backgammon without the doubling cube behind
// the games.Game/State API, as the first game of chance here: the dice are
// chance nodes (games.ChanceState).
//
// # Rules
//
// Full rules without the cube: entering from the bar (nothing else moves
// while a checker is on the bar), hitting blots, bearing off (with a higher
// die from the highest occupied point), the rule that as much of the roll as
// possible must be used and, when only one die of a non-double can be used,
// the higher one; doubles are played four times. Player 0 starts: the first
// chance node draws one of the 15 non-double rolls (probability 1/15 each),
// which is the distribution of the opening roll of the real game (each side
// rolls one die, ties re-rolled, the higher die moves first); which colour
// moves first is left to whoever assigns the colours (the arena alternates
// them). Every later roll is one of the 21 distinct rolls (doubles 1/36, the
// others 2/36).
//
// # Points and checkers
//
// Each player numbers the points from its own side, as gnubg does: it moves
// from its 24-point towards its 1-point, its home board is points 1-6, and
// point p of one player is point 25-p of the other. Internally point p is
// index p-1; index 24 ("bar") is the bar as a source of a move.
//
// # Actions
//
// A decision is a whole turn of up to two checker moves (a non-double), or
// half a turn of doubles (two of its four moves; the same player then plays
// the other half as a second decision). An action encodes the sources of the
// two checker moves and their order, with the dice taken from the state:
//
//	action = order*676 + x*26 + y,  x, y in 0..25,  order in {0, 1}
//
// where x is the source of the move played with the higher die and y of the
// one played with the lower die (for doubles: x moves first, then y); a
// source is 0..23 for points 1..24, 24 for the bar and 25 for "no move";
// order 0 plays x first, order 1 plays y first (non-doubles only). So there
// are 1352 actions (NumActions), and action 675 (x = y = 25) is the pass of a
// player who cannot move. This is OpenSpiel's encoding of backgammon, chosen
// because it is small and regular enough for a policy head to learn: each
// output says "move a checker from here with the high die and one from there
// with the low die", which generalises across positions. Several actions may
// reach the same position (two checkers moved in either order); only the
// smallest of them is legal, so the legal actions of a state are exactly its
// distinct turns (or half-turns of doubles). Chance outcomes are actions
// 0..20, the rolls in the order 1-1, 2-1, 2-2, 3-1, 3-2, 3-3, ..., 6-6 (see
// RollAction); they share numbers with decisions, which is unambiguous
// because a state is either a chance node or a decision.
//
// Turns are written in gnubg's notation ("8/5 6/5", "bar/22*", "6/off",
// "13/7(2)") by FormatMove and read by ParseMove; positions by gnubg's
// 14-character position ID (PositionID, ParsePositionID).
//
// # Values
//
// A win counts 1 point, a gammon (the loser has borne off no checker) 2, a
// backgammon (a gammon where the loser also has a checker on the bar or in
// the winner's home board) 3; State.Points reports them. Returns (what
// search and training optimise) depends on the game's scoring parameter:
// "winloss" (the default) gives +-1 for any win, "money" the cubeless money
// equity scaled into [-1, 1] (points/3). Training uses winloss by default:
// its value is then exactly 2*P(win)-1, a positive linear transform of the
// win probability, which is what the textbook requires of an evaluation for
// expectiminimax to choose the right moves at chance nodes, and what the
// bear-off database and pubeval estimate; money play can be trained by
// setting scoring=money (configs/backgammon-money.yaml, docs/methods.md).
// With money scoring every evaluation is put on the same scale, a single
// game being worth 1/3: the hand evaluation (Game.Evaluate), the bear-off
// database and the players' pubeval and TD evaluations are divided by 3.
//
// The package registers itself as "backgammon" with the parameter scoring.
package backgammon

import (
	"fmt"
	"strings"

	"tabula/games"
)

// Board constants.
const (
	Checkers     = 15   // checkers per player
	Points       = 24   // points on the board
	BarSource    = 24   // source index of the bar
	NoMove       = 25   // source index meaning "no checker move"
	NumActions   = 1352 // 2 orders x 26 x 26 sources
	PassAction   = NoMove*26 + NoMove
	NumRolls     = 21 // distinct rolls, the chance outcomes
	observationN = 19 // observation planes
)

// maxGameLength caps a game: a game still going after this many actions
// (about 1,700 turns; random play averages well under 200 actions) ends as a
// draw. Backgammon has no bound on its length, and the API needs one.
const maxGameLength = 5000

// Game is backgammon with a scoring rule. It is immutable.
type Game struct {
	money bool
}

// New returns backgammon scored as win/loss (money false) or as cubeless
// money equity scaled into [-1, 1] (money true).
func New(money bool) *Game { return &Game{money: money} }

var (
	winLoss = &Game{}
	money   = &Game{money: true}
)

func init() {
	games.Register("backgammon", "backgammon without the doubling cube; moves in gnubg notation (8/5 6/5)",
		[]games.Param{{Name: "scoring", Default: "winloss", Doc: "winloss (+-1 a game) or money (points/3: 1/3, 2/3 or 1)"}},
		func(p games.Params) (games.Game, error) {
			switch v := p.String("scoring"); v {
			case "winloss":
				return winLoss, nil
			case "money":
				return money, nil
			default:
				return nil, fmt.Errorf("game backgammon: parameter scoring=%q, want winloss or money", v)
			}
		})
}

// Name returns "backgammon" or "backgammon:scoring=money".
func (g *Game) Name() string {
	if g.money {
		return "backgammon:scoring=money"
	}
	return "backgammon"
}

// Money reports whether the game is scored as money equity.
func (g *Game) Money() bool { return g.money }

// SingleGame returns what a single game (1 point) is worth on the scale of
// Returns: 1 under win/loss scoring, 1/3 under money scoring. A win/loss
// evaluation in [-1, 1] times SingleGame is on the game's scale.
func (g *Game) SingleGame() float64 {
	if g.money {
		return 1.0 / 3
	}
	return 1
}

// NumActions returns 1352 (see the package comment).
func (g *Game) NumActions() int { return NumActions }

// MaxChanceOutcomes returns 21, the distinct rolls.
func (g *Game) MaxChanceOutcomes() int { return NumRolls }

// ObservationShape returns 19 planes of 1 x 24 points (see Observation).
func (g *Game) ObservationShape() (planes, height, width int) { return observationN, 1, Points }

// MaxGameLength returns the cap on a game's actions, chance included.
func (g *Game) MaxGameLength() int { return maxGameLength }

// NewInitialState returns the starting position, player 0 to roll.
func (g *Game) NewInitialState() games.State {
	s := &State{g: g, chance: true}
	s.pos = StartPosition()
	return s
}

// Position is the checkers of both players, each in its own numbering:
// Board[p][i] is the number of player p's checkers on its point i+1.
type Position struct {
	Board [2][Points]int8
	Bar   [2]int8
	Off   [2]int8
}

// StartPosition returns the standard starting position: for each player two
// checkers on its 24-point, five on 13, three on 8 and five on 6.
func StartPosition() Position {
	var p Position
	for c := 0; c < 2; c++ {
		p.Board[c][23], p.Board[c][12], p.Board[c][7], p.Board[c][5] = 2, 5, 3, 5
	}
	return p
}

// Check returns an error when p does not have 15 checkers a side, a point
// held by both players, or a negative count.
func (p *Position) Check() error {
	for c := 0; c < 2; c++ {
		n := int(p.Bar[c]) + int(p.Off[c])
		if p.Bar[c] < 0 || p.Off[c] < 0 {
			return fmt.Errorf("player %d has a negative count on the bar or off", c)
		}
		for i, k := range p.Board[c] {
			if k < 0 {
				return fmt.Errorf("player %d has %d checkers on point %d", c, k, i+1)
			}
			if k > 0 && p.Board[1-c][23-i] > 0 {
				return fmt.Errorf("point %d of player %d is held by both players", i+1, c)
			}
			n += int(k)
		}
		if n != Checkers {
			return fmt.Errorf("player %d has %d checkers, want %d", c, n, Checkers)
		}
	}
	return nil
}

// Pips returns player c's pip count: the sum over its checkers of the
// distance to bear off (a checker on the bar counts 25).
func (p *Position) Pips(c int) int {
	n := 25 * int(p.Bar[c])
	for i, k := range p.Board[c] {
		n += (i + 1) * int(k)
	}
	return n
}

// State is a backgammon position with the player to move and the dice.
type State struct {
	g      *Game
	pos    Position
	player int8 // the player to move, or to roll at a chance node
	chance bool // the dice are to be rolled
	dice   [2]int8
	half   bool // the second half of a turn of doubles
	moves  int32
	cache  *legalCache // legal actions of this state, built on demand
}

// NewState returns a state of g at position pos with player to move and
// dice d1, d2 rolled (in either order), or at a chance node (player to roll)
// when d1 and d2 are 0. It checks the position and the dice.
func NewState(g *Game, pos Position, player, d1, d2 int) (*State, error) {
	if err := pos.Check(); err != nil {
		return nil, fmt.Errorf("backgammon: %w", err)
	}
	if player != 0 && player != 1 {
		return nil, fmt.Errorf("backgammon: player %d, want 0 or 1", player)
	}
	s := &State{g: g, pos: pos, player: int8(player), moves: 1}
	switch {
	case d1 == 0 && d2 == 0:
		s.chance = true
	case d1 < 1 || d1 > 6 || d2 < 1 || d2 > 6:
		return nil, fmt.Errorf("backgammon: dice %d-%d, want 1..6 each", d1, d2)
	default:
		s.dice = [2]int8{int8(max(d1, d2)), int8(min(d1, d2))}
	}
	if s.pos.Off[0] == Checkers || s.pos.Off[1] == Checkers {
		s.chance, s.dice = false, [2]int8{}
	}
	return s, nil
}

// Game returns the game.
func (s *State) Game() games.Game { return s.g }

// Position returns the checkers.
func (s *State) Position() Position { return s.pos }

// Dice returns the dice to play, higher first, or 0, 0 at a chance node.
func (s *State) Dice() (high, low int) { return int(s.dice[0]), int(s.dice[1]) }

// SecondHalf reports whether the state is the second half of a turn of
// doubles (two moves of the die left).
func (s *State) SecondHalf() bool { return s.half }

// CurrentPlayer returns the player to move, or games.ChancePlayer when the
// dice are to be rolled.
func (s *State) CurrentPlayer() int {
	if s.chance {
		return games.ChancePlayer
	}
	return int(s.player)
}

// NextPlayer returns the player who moves after the roll (or now).
func (s *State) NextPlayer() int { return int(s.player) }

// IsChanceNode reports whether the dice are to be rolled.
func (s *State) IsChanceNode() bool { return s.chance }

// RollAction returns the chance outcome of the roll d1-d2 (either order).
func RollAction(d1, d2 int) int {
	h, l := max(d1, d2), min(d1, d2)
	return h*(h-1)/2 + l - 1
}

// ActionRoll returns the dice of chance outcome a, higher first.
func ActionRoll(a int) (high, low int) {
	h := 1
	for (h+1)*h/2 <= a {
		h++
	}
	return h, a - h*(h-1)/2 + 1
}

// ChanceOutcomes lists the rolls: the 15 non-doubles at 1/15 for the
// opening roll, the 21 rolls otherwise.
func (s *State) ChanceOutcomes(buf []games.ChanceOutcome) []games.ChanceOutcome {
	buf = buf[:0]
	if !s.chance {
		return buf
	}
	for a := 0; a < NumRolls; a++ {
		h, l := ActionRoll(a)
		switch {
		case s.moves == 0 && h == l:
		case s.moves == 0:
			buf = append(buf, games.ChanceOutcome{Action: a, Prob: 1.0 / 15})
		case h == l:
			buf = append(buf, games.ChanceOutcome{Action: a, Prob: 1.0 / 36})
		default:
			buf = append(buf, games.ChanceOutcome{Action: a, Prob: 2.0 / 36})
		}
	}
	return buf
}

// IsTerminal reports whether a player has borne off every checker (or the
// game reached its length cap).
func (s *State) IsTerminal() bool {
	return s.pos.Off[0] == Checkers || s.pos.Off[1] == Checkers || s.moves >= maxGameLength
}

// Points returns the winner and the points won (1 single game, 2 gammon, 3
// backgammon), or -1, 0 when the game is not over (or was capped).
func (s *State) Points() (winner, points int) {
	w := -1
	switch {
	case s.pos.Off[0] == Checkers:
		w = 0
	case s.pos.Off[1] == Checkers:
		w = 1
	default:
		return -1, 0
	}
	l := 1 - w
	switch {
	case s.pos.Off[l] > 0:
		return w, 1
	case s.pos.Bar[l] > 0:
		return w, 3
	}
	for i := 18; i < Points; i++ { // the winner's home board, in the loser's numbering
		if s.pos.Board[l][i] > 0 {
			return w, 3
		}
	}
	return w, 2
}

// Returns gives +-1 to the winner and loser (scoring winloss) or +-points/3
// (scoring money); zeros before the end and for a capped game.
func (s *State) Returns() [2]float64 {
	w, pts := s.Points()
	if w < 0 {
		return [2]float64{}
	}
	v := 1.0
	if s.g.money {
		v = float64(pts) / 3
	}
	var r [2]float64
	r[w], r[1-w] = v, -v
	return r
}

// LegalActions appends the legal actions (rolls at a chance node) in
// increasing order.
func (s *State) LegalActions(buf []int) []int {
	buf = buf[:0]
	if s.IsTerminal() {
		return buf
	}
	if s.chance {
		for a := 0; a < NumRolls; a++ {
			if h, l := ActionRoll(a); s.moves != 0 || h != l {
				buf = append(buf, a)
			}
		}
		return buf
	}
	c := s.legal()
	for _, a := range c.actions {
		buf = append(buf, int(a))
	}
	return buf
}

// IsLegal reports whether a may be played now.
func (s *State) IsLegal(a int) bool {
	if s.IsTerminal() || a < 0 || a >= NumActions {
		return false
	}
	if s.chance {
		if a >= NumRolls {
			return false
		}
		h, l := ActionRoll(a)
		return s.moves != 0 || h != l
	}
	_, ok := s.legal().find(a)
	return ok
}

// ApplyAction plays a roll at a chance node, or a legal turn.
func (s *State) ApplyAction(a int) {
	s.moves++
	if s.chance {
		h, l := ActionRoll(a)
		s.chance, s.dice, s.half = false, [2]int8{int8(h), int8(l)}, false
		s.cache.invalidate()
		return
	}
	if c := s.cache; c != nil && c.valid {
		if i, ok := c.find(a); ok {
			s.pos = c.after[i]
			s.endDecision(c.cont[i])
			return
		}
	}
	p := int(s.player)
	d := s.dice
	x, y, order := a%676/26, a%26, a/676
	if d[0] == d[1] {
		s.pos.step(p, x, int(d[0]))
		s.pos.step(p, y, int(d[0]))
		s.endDecision(!s.half && s.pos.maxMoves(p, int(d[0]), 2) > 0)
		return
	}
	if order == 0 {
		s.pos.step(p, x, int(d[0]))
		s.pos.step(p, y, int(d[1]))
	} else {
		s.pos.step(p, y, int(d[1]))
		s.pos.step(p, x, int(d[0]))
	}
	s.endDecision(false)
}

// endDecision ends a decision: the second half of doubles follows (cont), or
// the turn passes to the other player's roll.
func (s *State) endDecision(cont bool) {
	s.cache.invalidate()
	if s.pos.Off[s.player] == Checkers {
		s.chance, s.dice, s.half = false, [2]int8{}, false
		return
	}
	if cont {
		s.half = true
		return
	}
	s.player = 1 - s.player
	s.chance, s.dice, s.half = true, [2]int8{}, false
}

// Clone returns an independent copy (without the cached legal actions).
func (s *State) Clone() games.State {
	c := *s
	c.cache = nil
	return &c
}

// CopyFrom makes s an independent copy of src, a state of a backgammon
// game, keeping s's own legal-move cache storage (emptied) so that a search
// refreshing scratch states from its root allocates nothing (mcts.Copier).
func (s *State) CopyFrom(src games.State) {
	c := s.cache
	*s = *src.(*State)
	s.cache = c
	c.invalidate()
}

// MoveNumber returns the number of actions (rolls included) played.
func (s *State) MoveNumber() int { return int(s.moves) }

// Hash mixes everything that decides the legal moves, the observation and
// the outcome: the checkers, the player, the dice, the half of a double, and
// whether the roll is the opening one.
func (s *State) Hash() uint64 {
	h := s.pos.hash()
	flags := uint64(s.player) | uint64(s.dice[0])<<1 | uint64(s.dice[1])<<4
	if s.chance {
		flags |= 1 << 7
	}
	if s.half {
		flags |= 1 << 8
	}
	if s.moves == 0 {
		flags |= 1 << 9
	}
	if s.moves >= maxGameLength {
		flags |= 1 << 10
	}
	return mix(h ^ mix(flags+0x51ED27))
}

// hash mixes the checkers.
func (p *Position) hash() uint64 {
	var h uint64 = 0x9E3779B97F4A7C15
	for c := 0; c < 2; c++ {
		var w uint64
		for i := 0; i < Points; i++ {
			w = w<<4 | uint64(p.Board[c][i])
			if i%16 == 15 {
				h = mix(h ^ w)
				w = 0
			}
		}
		w = w<<4 | uint64(p.Bar[c])
		w = w<<4 | uint64(p.Off[c])
		h = mix(h ^ w ^ uint64(c+1)<<60)
	}
	return h
}

// mix is splitmix64's finaliser.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// Observation writes 19 planes of 24 points from the point of view of the
// player to move (at a chance node, the player about to roll); point i of
// every plane is the mover's point i+1 (the opponent's point 24-i):
//
//	0-3   the mover's checkers there: >= 1, >= 2, >= 3, (n-3)/2 beyond 3
//	4-7   the same for the opponent's checkers
//	8-11  broadcast: mover's bar/2, opponent's bar/2, mover's off/15, opponent's off/15
//	12-17 broadcast: the uses left of die value 1..6 (1 each for a non-double,
//	      4 or 2 for doubles), divided by 2
//	18    broadcast: 1 at a chance node (no dice yet)
//
// The first eight planes are TD-Gammon's encoding of a point.
func (s *State) Observation(dst []float32) {
	me := int(s.player)
	op := 1 - me
	for i := 0; i < Points; i++ {
		for k, n := range [2]int8{s.pos.Board[me][i], s.pos.Board[op][23-i]} {
			base := 4 * k * Points
			dst[base+i] = b2f(n >= 1)
			dst[base+Points+i] = b2f(n >= 2)
			dst[base+2*Points+i] = b2f(n >= 3)
			dst[base+3*Points+i] = float32(max(int(n)-3, 0)) / 2
		}
	}
	var dice [6]float32
	if !s.chance && !s.IsTerminal() {
		if s.dice[0] == s.dice[1] {
			uses := float32(4)
			if s.half {
				uses = 2
			}
			dice[s.dice[0]-1] = uses
		} else {
			dice[s.dice[0]-1], dice[s.dice[1]-1] = 1, 1
		}
	}
	scalars := [11]float32{
		float32(s.pos.Bar[me]) / 2, float32(s.pos.Bar[op]) / 2,
		float32(s.pos.Off[me]) / Checkers, float32(s.pos.Off[op]) / Checkers,
		dice[0] / 2, dice[1] / 2, dice[2] / 2, dice[3] / 2, dice[4] / 2, dice[5] / 2,
		b2f(s.chance && !s.IsTerminal()),
	}
	for k, v := range scalars {
		row := dst[(8+k)*Points : (9+k)*Points]
		for i := range row {
			row[i] = v
		}
	}
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

// String renders the position as gnubg-like text: the player to move, the
// dice and the checkers of each player by point in its own numbering.
func (s *State) String() string {
	var b strings.Builder
	switch {
	case s.IsTerminal():
		w, pts := s.Points()
		fmt.Fprintf(&b, "game over: winner %d (%d points)", w, pts)
	case s.chance && s.moves == 0:
		fmt.Fprintf(&b, "player %d to roll the opening roll", s.player)
	case s.chance:
		fmt.Fprintf(&b, "player %d to roll", s.player)
	default:
		fmt.Fprintf(&b, "player %d to play %d-%d", s.player, s.dice[0], s.dice[1])
		if s.half {
			b.WriteString(" (second half)")
		}
	}
	for c := 0; c < 2; c++ {
		fmt.Fprintf(&b, "\n  player %d:", c)
		for i := Points - 1; i >= 0; i-- {
			if n := s.pos.Board[c][i]; n > 0 {
				fmt.Fprintf(&b, " %d:%d", i+1, n)
			}
		}
		fmt.Fprintf(&b, " bar:%d off:%d", s.pos.Bar[c], s.pos.Off[c])
	}
	fmt.Fprintf(&b, "\n  position ID %s\n", s.PositionID())
	return b.String()
}
