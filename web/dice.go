package web

import (
	"context"
	mrand "math/rand/v2"

	"tabula/games"
)

// IsDiceGame reports whether g is a game of dice the page draws
// (backgammon): a game with chance nodes whose moves are public. On the
// served page its dice are the server's (Dealer.Dice).
func IsDiceGame(g games.Game) bool {
	return games.HasChance(g) && !IsCardGame(g)
}

// diceToken is what a dice token seals: the game and the seed its dice are
// drawn from.
type diceToken struct {
	Game string `json:"g"`
	Seed uint64 `json:"s"`
}

// diceStream is the stream of PCG the dice are drawn from (with the seed).
const diceStream = 0x64696365

// DiceGame is a game of dice as the served page plays it: the server alone
// draws the dice. A game's dice come from one seed, sealed in a token like
// a card deal's (Dealer) that the page sends back with the moves: the k-th
// roll of the game is the k-th draw from that seed, so every roll in the
// moves a page sends is checked against the server's draw, and the rolls
// still to come are drawn by the server.
type DiceGame struct {
	Game   games.Game
	Layout Layout
	// State is the position after Moves.
	State games.State
	// Moves are the request's moves, with the rolls Roll appends.
	Moves []int
	token string
	rng   *mrand.Rand
}

// Dice replays r in a game of dice (IsDiceGame) with the dice of r.Deal,
// its dice token. Without a token, r starts a new game: its moves must be
// empty, and the game gets a fresh seed and token. Each roll in r.Moves
// must be the server's draw, each other move legal; every error is a
// BadRequestError naming what is wrong, and none tells a roll to come.
func (d *Dealer) Dice(r Request) (*DiceGame, error) {
	g, l, err := NewGame(r.Game)
	if err != nil {
		return nil, err
	}
	if !IsDiceGame(g) {
		return nil, badRequest("game %s is not a game of dice", g.Name())
	}
	if len(r.Moves) > g.MaxGameLength() {
		return nil, badRequest("%d moves: a game of %s has at most %d", len(r.Moves), g.Name(), g.MaxGameLength())
	}
	var t diceToken
	token := r.Deal
	if token == "" {
		if len(r.Moves) > 0 {
			return nil, badRequest("game %s: its dice are rolled by the server: moves need the dice token (deal) of the game they came from; a new game starts from no moves", g.Name())
		}
		t = diceToken{Game: g.Name(), Seed: newSeed()}
		token = d.sealAs(t, diceAD)
	} else {
		if err := d.openAs(r.Deal, diceAD, "dice token", &t); err != nil {
			return nil, err
		}
		if t.Game != g.Name() {
			return nil, badRequest("the dice token is of %s, the request of %s", t.Game, g.Name())
		}
	}
	dg := &DiceGame{Game: g, Layout: l, State: g.NewInitialState(), Moves: r.Moves, token: token,
		rng: mrand.New(mrand.NewPCG(t.Seed, diceStream))}
	cs := dg.State.(games.ChanceState)
	var buf []games.ChanceOutcome
	for i, a := range r.Moves {
		if !dg.State.IsTerminal() && cs.IsChanceNode() {
			buf = cs.ChanceOutcomes(buf)
			if a != drawOutcome(buf, dg.rng) {
				return nil, badRequest("game %s: move %d is not the roll the server made: the dice are the server's alone (the moves were changed, or the dice token is of another game)", g.Name(), i+1)
			}
		}
		if err := games.Play(dg.State, a); err != nil {
			return nil, badRequest("game %s: move %d: %v", g.Name(), i+1, err)
		}
	}
	return dg, nil
}

// Roll draws the rolls that follow the moves, up to the next decision (none
// when the moves end with a decision to make or at the end of the game).
func (dg *DiceGame) Roll() { dg.Moves = Roll(dg.State, dg.Moves, dg.rng) }

// Describe returns the position after the moves, as the page draws it, with
// the game's dice token.
func (dg *DiceGame) Describe() Position {
	p := Describe(dg.Game, dg.Layout, dg.State, dg.Moves)
	p.Deal = dg.token
	return p
}

// Think asks e for its move after the rolls (Roll), and returns it with the
// position after it and the next roll, which carries the dice token.
func (dg *DiceGame) Think(ctx context.Context, e Engine) (Reply, error) {
	dg.Roll()
	rep, err := Think(ctx, e, dg.Game, dg.Layout, dg.State, dg.Moves)
	if err != nil {
		return rep, err
	}
	if err := RollAfter(dg.Game, dg.Layout, &rep, dg.rng); err != nil {
		return rep, err
	}
	rep.Position.Deal = dg.token
	return rep, nil
}

// drawOutcome draws one of outcomes with one number of rng.
func drawOutcome(outcomes []games.ChanceOutcome, rng *mrand.Rand) int {
	x := rng.Float64()
	a := outcomes[len(outcomes)-1].Action
	for _, o := range outcomes {
		if x < o.Prob {
			return o.Action
		}
		x -= o.Prob
	}
	return a
}
