package web

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"time"

	"tabula/games"
	"tabula/games/poker"
	"tabula/games/whist"
)

// CardChoices lists the games of hidden cards the served page offers. The
// deal is the server's secret (Dealer), so the static export, whose engine
// runs in the browser, does not offer them.
var CardChoices = []GameChoice{
	{"whist", "Whist (two-handed, 6 cards)"},
	{"kuhn", "Kuhn poker"},
	{"leduc", "Leduc hold'em"},
}

// IsCardGame reports whether g is a game of hidden cards the page plays
// through a Dealer.
func IsCardGame(g games.Game) bool {
	switch g.(type) {
	case *whist.Game, *poker.Game:
		return true
	}
	return false
}

// Dealer keeps the deals of card games secret from the page without
// keeping any state: a game in progress is a token, sealed with a key only
// the server holds (AES-GCM), that holds the seat of the person, the seed
// of the deal and the moves so far. The page holds the token and sends it
// back with the person's next card or bet; it learns of the deal only what
// the person's seat sees (Position.View). A page that keeps an old token
// can play on from it again, as an undo would. The dice of backgammon are
// sealed the same way (Dice).
type Dealer struct {
	aead cipher.AEAD
}

// NewDealer returns a dealer with a fresh random key.
func NewDealer() (*Dealer, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("dealer key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Dealer{aead: aead}, nil
}

// dealToken is what a token seals.
type dealToken struct {
	Game  string `json:"g"`
	Human int    `json:"h"`
	Seed  uint64 `json:"s"`
	Moves []int  `json:"m"`
}

// maxTokenLen bounds a token a request may carry.
const maxTokenLen = 4096

func (d *Dealer) seal(t dealToken) string { return d.sealAs(t, dealAD) }

func (d *Dealer) open(tok string) (dealToken, error) {
	var t dealToken
	err := d.openAs(tok, dealAD, "deal token", &t)
	return t, err
}

// The additional data of the two kinds of token, so that a token of one
// kind does not open as the other.
const (
	dealAD = "tabula deal"
	diceAD = "tabula dice"
)

// sealAs seals v's JSON under ad.
func (d *Dealer) sealAs(v any, ad string) string {
	plain, _ := json.Marshal(v) // plain data: cannot fail
	nonce := make([]byte, d.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(d.aead.Seal(nonce, nonce, plain, []byte(ad)))
}

// openAs opens a token sealed under ad into v; what names the token in
// errors, which are BadRequestErrors.
func (d *Dealer) openAs(tok, ad, what string, v any) error {
	if len(tok) > maxTokenLen {
		return badRequest("%s is %d bytes long, more than %d", what, len(tok), maxTokenLen)
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	n := d.aead.NonceSize()
	if err != nil || len(raw) < n {
		return badRequest("malformed %s", what)
	}
	plain, err := d.aead.Open(nil, raw[:n], raw[n:], []byte(ad))
	if err != nil {
		return badRequest("%s not issued by this server (or the server restarted): start a new game", what)
	}
	if err := json.Unmarshal(plain, v); err != nil {
		return badRequest("malformed %s", what)
	}
	return nil
}

// newSeed returns a random seed from the system's generator.
func newSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// replay plays t's moves from the start, the chance events drawn from t's
// seed, and stops at the next decision.
func replayDeal(g games.Game, t dealToken) (games.State, error) {
	rng := mrand.New(mrand.NewPCG(t.Seed, 0x6465616c))
	s := g.NewInitialState()
	for i := 0; ; i++ {
		for games.IsChanceNode(s) {
			a, err := games.SampleChance(s, rng)
			if err != nil {
				return nil, err
			}
			s.ApplyAction(a)
		}
		if i == len(t.Moves) {
			return s, nil
		}
		if err := games.Play(s, t.Moves[i]); err != nil {
			return nil, badRequest("game %s: move %d: %v", g.Name(), i+1, err)
		}
	}
}

// cardGame builds r's game, which must be a card game.
func cardGame(r Request) (games.Game, Layout, error) {
	g, l, err := NewGame(r.Game)
	if err != nil {
		return nil, Layout{}, err
	}
	if !IsCardGame(g) {
		return nil, Layout{}, badRequest("game %s is not a game of hidden cards", g.Name())
	}
	return g, l, nil
}

// State answers the page in a card game: with no deal in r, it deals a new
// game with the person in seat r.Human; with a deal and r.Play, it plays
// the person's card or bet; with a deal alone, it shows the position.
func (d *Dealer) State(r Request) (Position, error) {
	g, l, err := cardGame(r)
	if err != nil {
		return Position{}, err
	}
	if r.Deal == "" {
		if r.Human != 0 && r.Human != 1 {
			return Position{}, badRequest("human %d: want 0 (first) or 1 (second)", r.Human)
		}
		if r.Play != nil || len(r.Moves) > 0 {
			return Position{}, badRequest("a new deal takes no moves")
		}
		t := dealToken{Game: g.Name(), Human: r.Human, Seed: newSeed()}
		s, err := replayDeal(g, t)
		if err != nil {
			return Position{}, err
		}
		return d.describe(g, l, s, t), nil
	}
	t, s, err := d.resume(g, r)
	if err != nil {
		return Position{}, err
	}
	if r.Play != nil {
		if s.IsTerminal() || s.CurrentPlayer() != t.Human {
			return Position{}, badRequest("game %s: it is not your turn", g.Name())
		}
		if err := games.Play(s, *r.Play); err != nil {
			return Position{}, &BadRequestError{Err: fmt.Errorf("game %s: %w", g.Name(), err)}
		}
		t.Moves = append(t.Moves, *r.Play)
		if s, err = replayDeal(g, t); err != nil {
			return Position{}, err
		}
	}
	return d.describe(g, l, s, t), nil
}

// resume opens r's deal and replays it.
func (d *Dealer) resume(g games.Game, r Request) (dealToken, games.State, error) {
	t, err := d.open(r.Deal)
	if err != nil {
		return t, nil, err
	}
	if t.Game != g.Name() {
		return t, nil, badRequest("the deal is of %s, the request of %s", t.Game, g.Name())
	}
	s, err := replayDeal(g, t)
	return t, s, err
}

// Think asks e for the engine's move in r's deal, which must be the
// engine's turn, and returns it with the position after it as the person
// sees it. Only the move is shown of the engine's thinking: its policy and
// value depend on its hidden cards.
func (d *Dealer) Think(ctx context.Context, e Engine, r Request) (Reply, error) {
	g, l, err := cardGame(r)
	if err != nil {
		return Reply{}, err
	}
	t, s, err := d.resume(g, r)
	if err != nil {
		return Reply{}, err
	}
	if s.IsTerminal() {
		return Reply{}, badRequest("game %s: the game is over, there is no move to make", g.Name())
	}
	if s.CurrentPlayer() == t.Human {
		return Reply{}, badRequest("game %s: it is your turn, not the engine's", g.Name())
	}
	start := time.Now()
	a, err := e.ChooseAction(ctx, s.Clone())
	if err != nil {
		return Reply{}, &EngineError{Err: err}
	}
	text := games.FormatMove(s, a)
	if err := games.Play(s, a); err != nil {
		return Reply{}, fmt.Errorf("engine chose an illegal move: %w", err)
	}
	t.Moves = append(t.Moves, a)
	if s, err = replayDeal(g, t); err != nil {
		return Reply{}, err
	}
	return Reply{Move: a, MoveText: text, Millis: float64(time.Since(start).Microseconds()) / 1000, Position: d.describe(g, l, s, t)}, nil
}

// describe returns s as the person in seat t.Human sees it, with a fresh
// token of t.
func (d *Dealer) describe(g games.Game, l Layout, s games.State, t dealToken) Position {
	p := Position{Game: g.Name(), Layout: l, Moves: append([]int{}, t.Moves...), ToMove: s.CurrentPlayer(), Human: t.Human, Deal: d.seal(t), Cells: []int8{}}
	// The moves are public (bets, cards played): written as the person saw
	// them.
	var words []string
	for i, a := range t.Moves {
		before, err := replayDeal(g, dealToken{Game: t.Game, Seed: t.Seed, Moves: t.Moves[:i]})
		if err != nil {
			break // unreachable: s was reached by these moves
		}
		words = append(words, games.FormatMove(before, a))
	}
	p.Notation = strings.Join(words, " ")
	p.Legal = []int{}
	p.LegalText = []string{}
	if !s.IsTerminal() && s.CurrentPlayer() == t.Human {
		p.Legal = s.LegalActions(nil)
		p.LegalText = make([]string, len(p.Legal))
		for i, a := range p.Legal {
			p.LegalText[i] = games.FormatMove(s, a)
		}
	}
	p.Over = s.IsTerminal()
	if !p.Over {
		if v, ok := s.(interface{ PlayerView(int) string }); ok {
			p.View = v.PlayerView(t.Human)
		}
		return p
	}
	p.View = "the whole deal: " + s.String()
	p.Returns = s.Returns()
	if sc, ok := s.(interface {
		Score() [2]float64
		ScoreUnit() string
	}); ok {
		p.Score = fmt.Sprintf("you %+g %s", sc.Score()[t.Human], sc.ScoreUnit())
	}
	switch r := p.Returns[t.Human]; {
	case r > 0:
		p.Result = "You win"
	case r < 0:
		p.Result = "The engine wins"
	default:
		p.Result = "Draw"
	}
	return p
}

// Reveal opens a token of this dealer and returns its whole state, hidden
// cards included, and the person's seat: for the server's own tests and
// logs. No request reaches it.
func (d *Dealer) Reveal(token string) (games.State, int, error) {
	t, err := d.open(token)
	if err != nil {
		return nil, 0, err
	}
	g, err := games.New(t.Game)
	if err != nil {
		return nil, 0, err
	}
	s, err := replayDeal(g, t)
	return s, t.Human, err
}
