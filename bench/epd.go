package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"tabula/elo"
	"tabula/games/chess"
	"tabula/internal/cputime"
	"tabula/players"
)

// EPDRecord is the verdict on one position of an EPD test suite, written as
// a JSON line. Moves are in SAN.
type EPDRecord struct {
	ID      string   `json:"id"`
	FEN     string   `json:"fen"`
	Best    []string `json:"bm,omitempty"`
	Avoid   []string `json:"am,omitempty"`
	Move    string   `json:"move"`            // the move chosen
	Solved  bool     `json:"solved"`          // chess.EPD.Solved of the move
	Depth   int      `json:"depth,omitempty"` // the search's completed depth, where the player reports it
	Seconds float64  `json:"seconds"`         // time the player took
}

// EPDResult sums up a run over an EPD suite.
type EPDResult struct {
	Positions, Solved int
	Time              time.Duration // wall time the player spent choosing
	CPU               time.Duration // process CPU time over the run
	Failed            []EPDRecord   // the positions not solved, in suite order
}

// Interval95 returns the Wilson 95% interval of the solved fraction.
func (r EPDResult) Interval95() (lo, hi float64) {
	return elo.Wilson(r.Solved, r.Positions, 1.96)
}

// RunEPD asks a fresh player of f for a move in each record's position, one
// position at a time, and scores it with chess.EPD.Solved. each, when set,
// is called after every position. The positions are played in a chess game
// without history (no repetitions before them).
func RunEPD(ctx context.Context, f *players.Factory, recs []chess.EPD, seed uint64, each func(EPDRecord)) (EPDResult, error) {
	var res EPDResult
	cpu0 := cputime.Process()
	for i := range recs {
		e := &recs[i]
		p, err := f.New(rand.New(rand.NewPCG(seed, uint64(i))))
		if err != nil {
			return res, err
		}
		st := chess.Game{}.NewStateFrom(e.Pos)
		start := time.Now()
		a, err := p.ChooseAction(ctx, st)
		took := time.Since(start)
		if c, ok := p.(interface{ Close() error }); ok {
			_ = c.Close()
		}
		if err != nil {
			return res, fmt.Errorf("%s: %w", e.ID, err)
		}
		if !st.IsLegal(a) {
			return res, fmt.Errorf("%s: player %s chose illegal action %d", e.ID, f.Name, a)
		}
		m := chess.MoveOf(a)
		rec := EPDRecord{ID: e.ID, FEN: e.Pos.FEN(), Move: e.Pos.SAN(m), Solved: e.Solved(m), Seconds: took.Seconds()}
		for _, b := range e.Best {
			rec.Best = append(rec.Best, e.Pos.SAN(b))
		}
		for _, b := range e.Avoid {
			rec.Avoid = append(rec.Avoid, e.Pos.SAN(b))
		}
		if sr, ok := p.(players.SearchReporter); ok {
			rec.Depth = sr.LastSearch().Depth
		}
		res.Positions++
		res.Time += took
		if rec.Solved {
			res.Solved++
		} else {
			res.Failed = append(res.Failed, rec)
		}
		if each != nil {
			each(rec)
		}
		if ctx.Err() != nil {
			break
		}
	}
	res.CPU = cputime.Process() - cpu0
	return res, nil
}
