package players

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"

	"tabula/games"
	"tabula/games/whist"
)

// buildCardRules returns a factory of rule-based whist players.
func buildCardRules(g games.Game, spec Spec) (*Factory, error) {
	name := spec.String()
	if _, ok := g.(*whist.Game); !ok {
		return nil, fmt.Errorf("player %s: the card rules play whist only, not %s", name, g.Name())
	}
	return &Factory{Name: name, New: func(*rand.Rand) (Player, error) { return &cardRulesPlayer{name: name}, nil }}, nil
}

// cardRulesPlayer plays whist by fixed rules, reading only what the mover
// sees (its hand, the card led, the cards played, the trump suit):
// following, it wins the trick with its cheapest winning card (a card of
// the suit led before a trump) and otherwise throws its lowest card, a
// non-trump if it can; leading, it plays its highest master (a card no
// unplayed card outside its hand beats in its suit), a non-trump first,
// else the lowest card of its longest non-trump suit.
type cardRulesPlayer struct{ name string }

func (p *cardRulesPlayer) Name() string { return p.name }
func (p *cardRulesPlayer) ChooseAction(_ context.Context, s games.State) (int, error) {
	w, ok := s.(*whist.State)
	if !ok {
		return 0, fmt.Errorf("player %s: not a whist state", p.name)
	}
	if w.IsTerminal() {
		return 0, errGameOver
	}
	if w.IsChanceNode() {
		return 0, fmt.Errorf("player %s: asked to move during the deal", p.name)
	}
	return CardRule(w), nil
}

// CardRule returns the card the rule-based whist player plays in s (past
// the deal, not over).
func CardRule(s *whist.State) int {
	g := s.Rules()
	me := s.CurrentPlayer()
	hand := s.Hands()[me]
	trump := s.Trump()
	trumps := uint32(0)
	if trump >= 0 {
		trumps = g.SuitMask(trump)
	}
	lowest := func(m uint32) int { return bits.TrailingZeros32(m) }
	// lowestRank is the card of lowest rank in m, ties to the lower suit.
	lowestRank := func(m uint32) int {
		best := -1
		for ; m != 0; m &= m - 1 {
			c := bits.TrailingZeros32(m)
			if best < 0 || c%g.Ranks() < best%g.Ranks() {
				best = c
			}
		}
		return best
	}
	if lead := s.Lead(); lead >= 0 {
		suit := g.SuitMask(g.Suit(lead))
		if f := hand & suit; f != 0 {
			if higher := f &^ (uint32(1)<<(lead+1) - 1); higher != 0 {
				return lowest(higher)
			}
			return lowest(f)
		}
		if t := hand & trumps; t != 0 {
			return lowest(t)
		}
		return lowestRank(hand)
	}
	// Unplayed cards outside the hand: the opponent's and the stock's (the
	// turn-up is out of play).
	d := s.Dealt()
	h := s.Hands()
	played := d[0]&^h[0] | d[1]&^h[1]
	out := (uint32(1)<<g.DeckSize() - 1) &^ hand &^ played
	if g.DeckSize() == 32 {
		out = ^hand &^ played
	}
	if t := s.TurnUp(); t >= 0 {
		out &^= 1 << t
	}
	masters := uint32(0)
	for m := hand; m != 0; m &= m - 1 {
		c := bits.TrailingZeros32(m)
		if out&g.SuitMask(g.Suit(c))&^(uint32(1)<<(c+1)-1) == 0 {
			masters |= 1 << c
		}
	}
	if m := masters &^ trumps; m != 0 {
		return 31 - bits.LeadingZeros32(m)
	}
	if masters != 0 {
		return 31 - bits.LeadingZeros32(masters)
	}
	longest, n := -1, 0
	for suit := 0; suit < 4; suit++ {
		if suit == trump {
			continue
		}
		if k := bits.OnesCount32(hand & g.SuitMask(suit)); k > n {
			longest, n = suit, k
		}
	}
	if longest < 0 {
		return lowest(hand)
	}
	return lowest(hand & g.SuitMask(longest))
}
