// Package poker implements the two standard small poker games of the
// game-theory literature behind the games API, as games of chance
// (games.Stochastic: the deals are chance nodes) and of imperfect
// information (games.Imperfect: each player sees its own card only).
//
// # Kuhn poker
//
// Kuhn (1950), as OpenSpiel's kuhn_poker and Wikipedia's "Kuhn poker": a
// deck of three cards J < Q < K; each player antes 1 chip and is dealt one
// card, the third is put aside unseen. One betting round with a bet of 1 and
// at most one bet: player 0 checks or bets; after a check player 1 checks
// (showdown for 1) or bets; facing a bet a player folds or calls (showdown
// for 2). The higher card wins the showdown. The game value for player 0 is
// -1/18 chips per hand.
//
// # Leduc hold'em
//
// Southey et al. (2005), "Bayes' Bluff", as OpenSpiel's leduc_poker: a deck
// of six cards, two each of J < Q < K; each player antes 1 chip and is dealt
// one private card. A betting round follows, then one public card is dealt
// face up and a second betting round. Bets and raises are 2 chips in the
// first round and 4 in the second, with at most two of them (a bet and a
// raise) per round; player 0 acts first in both rounds. At the showdown a
// player whose card pairs the public card wins; otherwise the higher card
// wins; equal ranks split the pot.
//
// # Actions and chance
//
// Actions: 0 fold, 1 call (check when not facing a bet), 2 raise (bet when
// not facing a bet). Chance outcomes are card ranks, 0 J, 1 Q, 2 K, each
// with probability proportional to the cards of that rank still in the
// deck: suits decide nothing in Leduc, so dealing ranks gives the same game
// with a smaller tree. The deals are player 0's card, player 1's card and,
// in Leduc, the public card after the first round.
//
// # Returns
//
// Returns are chips won divided by the most one hand can win (2 in Kuhn, 13
// in Leduc), so that they lie in [-1, 1] as the games API requires; Chips
// gives them in chips and Game.MaxWin is the scale.
//
// The package registers itself as "kuhn" and "leduc".
package poker

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"tabula/games"
)

// Actions.
const (
	Fold  = 0
	Call  = 1
	Raise = 2
)

// Card ranks.
const (
	Jack  = 0
	Queen = 1
	King  = 2
)

const maxHistory = 16

func init() {
	games.Register("kuhn", "Kuhn poker: 3 cards, one betting round, chance deals; hidden cards (imperfect information)", nil,
		func(games.Params) (games.Game, error) { return Kuhn(), nil })
	games.Register("leduc", "Leduc hold'em: 6 cards, two betting rounds, one public card; hidden cards (imperfect information)", nil,
		func(games.Params) (games.Game, error) { return Leduc(), nil })
}

// Game is one poker variant. Its values are shared and immutable.
type Game struct {
	name      string
	copies    int    // cards of each rank
	rounds    int    // betting rounds (a public card before each after the first)
	betSize   [2]int // chips per bet or raise, by round
	maxRaises int    // bets and raises allowed per round
	maxWin    int    // the most chips one hand can win
	maxLength int
}

var (
	kuhn  = &Game{name: "kuhn", copies: 1, rounds: 1, betSize: [2]int{1, 1}, maxRaises: 1, maxWin: 2, maxLength: 5}
	leduc = &Game{name: "leduc", copies: 2, rounds: 2, betSize: [2]int{2, 4}, maxRaises: 2, maxWin: 13, maxLength: 11}
)

// Kuhn returns Kuhn poker.
func Kuhn() *Game { return kuhn }

// Leduc returns Leduc hold'em.
func Leduc() *Game { return leduc }

// Name returns "kuhn" or "leduc".
func (g *Game) Name() string { return g.name }

// NumActions returns 3: fold, call, raise (and the three card ranks at
// chance nodes).
func (g *Game) NumActions() int { return 3 }

// MaxChanceOutcomes returns 3, one per card rank.
func (g *Game) MaxChanceOutcomes() int { return 3 }

// NumPlayers returns 2.
func (g *Game) NumPlayers() int { return 2 }

// MaxWin returns the most chips one hand can win: the scale of Returns.
func (g *Game) MaxWin() float64 { return float64(g.maxWin) }

// ObservationShape returns one plane of 1x10: the mover's card (3), the
// public card (3), the round (1), both players' chips in the pot over
// MaxWin (mover first, 2) and the raises so far in the round over the
// limit (1).
func (g *Game) ObservationShape() (planes, height, width int) { return 1, 1, 10 }

// MaxGameLength returns the longest hand in actions, deals included.
func (g *Game) MaxGameLength() int { return g.maxLength }

// NewInitialState returns the hand before the deal.
func (g *Game) NewInitialState() games.State {
	return &State{g: g, cards: [2]int8{-1, -1}, public: -1, contrib: [2]int{1, 1}, folded: -1}
}

// State is a hand in progress.
type State struct {
	g       *Game
	cards   [2]int8 // private ranks, -1 before the deal
	public  int8    // public rank, -1 before it is dealt
	contrib [2]int  // chips each player has put in the pot
	round   int
	raises  int // bets and raises in this round
	acted   int // actions in this round
	player  int // to move at a decision node
	folded  int // the player who folded, or -1
	done    bool
	n       int
	history [maxHistory]int8
}

// Game returns the game.
func (s *State) Game() games.Game { return s.g }

// IsChanceNode reports whether a card is dealt next.
func (s *State) IsChanceNode() bool {
	return !s.done && (s.cards[1] < 0 || (s.round > 0 && s.public < 0))
}

// CurrentPlayer returns games.ChancePlayer at a deal, else the bettor.
func (s *State) CurrentPlayer() int {
	if s.IsChanceNode() {
		return games.ChancePlayer
	}
	return s.player
}

// NextPlayer returns the player who acts after a deal (player 0 starts every
// round), else CurrentPlayer.
func (s *State) NextPlayer() int { return s.player }

// IsTerminal reports whether the hand is over (a fold or a showdown).
func (s *State) IsTerminal() bool { return s.done }

// remaining returns the cards of rank r still in the deck.
func (s *State) remaining(r int8) int {
	n := s.g.copies
	for _, c := range [3]int8{s.cards[0], s.cards[1], s.public} {
		if c == r {
			n--
		}
	}
	return n
}

// ChanceOutcomes lists the ranks still in the deck with their
// probabilities.
func (s *State) ChanceOutcomes(buf []games.ChanceOutcome) []games.ChanceOutcome {
	buf = buf[:0]
	if !s.IsChanceNode() {
		return buf
	}
	total := 0
	for r := int8(0); r < 3; r++ {
		total += s.remaining(r)
	}
	for r := int8(0); r < 3; r++ {
		if k := s.remaining(r); k > 0 {
			buf = append(buf, games.ChanceOutcome{Action: int(r), Prob: float64(k) / float64(total)})
		}
	}
	return buf
}

// LegalActions lists the ranks that can be dealt at a chance node; at a
// decision node fold (only facing a bet), call, and raise (while the
// round's limit allows).
func (s *State) LegalActions(buf []int) []int {
	buf = buf[:0]
	switch {
	case s.done:
	case s.IsChanceNode():
		for r := int8(0); r < 3; r++ {
			if s.remaining(r) > 0 {
				buf = append(buf, int(r))
			}
		}
	default:
		if s.facingBet() {
			buf = append(buf, Fold)
		}
		buf = append(buf, Call)
		if s.raises < s.g.maxRaises {
			buf = append(buf, Raise)
		}
	}
	return buf
}

func (s *State) facingBet() bool { return s.contrib[1-s.player] > s.contrib[s.player] }

// IsLegal reports whether a is legal now.
func (s *State) IsLegal(a int) bool {
	switch {
	case s.done || a < 0 || a > 2:
		return false
	case s.IsChanceNode():
		return s.remaining(int8(a)) > 0
	case a == Fold:
		return s.facingBet()
	case a == Raise:
		return s.raises < s.g.maxRaises
	}
	return true
}

// ApplyAction deals rank a at a chance node, or plays bet action a.
func (s *State) ApplyAction(a int) {
	s.history[s.n] = int8(a)
	s.n++
	if s.IsChanceNode() {
		switch {
		case s.cards[0] < 0:
			s.cards[0] = int8(a)
		case s.cards[1] < 0:
			s.cards[1] = int8(a)
		default:
			s.public = int8(a)
		}
		return
	}
	p := s.player
	switch a {
	case Fold:
		s.folded, s.done = p, true
		return
	case Call:
		s.contrib[p] = s.contrib[1-p]
		s.acted++
		if s.acted >= 2 {
			s.endRound()
			return
		}
	case Raise:
		s.contrib[p] = s.contrib[1-p] + s.g.betSize[s.round]
		s.raises++
		s.acted++
	}
	s.player = 1 - p
}

// endRound moves to the next round (whose public card is dealt next) or the
// showdown.
func (s *State) endRound() {
	if s.round+1 >= s.g.rounds {
		s.done = true
		return
	}
	s.round++
	s.raises, s.acted, s.player = 0, 0, 0
}

// winner returns the showdown's winner, or -1 for a split pot.
func (s *State) winner() int {
	if s.public >= 0 {
		for p := 0; p < 2; p++ {
			if s.cards[p] == s.public {
				return p
			}
		}
	}
	switch {
	case s.cards[0] > s.cards[1]:
		return 0
	case s.cards[1] > s.cards[0]:
		return 1
	}
	return -1
}

// Chips returns each player's winnings in chips at the end of the hand
// (zeros before).
func (s *State) Chips() [2]float64 {
	if !s.done {
		return [2]float64{}
	}
	w := s.winner()
	if s.folded >= 0 {
		w = 1 - s.folded
	}
	if w < 0 {
		return [2]float64{}
	}
	won := float64(s.contrib[1-w])
	if w == 0 {
		return [2]float64{won, -won}
	}
	return [2]float64{-won, won}
}

// Score gives Chips, the hand's result in the game's own unit.
func (s *State) Score() [2]float64 { return s.Chips() }

// ScoreUnit names the unit of Score: "chips".
func (s *State) ScoreUnit() string { return "chips" }

// Returns gives Chips over Game.MaxWin.
func (s *State) Returns() [2]float64 {
	c := s.Chips()
	m := s.g.MaxWin()
	return [2]float64{c[0] / m, c[1] / m}
}

// Observation writes what the player to move (at a deal: the player who
// acts after it) sees: its own card, the public card, the round, the
// chips in the pot and the raises in the round. It never shows the
// opponent's card.
func (s *State) Observation(dst []float32) {
	clear(dst[:10])
	me := s.player
	if c := s.cards[me]; c >= 0 {
		dst[c] = 1
	}
	if s.public >= 0 {
		dst[3+s.public] = 1
	}
	dst[6] = float32(s.round)
	m := float32(s.g.maxWin)
	dst[7] = float32(s.contrib[me]) / m
	dst[8] = float32(s.contrib[1-me]) / m
	dst[9] = float32(s.raises) / float32(s.g.maxRaises)
}

// Clone returns an independent copy.
func (s *State) Clone() games.State { c := *s; return &c }

// Hash mixes the game and the history (FNV-1a): the history decides the
// state.
func (s *State) Hash() uint64 {
	h := uint64(14695981039346656037)
	h = (h ^ uint64(s.g.copies)) * 1099511628211
	for _, a := range s.history[:s.n] {
		h = (h ^ uint64(a+1)) * 1099511628211
	}
	return h
}

// MoveNumber returns the actions so far, deals included.
func (s *State) MoveNumber() int { return s.n }

var rankNames = [3]byte{'J', 'Q', 'K'}

func cardName(c int8) byte {
	if c < 0 {
		return '?'
	}
	return rankNames[c]
}

// roundOver reports whether a round's bet letters end the round: a call
// that is not the round's first action.
func roundOver(bets string) bool {
	return len(bets) >= 2 && bets[len(bets)-1] == 'c'
}

// String shows both cards, the public card and the betting, e.g. "K Q ? |
// rc/c" (Leduc) or "J K | cr" (Kuhn).
func (s *State) String() string {
	return s.describe(-1)
}

func (s *State) describe(viewer int) string {
	var b strings.Builder
	for p := 0; p < 2; p++ {
		c := s.cards[p]
		if viewer >= 0 && p != viewer {
			c = -1
		}
		b.WriteByte(cardName(c))
		b.WriteByte(' ')
	}
	if s.g.rounds > 1 {
		b.WriteByte(cardName(s.public))
		b.WriteByte(' ')
	}
	b.WriteByte('|')
	if s.n > 0 {
		b.WriteByte(' ')
	}
	s.writeBets(&b)
	if viewer < 0 && s.done {
		fmt.Fprintf(&b, " (%+g %+g)", s.Chips()[0], s.Chips()[1])
	}
	return b.String()
}

// writeBets writes the betting: f, c, r per action, '/' between rounds.
func (s *State) writeBets(b *strings.Builder) {
	var round []byte
	for i, a := range s.history[:s.n] {
		if i < 2 {
			continue
		}
		if s.g.rounds > 1 && roundOver(string(round)) {
			b.WriteByte('/') // a is the public deal
			round = round[:0]
			continue
		}
		round = append(round, "fcr"[a])
		b.WriteByte("fcr"[a])
	}
}

// InformationStateString gives what player p knows: its seat, its own card,
// the public card and the betting, e.g. "p1 ? K Q | rr/" (the opponent's
// card hidden as '?').
func (s *State) InformationStateString(p int) string {
	return fmt.Sprintf("p%d %s", p, s.describe(p))
}

// PlayerView describes the hand as player p sees it, for a person at a
// terminal: its card, the public card, the betting and the chips each
// player has put in. It never shows the opponent's card.
func (s *State) PlayerView(p int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "your card: %c", cardName(s.cards[p]))
	if s.g.rounds > 1 {
		fmt.Fprintf(&b, ", public card: %c", cardName(s.public))
	}
	b.WriteString("\nbetting: ")
	s.writeBets(&b)
	fmt.Fprintf(&b, "\nin the pot: you %d, opponent %d", s.contrib[p], s.contrib[1-p])
	return b.String()
}

// Resample returns a state p cannot tell from s: the opponent's card, if
// dealt, redrawn from the cards p has not seen, each equally likely.
func (s *State) Resample(p int, rng *rand.Rand) games.State {
	c := *s
	o := 1 - p
	if c.cards[o] < 0 {
		return &c
	}
	// The cards p has not seen: the deck less p's card and the public card.
	var pool []int8
	for r := int8(0); r < 3; r++ {
		k := s.g.copies
		if c.cards[p] == r {
			k--
		}
		if c.public == r {
			k--
		}
		for ; k > 0; k-- {
			pool = append(pool, r)
		}
	}
	r := pool[rng.IntN(len(pool))]
	c.cards[o] = r
	c.history[o] = r
	return &c
}

// FormatMove writes a deal as its rank ("J", "Q", "K") and a bet action as
// fold, call, check, bet or raise.
func (s *State) FormatMove(a int) string {
	if s.IsChanceNode() {
		if a >= 0 && a < 3 {
			return string(rankNames[a])
		}
		return fmt.Sprint(a)
	}
	switch a {
	case Fold:
		return "fold"
	case Call:
		if s.facingBet() {
			return "call"
		}
		return "check"
	case Raise:
		if s.facingBet() {
			return "raise"
		}
		return "bet"
	}
	return fmt.Sprint(a)
}

// ParseMove reads a move written by FormatMove (check and call, bet and
// raise are synonyms).
func (s *State) ParseMove(text string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(text))
	a := -1
	if s.IsChanceNode() {
		switch t {
		case "j":
			a = Jack
		case "q":
			a = Queen
		case "k":
			a = King
		default:
			return 0, fmt.Errorf("%s: %q is not a card (J, Q or K)", s.g.name, text)
		}
	} else {
		switch t {
		case "f", "fold":
			a = Fold
		case "c", "call", "check":
			a = Call
		case "r", "b", "raise", "bet":
			a = Raise
		default:
			return 0, fmt.Errorf("%s: %q is not a move (fold, check, call, bet or raise)", s.g.name, text)
		}
	}
	if !s.IsLegal(a) {
		return 0, fmt.Errorf("%s: %s: %w", s.g.name, text, games.ErrIllegalMove)
	}
	return a, nil
}
