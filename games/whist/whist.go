// Package whist implements two-handed whist, a small trick-taking card game
// with a hidden deal, behind the games API: a game of chance (the deal is a
// sequence of chance nodes) and of imperfect information (each player sees
// its own hand, the turned-up trump card and the cards played).
//
// # Rules
//
// The deck has four suits, clubs, diamonds, hearts and spades, of Ranks
// cards each: the top Ranks of 2 3 4 5 6 7 8 9 T J Q K A (default 6 ranks,
// 9 to A, 24 cards). Each player is dealt Hand cards (default 6), player 0
// first, one card at a time. With trumps (the default) the next card of the
// stock is then turned face up: its suit is trumps for the deal and the
// card itself takes no further part; without trumps no card is turned. The
// rest of the stock stays unseen all deal.
//
// Play is in Hand tricks. Player 0 leads to the first trick; the winner of
// a trick leads to the next. The leader plays any card; the other player
// must follow suit (play a card of the suit led) when able, and otherwise
// plays any card. A trick is won by the higher trump in it if it holds a
// trump, else by the higher card of the suit led.
//
// # Score
//
// A deal is scored in tricks: each player's score is the tricks it took
// less the tricks its opponent took (Tricks gives both counts). Returns
// divides that by Hand, so that it lies in [-1, 1] as the games API
// requires; a deal with an even Hand can be drawn.
//
// # Actions and information
//
// Actions are cards, suit*Ranks + rank with rank 0 the lowest and suits in
// the order clubs, diamonds, hearts, spades; they are both the chance
// outcomes of the deal (each undealt card equally likely) and the cards
// played. Cards are written rank then suit, "AS", "TH", "9C". A player's
// information state is its seat, its own dealt cards, the turned-up card,
// the number of cards dealt and every card played, in order; Resample
// redraws the opponent's unplayed cards uniformly from the cards the player
// has not seen, outside the suits the opponent has shown out of (failed to
// follow), which are exactly the hands consistent with what it saw.
//
// The rules follow the trick-taking core of whist as Parlett, "The Penguin
// Book of Card Games" (2008), describes it, shortened so that a double-dummy
// solver settles a deal exhaustively in milliseconds.
//
// The package registers itself as "whist".
package whist

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"

	"tabula/games"
)

// Defaults and limits of the parameters.
const (
	DefaultHand  = 6
	DefaultRanks = 6
	MaxRanks     = 8 // a deck of at most 32 cards fits a uint32
	MaxHand      = 12
)

const rankLetters = "23456789TJQKA"
const suitLetters = "CDHS"

func init() {
	games.Register("whist", "two-handed whist: a hidden deal of hand cards each from a 4-suit deck, follow suit, trumps turned up; scored in tricks (imperfect information)",
		[]games.Param{
			{Name: "hand", Default: strconv.Itoa(DefaultHand), Doc: "cards dealt to each player (= tricks), 1..12, with 2*hand+trumps <= 4*ranks"},
			{Name: "ranks", Default: strconv.Itoa(DefaultRanks), Doc: "cards per suit, the top ranks up to the ace, 2..8"},
			{Name: "trumps", Default: "1", Doc: "1: a card turned up after the deal names trumps; 0: no trumps"},
		},
		func(p games.Params) (games.Game, error) {
			hand, err := p.Int("hand")
			if err != nil {
				return nil, err
			}
			ranks, err := p.Int("ranks")
			if err != nil {
				return nil, err
			}
			trumps, err := p.Int("trumps")
			if err != nil {
				return nil, err
			}
			if trumps != 0 && trumps != 1 {
				return nil, fmt.Errorf("game whist: trumps=%d, want 0 (no trumps) or 1", trumps)
			}
			return New(hand, ranks, trumps == 1)
		})
}

// Game is one variant of the game. It is immutable.
type Game struct {
	hand, ranks, deck int
	trumps            bool
	dealLen           int // chance actions: both hands and the turn-up
}

// New returns the game with hand cards each, ranks cards per suit and
// trumps or not.
func New(hand, ranks int, trumps bool) (*Game, error) {
	if ranks < 2 || ranks > MaxRanks {
		return nil, fmt.Errorf("game whist: ranks=%d, want 2..%d", ranks, MaxRanks)
	}
	t := 0
	if trumps {
		t = 1
	}
	if hand < 1 || hand > MaxHand || 2*hand+t > 4*ranks {
		turnUp := ""
		if trumps {
			turnUp = " and the turn-up"
		}
		return nil, fmt.Errorf("game whist: hand=%d, want 1..%d with both hands%s in the deck's %d cards (ranks=%d)", hand, MaxHand, turnUp, 4*ranks, ranks)
	}
	return &Game{hand: hand, ranks: ranks, deck: 4 * ranks, trumps: trumps, dealLen: 2*hand + t}, nil
}

// Default returns the default game: 6 cards each from 24, trumps.
func Default() *Game {
	g, _ := New(DefaultHand, DefaultRanks, true)
	return g
}

// Name returns "whist" for the default game, else the spec with every
// parameter.
func (g *Game) Name() string {
	if g.hand == DefaultHand && g.ranks == DefaultRanks && g.trumps {
		return "whist"
	}
	t := 0
	if g.trumps {
		t = 1
	}
	return fmt.Sprintf("whist:hand=%d,ranks=%d,trumps=%d", g.hand, g.ranks, t)
}

// Hand returns the cards dealt to each player, which is the number of
// tricks.
func (g *Game) Hand() int { return g.hand }

// Ranks returns the cards per suit.
func (g *Game) Ranks() int { return g.ranks }

// DeckSize returns 4*Ranks.
func (g *Game) DeckSize() int { return g.deck }

// Trumps reports whether a turned-up card names trumps.
func (g *Game) Trumps() bool { return g.trumps }

// NumActions returns the deck size: an action is a card.
func (g *Game) NumActions() int { return g.deck }

// MaxChanceOutcomes returns the deck size: a deal outcome is a card.
func (g *Game) MaxChanceOutcomes() int { return g.deck }

// NumPlayers returns 2.
func (g *Game) NumPlayers() int { return 2 }

// ObservationShape returns one plane of 1 x (5*deck+6): the mover's hand,
// the cards it played, the cards the opponent played, the card led to the
// current trick, the turned-up card (deck each), the trump suit (4) and
// both players' tricks over Hand (mover first, 2).
func (g *Game) ObservationShape() (planes, height, width int) { return 1, 1, 5*g.deck + 6 }

// MaxGameLength returns the deal and the play: dealLen + 2*Hand actions.
func (g *Game) MaxGameLength() int { return g.dealLen + 2*g.hand }

// NewInitialState returns the state before the deal.
func (g *Game) NewInitialState() games.State {
	return &State{g: g, turn: -1, trump: -1, lead: -1}
}

// Suit returns card c's suit (0 clubs .. 3 spades).
func (g *Game) Suit(c int) int { return c / g.ranks }

// SuitMask returns the cards of suit s as a bit set.
func (g *Game) SuitMask(s int) uint32 {
	return (uint32(1)<<g.ranks - 1) << (s * g.ranks)
}

// CardName writes card c as rank then suit, e.g. "AS".
func (g *Game) CardName(c int) string {
	if c < 0 || c >= g.deck {
		return "??"
	}
	r := len(rankLetters) - g.ranks + c%g.ranks
	return string([]byte{rankLetters[r], suitLetters[c/g.ranks]})
}

// ParseCard reads a card written by CardName (either case, either order of
// rank and suit, "10" for "T").
func (g *Game) ParseCard(text string) (int, error) {
	t := strings.ToUpper(strings.TrimSpace(text))
	t = strings.ReplaceAll(t, "10", "T")
	if len(t) != 2 {
		return 0, fmt.Errorf("%s: %q is not a card (rank then suit, e.g. AS, TH, 9C)", g.Name(), text)
	}
	ri, si := strings.IndexByte(rankLetters, t[0]), strings.IndexByte(suitLetters, t[1])
	if ri < 0 || si < 0 {
		ri, si = strings.IndexByte(rankLetters, t[1]), strings.IndexByte(suitLetters, t[0])
	}
	if ri < 0 || si < 0 {
		return 0, fmt.Errorf("%s: %q is not a card (rank then suit, e.g. AS, TH, 9C)", g.Name(), text)
	}
	r := ri - (len(rankLetters) - g.ranks)
	if r < 0 {
		return 0, fmt.Errorf("%s: %q is not in the deck: its ranks are %s", g.Name(), text, rankLetters[len(rankLetters)-g.ranks:])
	}
	return si*g.ranks + r, nil
}

// FormatAction writes a card.
func (g *Game) FormatAction(a int) string { return g.CardName(a) }

// ParseAction reads a card.
func (g *Game) ParseAction(text string) (int, error) { return g.ParseCard(text) }

// FormatActions writes cards separated by spaces.
func (g *Game) FormatActions(actions []int) string {
	parts := make([]string, len(actions))
	for i, a := range actions {
		parts[i] = g.CardName(a)
	}
	return strings.Join(parts, " ")
}

// ParseActions reads cards separated by spaces or commas.
func (g *Game) ParseActions(text string) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' }) {
		c, err := g.ParseCard(f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// FormatSet writes the cards of set sorted by suit (spades first) and rank
// (highest first).
func (g *Game) FormatSet(set uint32) string {
	var parts []string
	for s := 3; s >= 0; s-- {
		for r := g.ranks - 1; r >= 0; r-- {
			if c := s*g.ranks + r; set&(1<<c) != 0 {
				parts = append(parts, g.CardName(c))
			}
		}
	}
	return strings.Join(parts, " ")
}

// State is a deal in progress.
type State struct {
	g      *Game
	hands  [2]uint32 // cards held now
	dealt  [2]uint32 // cards dealt to each player (held and played)
	turn   int8      // the turned-up card, -1 before it is turned
	trump  int8      // trump suit, -1 for none
	ndeal  int8      // deal actions done
	player int8      // to move in the play
	lead   int8      // the card led to the current trick, -1 at a trick's start
	tricks [2]int8
	voids  [2]uint8 // suits each player has shown out of
	nplay  int8
	plays  [2 * MaxHand]int8
}

// Game returns the game.
func (s *State) Game() games.Game { return s.g }

// Rules returns the game as its concrete type.
func (s *State) Rules() *Game { return s.g }

// IsChanceNode reports whether a card is dealt next.
func (s *State) IsChanceNode() bool { return int(s.ndeal) < s.g.dealLen }

// CurrentPlayer returns games.ChancePlayer during the deal, else the player
// to play a card.
func (s *State) CurrentPlayer() int {
	if s.IsChanceNode() {
		return games.ChancePlayer
	}
	return int(s.player)
}

// NextPlayer returns the player to play a card (player 0 after the deal).
func (s *State) NextPlayer() int { return int(s.player) }

// IsTerminal reports whether every trick has been played.
func (s *State) IsTerminal() bool { return int(s.nplay) == 2*s.g.hand }

// Hands returns the cards each player holds now, as bit sets over cards.
func (s *State) Hands() [2]uint32 { return s.hands }

// Dealt returns the cards dealt to each player, played ones included.
func (s *State) Dealt() [2]uint32 { return s.dealt }

// Lead returns the card led to the current trick, or -1 at a trick's start.
func (s *State) Lead() int { return int(s.lead) }

// Trump returns the trump suit, or -1 for none (or before the turn-up).
func (s *State) Trump() int { return int(s.trump) }

// TurnUp returns the turned-up card, or -1.
func (s *State) TurnUp() int { return int(s.turn) }

// Tricks returns the tricks each player has taken.
func (s *State) Tricks() [2]int { return [2]int{int(s.tricks[0]), int(s.tricks[1])} }

// Plays returns the cards played so far, in order (a copy).
func (s *State) Plays() []int {
	out := make([]int, s.nplay)
	for i, c := range s.plays[:s.nplay] {
		out[i] = int(c)
	}
	return out
}

// Voids returns, per player, the bit set of suits it has shown out of.
func (s *State) Voids() [2]uint8 { return s.voids }

// undealt returns the cards in the stock.
func (s *State) undealt() uint32 {
	all := uint32(1)<<s.g.deck - 1
	if s.g.deck == 32 {
		all = ^uint32(0)
	}
	u := all &^ (s.dealt[0] | s.dealt[1])
	if s.turn >= 0 {
		u &^= 1 << s.turn
	}
	return u
}

// ChanceOutcomes lists the undealt cards, each equally likely.
func (s *State) ChanceOutcomes(buf []games.ChanceOutcome) []games.ChanceOutcome {
	buf = buf[:0]
	if !s.IsChanceNode() {
		return buf
	}
	u := s.undealt()
	p := 1 / float64(bits.OnesCount32(u))
	for ; u != 0; u &= u - 1 {
		buf = append(buf, games.ChanceOutcome{Action: bits.TrailingZeros32(u), Prob: p})
	}
	return buf
}

// legalSet returns the legal actions as a bit set.
func (s *State) legalSet() uint32 {
	switch {
	case s.IsChanceNode():
		return s.undealt()
	case s.IsTerminal():
		return 0
	}
	h := s.hands[s.player]
	if s.lead >= 0 {
		if f := h & s.g.SuitMask(s.g.Suit(int(s.lead))); f != 0 {
			return f
		}
	}
	return h
}

// LegalActions lists the undealt cards during the deal, else the cards the
// player to move may play.
func (s *State) LegalActions(buf []int) []int {
	buf = buf[:0]
	for m := s.legalSet(); m != 0; m &= m - 1 {
		buf = append(buf, bits.TrailingZeros32(m))
	}
	return buf
}

// IsLegal reports whether a is legal now.
func (s *State) IsLegal(a int) bool {
	return a >= 0 && a < s.g.deck && s.legalSet()&(1<<a) != 0
}

// ApplyAction deals card a during the deal, else plays it.
func (s *State) ApplyAction(a int) {
	if s.IsChanceNode() {
		switch n := int(s.ndeal); {
		case n < s.g.hand:
			s.dealt[0] |= 1 << a
			s.hands[0] |= 1 << a
		case n < 2*s.g.hand:
			s.dealt[1] |= 1 << a
			s.hands[1] |= 1 << a
		default:
			s.turn = int8(a)
			s.trump = int8(s.g.Suit(a))
		}
		s.ndeal++
		return
	}
	p := s.player
	s.hands[p] &^= 1 << a
	s.plays[s.nplay] = int8(a)
	s.nplay++
	if s.lead < 0 {
		s.lead = int8(a)
		s.player = 1 - p
		return
	}
	w := s.g.TrickWinner(int(s.lead), a, int(s.trump))
	if s.g.Suit(a) != s.g.Suit(int(s.lead)) {
		s.voids[p] |= 1 << s.g.Suit(int(s.lead))
	}
	winner := 1 - p // the leader
	if w == 1 {
		winner = p
	}
	s.tricks[winner]++
	s.player = winner
	s.lead = -1
}

// TrickWinner returns 0 when the card led wins the trick against follow,
// 1 when follow wins, with trump suit trump (-1 for none).
func (g *Game) TrickWinner(lead, follow, trump int) int {
	ls, fs := g.Suit(lead), g.Suit(follow)
	switch {
	case fs == ls:
		if follow > lead {
			return 1
		}
		return 0
	case fs == trump:
		return 1
	}
	return 0
}

// Returns gives each player's tricks less its opponent's, over Hand, at the
// end of the deal (zeros before).
func (s *State) Returns() [2]float64 {
	if !s.IsTerminal() {
		return [2]float64{}
	}
	d := float64(s.tricks[0]-s.tricks[1]) / float64(s.g.hand)
	return [2]float64{d, -d}
}

// Score returns each player's tricks less its opponent's at the end of the
// deal, the game's own unit (zeros before).
func (s *State) Score() [2]float64 {
	if !s.IsTerminal() {
		return [2]float64{}
	}
	d := float64(s.tricks[0] - s.tricks[1])
	return [2]float64{d, -d}
}

// ScoreUnit names the unit of Score.
func (s *State) ScoreUnit() string { return "tricks" }

// Observation writes what the player to move (during the deal: player 0)
// sees; it never shows the opponent's unplayed cards.
func (s *State) Observation(dst []float32) {
	d := s.g.deck
	clear(dst[:5*d+6])
	me := s.player
	played := [2]uint32{s.dealt[0] &^ s.hands[0], s.dealt[1] &^ s.hands[1]}
	for c := 0; c < d; c++ {
		bit := uint32(1) << c
		if s.hands[me]&bit != 0 {
			dst[c] = 1
		}
		if played[me]&bit != 0 {
			dst[d+c] = 1
		}
		if played[1-me]&bit != 0 {
			dst[2*d+c] = 1
		}
	}
	if s.lead >= 0 {
		dst[3*d+int(s.lead)] = 1
	}
	if s.turn >= 0 {
		dst[4*d+int(s.turn)] = 1
	}
	if s.trump >= 0 {
		dst[5*d+int(s.trump)] = 1
	}
	dst[5*d+4] = float32(s.tricks[me]) / float32(s.g.hand)
	dst[5*d+5] = float32(s.tricks[1-me]) / float32(s.g.hand)
}

// Clone returns an independent copy.
func (s *State) Clone() games.State { c := *s; return &c }

func mix(h, v uint64) uint64 {
	h ^= v + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>31
}

// Hash mixes the hands, the cards dealt, the turn-up, the current trick,
// the player to move and the tricks taken: everything the rules, the
// observation and the outcome read.
func (s *State) Hash() uint64 {
	h := uint64(s.g.deck)<<8 | uint64(s.g.hand)
	h = mix(h, uint64(s.hands[0])|uint64(s.hands[1])<<32)
	h = mix(h, uint64(s.dealt[0])|uint64(s.dealt[1])<<32)
	h = mix(h, uint64(uint8(s.turn))|uint64(uint8(s.lead))<<8|uint64(s.player)<<16|
		uint64(s.tricks[0])<<24|uint64(s.tricks[1])<<32|uint64(s.ndeal)<<40)
	return h
}

// MoveNumber returns the actions so far, deals included.
func (s *State) MoveNumber() int { return int(s.ndeal) + int(s.nplay) }

// String shows both hands, the turn-up and the tricks played, e.g.
// "0: AS 9S KH | 1: QS JD TC | turn 9H | AS QS, KH TC (2-0)".
func (s *State) String() string { return s.describe(-1) }

// describe writes the deal as viewer (0 or 1) sees it, or all of it for
// viewer -1: a viewer sees its own dealt cards and the played ones.
func (s *State) describe(viewer int) string {
	var b strings.Builder
	for p := 0; p < 2; p++ {
		if p > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "%d: ", p)
		switch {
		case viewer < 0:
			b.WriteString(s.g.FormatSet(s.hands[p]))
		case viewer == p:
			b.WriteString(s.g.FormatSet(s.dealt[p]))
		default:
			fmt.Fprintf(&b, "%d cards", bits.OnesCount32(s.dealt[p]))
		}
	}
	if s.g.trumps {
		b.WriteString(" | turn ")
		if s.turn >= 0 {
			b.WriteString(s.g.CardName(int(s.turn)))
		} else {
			b.WriteString("?")
		}
	}
	b.WriteString(" |")
	for i, c := range s.plays[:s.nplay] {
		switch {
		case i == 0:
			b.WriteByte(' ')
		case i%2 == 0:
			b.WriteString(", ")
		default:
			b.WriteByte(' ')
		}
		b.WriteString(s.g.CardName(int(c)))
	}
	fmt.Fprintf(&b, " (%d-%d)", s.tricks[0], s.tricks[1])
	return b.String()
}

// InformationStateString gives what player p knows: its seat, its own
// dealt cards, how many cards the opponent was dealt, the turn-up and every
// card played, e.g. "p1 0: 6 cards | 1: KS QH JH TD 9D AC | turn 9H | AS QS
// (0-1)".
func (s *State) InformationStateString(p int) string {
	return fmt.Sprintf("p%d %s", p, s.describe(p))
}

// Resample returns a state p cannot tell from s: the opponent's unplayed
// cards redrawn uniformly from the cards p has not seen outside the suits
// the opponent has shown out of.
func (s *State) Resample(p int, rng *rand.Rand) games.State {
	c := *s
	o := 1 - p
	k := bits.OnesCount32(s.hands[o])
	if k == 0 {
		return &c
	}
	// Unseen by p: the stock and the opponent's unplayed cards.
	pool := s.undealt() | s.hands[o]
	for suit := 0; suit < 4; suit++ {
		if s.voids[o]&(1<<suit) != 0 {
			pool &^= s.g.SuitMask(suit)
		}
	}
	var cards [32]int8
	n := 0
	for m := pool; m != 0; m &= m - 1 {
		cards[n] = int8(bits.TrailingZeros32(m))
		n++
	}
	var drawn uint32
	for i := 0; i < k; i++ { // a partial Fisher-Yates shuffle
		j := i + rng.IntN(n-i)
		cards[i], cards[j] = cards[j], cards[i]
		drawn |= 1 << cards[i]
	}
	c.dealt[o] = s.dealt[o]&^s.hands[o] | drawn
	c.hands[o] = drawn
	return &c
}

// FormatMove writes a card.
func (s *State) FormatMove(a int) string { return s.g.CardName(a) }

// ParseMove reads a card and checks that it may be dealt or played now.
func (s *State) ParseMove(text string) (int, error) {
	a, err := s.g.ParseCard(text)
	if err != nil {
		return 0, err
	}
	if !s.IsLegal(a) {
		why := "not in the hand of the player to move"
		switch {
		case s.IsTerminal():
			why = "the deal is over"
		case s.IsChanceNode():
			why = "already dealt"
		case s.hands[s.player]&(1<<a) != 0:
			why = "the player must follow suit"
		}
		return 0, fmt.Errorf("%s: %s: %s: %w", s.g.Name(), text, why, games.ErrIllegalMove)
	}
	return a, nil
}

var suitNames = [4]string{"clubs", "diamonds", "hearts", "spades"}

// PlayerView describes the deal as player p sees it, for a person at a
// terminal: its hand, the opponent's count of cards, trumps, the current
// trick, the tricks taken and the tricks played. It shows none of the
// opponent's unplayed cards.
func (s *State) PlayerView(p int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "your hand: %s\n", s.g.FormatSet(s.hands[p]))
	fmt.Fprintf(&b, "opponent: %d cards\n", bits.OnesCount32(s.hands[1-p]))
	switch {
	case !s.g.trumps:
		b.WriteString("no trumps\n")
	case s.turn >= 0:
		fmt.Fprintf(&b, "trumps: %s (turned up %s)\n", suitNames[s.trump], s.g.CardName(int(s.turn)))
	}
	if s.nplay > 0 {
		b.WriteString("played:")
		for i, c := range s.plays[:s.nplay] {
			if i%2 == 0 && i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte(' ')
			b.WriteString(s.g.CardName(int(c)))
		}
		b.WriteByte('\n')
	}
	if s.lead >= 0 {
		who := "you"
		if int(s.player) == p {
			who = "the opponent"
		}
		fmt.Fprintf(&b, "trick: %s led %s\n", who, s.g.CardName(int(s.lead)))
	}
	fmt.Fprintf(&b, "tricks: you %d, opponent %d", s.tricks[p], s.tricks[1-p])
	return b.String()
}
