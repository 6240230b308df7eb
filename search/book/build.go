package book

import (
	"fmt"

	"tabula/games/chess"
)

// BuildConfig holds the settings of Build, named after Polyglot make-book's
// options.
type BuildConfig struct {
	// MaxPly counts the moves of each game up to this many plies (make-book
	// -max-ply, default 1024).
	MaxPly int
	// MinGame keeps a move only when it was played at least this many times
	// in its position (make-book -min-game, default 3).
	MinGame int
	// Mode is how moves are weighted: ModeCount ("" or "count": make-book's
	// tally of results) or ModeNegamax (results backed up through the book's
	// tree; see BuildNegamax).
	Mode string
	// Margin, with ModeNegamax, keeps the moves whose backed-up value is
	// within Margin of the best move's (values in [-1, 1]); 0 keeps the best
	// moves only.
	Margin float64
}

// The modes of BuildConfig.Mode.
const (
	ModeCount   = "count"
	ModeNegamax = "negamax"
)

// DefaultBuildConfig returns make-book's defaults: MaxPly 1024, MinGame 3,
// counting.
func DefaultBuildConfig() BuildConfig { return BuildConfig{MaxPly: 1024, MinGame: 3} }

// Validate checks the ranges: MaxPly >= 0, MinGame >= 1, a known Mode,
// Margin in [0, 2].
func (c BuildConfig) Validate() error {
	if c.MaxPly < 0 {
		return fmt.Errorf("book: MaxPly %d, want >= 0", c.MaxPly)
	}
	if c.MinGame < 1 {
		return fmt.Errorf("book: MinGame %d, want >= 1", c.MinGame)
	}
	if c.Mode != "" && c.Mode != ModeCount && c.Mode != ModeNegamax {
		return fmt.Errorf("book: mode %q, want %s or %s", c.Mode, ModeCount, ModeNegamax)
	}
	if !(c.Margin >= 0 && c.Margin <= 2) {
		return fmt.Errorf("book: margin %v, want in [0, 2]", c.Margin)
	}
	return nil
}

// countHalveAt is make-book's COUNT_MAX: when a move's count reaches it,
// the counts and sums of every move of its position are halved (rounding
// up), so that they fit in 16 bits.
const countHalveAt = 16384

// tally is a (position, move) with its count n and the sum of its scores.
type tally struct {
	key    uint64
	move   uint16
	n, sum int
}

// Build counts the moves of games as Polyglot's make-book does: each move
// among a game's first MaxPly plies counts once for its (position, move),
// scoring 2 when the game was won by the side that played it, 1 when drawn
// or unfinished (any result but "1-0" and "0-1") and 0 when lost. A move
// is kept when its count is at least MinGame and its summed score is
// positive; the entry's weight is the summed score ("2*wins + draws"), its
// learn field 0. A game starts from its Start position (make-book itself
// always starts from the initial position). The entries come back in the
// order their (position, move) was first met, which is make-book's order
// before it sorts; Marshal sorts them.
//
// With cfg.Mode ModeNegamax it builds the book of BuildNegamax instead.
func Build(games []chess.PGNGame, cfg BuildConfig) ([]Entry, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Mode == ModeNegamax {
		return BuildNegamax(games, cfg)
	}
	type key struct {
		key  uint64
		move uint16
	}
	stats := map[key]*tally{}
	var order []*tally             // in the order first met
	moves := map[uint64][]uint16{} // moves seen in each position, for halving
	for gi := range games {
		g := &games[gi]
		result := startResult(g)
		pos := g.Start
		k := Key(&pos)
		for ply, m := range g.Moves {
			if ply >= cfg.MaxPly {
				break
			}
			pm := EncodeMove(&pos, m)
			t := stats[key{k, pm}]
			if t == nil {
				t = &tally{key: k, move: pm}
				stats[key{k, pm}] = t
				order = append(order, t)
				moves[k] = append(moves[k], pm)
			}
			t.n++
			t.sum += result + 1
			if t.n >= countHalveAt {
				for _, om := range moves[k] {
					o := stats[key{k, om}]
					o.n, o.sum = (o.n+1)/2, (o.sum+1)/2
				}
			}
			pos, k = KeyAfter(&pos, m)
			result = -result
		}
	}
	var out []Entry
	for _, t := range order {
		if t.n < cfg.MinGame || t.sum == 0 {
			continue
		}
		out = append(out, Entry{Key: t.key, Move: t.move, Weight: uint16(t.sum)})
	}
	return out, nil
}

// startResult is g's result for the side to move at its start: 1 a win, 0
// a draw or no result, -1 a loss.
func startResult(g *chess.PGNGame) int {
	result := 0
	switch g.Result {
	case "1-0":
		result = 1
	case "0-1":
		result = -1
	}
	if g.Start.SideToMove() == chess.Black {
		result = -result
	}
	return result
}
