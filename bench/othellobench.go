package bench

import (
	"context"
	"fmt"
	"time"

	"tabula/match"
	"tabula/players"
)

// OthelloMoveScore is one move's label in an OthelloRecord.
type OthelloMoveScore struct {
	Move  string `json:"move"`
	Score int    `json:"score"`
}

// OthelloRecord is the verdict on one position of an Othello set, written as
// a JSON line.
type OthelloRecord struct {
	Set      string             `json:"set"`             // the set's name (its file's base name)
	Bucket   string             `json:"bucket"`          // the set's range of empties, e.g. "21-24"
	Position string             `json:"position"`        // the moves from the start
	Empties  int                `json:"empties"`         // empty squares of the position
	Move     string             `json:"move"`            // the move chosen
	Value    *float64           `json:"value,omitempty"` // the player's value, if it reports one
	Scores   []OthelloMoveScore `json:"scores"`          // the exact score of every legal move, as labelled
	Best     int                `json:"best"`            // the best score
	Score    int                `json:"score"`           // the chosen move's score
	Loss     int                `json:"loss"`            // Best - Score, the discs given away
	Mistake  bool               `json:"mistake"`         // another move has a strictly better result (win > draw > loss)
	Seconds  float64            `json:"seconds"`         // time the player took
}

// OthelloBenchResult sums up a benchmark on one Othello set.
type OthelloBenchResult struct {
	Set, Bucket string
	Positions   int
	Mistakes    int           // moves of a worse result than the best move's
	Critical    int           // positions where some legal move is a mistake
	DiscLoss    int           // sum over positions of best score - chosen score
	Perfect     int           // moves that keep the best score exactly
	Time        time.Duration // total time the player spent choosing
}

// MistakeRate is the fraction of positions where the player chose a move of
// a worse result (win, draw, loss) than the best.
func (r OthelloBenchResult) MistakeRate() float64 {
	if r.Positions == 0 {
		return 0
	}
	return float64(r.Mistakes) / float64(r.Positions)
}

// CriticalMistakeRate is the fraction of mistakes among the positions where
// one was possible (not every move of the same result).
func (r OthelloBenchResult) CriticalMistakeRate() float64 {
	if r.Critical == 0 {
		return 0
	}
	return float64(r.Mistakes) / float64(r.Critical)
}

// MeanDiscLoss is the mean of best score - chosen score, in discs.
func (r OthelloBenchResult) MeanDiscLoss() float64 {
	if r.Positions == 0 {
		return 0
	}
	return float64(r.DiscLoss) / float64(r.Positions)
}

// TimePerMove is the player's mean time per position.
func (r OthelloBenchResult) TimePerMove() time.Duration {
	if r.Positions == 0 {
		return 0
	}
	return r.Time / time.Duration(r.Positions)
}

// OthelloBenchConfig configures BenchOthello.
type OthelloBenchConfig struct {
	Seed     uint64                    // seeds the player of position k with (Seed, k)
	Record   func(OthelloRecord) error // if set, receives every verdict in order
	Progress func(done, total int)     // if set, called after each position
}

// IsOthelloMistake reports whether a move scoring score is a mistake where
// the best move scores best: its result (the sign of the final disc margin:
// win, draw or loss) is strictly worse.
func IsOthelloMistake(best, score int) bool {
	return outcomeClass(score) < outcomeClass(best)
}

// BenchOthello asks a fresh player from f for a move in every position of
// set and judges it by the set's labels.
func BenchOthello(ctx context.Context, cfg OthelloBenchConfig, f *players.Factory, set *OthelloSet) (OthelloBenchResult, error) {
	res := OthelloBenchResult{Set: set.Name, Bucket: set.Bucket()}
	g := set.Game
	for k, pos := range set.Positions {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("arena: bench stopped: %w", err)
		}
		p, err := f.New(match.GameRNG(cfg.Seed, k, 0))
		if err != nil {
			return res, fmt.Errorf("arena: bench: %w", err)
		}
		start := time.Now()
		a, err := p.ChooseAction(ctx, pos.State.Clone())
		el := time.Since(start)
		if err != nil {
			return res, fmt.Errorf("arena: bench: %s:%d (%s): player %s: %w", set.Name, pos.Line, pos.Moves, f.Name, err)
		}
		score, ok := pos.Score(a)
		if !ok || !pos.State.IsLegal(a) {
			return res, fmt.Errorf("arena: bench: %s:%d (%s): player %s chose illegal move %s", set.Name, pos.Line, pos.Moves, f.Name, g.FormatAction(a))
		}
		best := pos.Best()
		rec := OthelloRecord{
			Set: set.Name, Bucket: set.Bucket(), Position: pos.Moves, Empties: pos.Empties(),
			Move: g.FormatAction(a), Best: best, Score: score, Loss: best - score,
			Mistake: IsOthelloMistake(best, score), Seconds: el.Seconds(),
		}
		for _, l := range pos.Labels {
			rec.Scores = append(rec.Scores, OthelloMoveScore{Move: g.FormatAction(l.Action), Score: l.Score})
		}
		if v, ok := p.(players.Valuer); ok {
			x := v.Value()
			rec.Value = &x
		}
		res.Positions++
		res.Time += el
		res.DiscLoss += rec.Loss
		if rec.Mistake {
			res.Mistakes++
		}
		if rec.Loss == 0 {
			res.Perfect++
		}
		for _, l := range pos.Labels {
			if IsOthelloMistake(best, l.Score) {
				res.Critical++
				break
			}
		}
		if cfg.Record != nil {
			if err := cfg.Record(rec); err != nil {
				return res, fmt.Errorf("arena: bench: writing %s:%d: %w", set.Name, pos.Line, err)
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(k+1, len(set.Positions))
		}
	}
	return res, nil
}
