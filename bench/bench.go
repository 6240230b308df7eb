// Package bench measures players (package players) against ground truth:
// mistake rates on Connect Four positions with the solver's verdicts (Bench,
// Verdicts, Solve), on Othello position sets labelled by the exact endgame
// solver (BenchOthello, ReadOthelloSet, GenerateOthelloSets), and per-turn
// equity loss at backgammon as rated by GNU Backgammon (RateWithGnubg, the
// gnubg referee).
package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"tabula/elo"
	"tabula/match"
	"tabula/players"
	"tabula/search/c4solver"
)

// Position is one line of a Pons benchmark file (its score, if any, is
// not used by the bench).
type Position = c4solver.Position

// ReadPositions reads Pons-format lines ("<moves> [score]"), skipping blank
// lines. The error names the line number.
func ReadPositions(r io.Reader, name string) ([]Position, error) {
	return c4solver.ReadSet(r, name)
}

// BenchRecord is the verdict on one position, written as a JSON line.
type BenchRecord struct {
	Position string   `json:"position"`         // the moves of the position
	Move     int      `json:"move"`             // column chosen, 1-7
	Value    *float64 `json:"value,omitempty"`  // the player's value, if it reports one
	Outcomes [7]int   `json:"outcomes"`         // the solver's result of each column: 1 win, 0 draw, -1 loss, -1000 full
	Scores   *[7]int  `json:"scores,omitempty"` // exact scores (Pons' convention), with BenchConfig.ExactScores
	Mistake  bool     `json:"mistake"`          // another column has a strictly better outcome
	Seconds  float64  `json:"seconds"`          // time the player took
}

// BenchResult sums up a benchmark.
type BenchResult struct {
	Positions int
	Mistakes  int
	// Open counts the positions that admit a mistake: some legal column
	// has a worse outcome than the best (in about half of Pons' positions
	// every column has the same outcome, and no move can be a mistake).
	Open int
	Time time.Duration // total time the player spent choosing
}

// MistakeRate is the fraction of positions where the player erred.
func (r BenchResult) MistakeRate() float64 {
	if r.Positions == 0 {
		return 0
	}
	return float64(r.Mistakes) / float64(r.Positions)
}

// TimePerMove is the player's mean time per position.
func (r BenchResult) TimePerMove() time.Duration {
	if r.Positions == 0 {
		return 0
	}
	return r.Time / time.Duration(r.Positions)
}

// BenchConfig configures Bench.
type BenchConfig struct {
	SolverTableLog2 int                     // the reference solver's table (0: c4solver.DefaultTableLog2)
	ExactScores     bool                    // also record exact scores of every column (much slower on early positions)
	Verdicts        *Verdicts               // the positions' outcomes, if already known (see LoadOrSolveVerdicts)
	Seed            uint64                  // seeds the player of position k with (Seed, k)
	Record          func(BenchRecord) error // if set, receives every verdict in order
	Progress        func(done, total int)   // if set, called after each position
}

// outcomeClass maps a Pons score to loss (-1), draw (0) or win (+1).
func outcomeClass(score int) int {
	switch {
	case score > 0:
		return 1
	case score < 0:
		return -1
	}
	return 0
}

// IsMistake reports whether playing column move (0-based) is a mistake given
// the scores of every column (exact scores or outcomes; c4solver.Invalid for
// a full column): another legal column has a strictly better win/draw/loss
// outcome.
func IsMistake(scores [7]int, move int) bool {
	return outcomeClass(scores[move]) < BestOutcome(scores)
}

// AdmitsMistake reports whether some legal column of scores has a worse
// win/draw/loss outcome than the best one.
func AdmitsMistake(scores [7]int) bool {
	best := BestOutcome(scores)
	for _, s := range scores {
		if s != c4solver.Invalid && outcomeClass(s) < best {
			return true
		}
	}
	return false
}

// MistakeInterval is the Wilson 95% interval of the mistake rate.
func (r BenchResult) MistakeInterval() (lo, hi float64) {
	return elo.Wilson(r.Mistakes, r.Positions, elo.Z95)
}

// BestOutcome is the best win/draw/loss outcome (1, 0, -1) among the legal
// columns of scores (exact scores or outcomes; c4solver.Invalid for a full
// column), -2 when every column is full.
func BestOutcome(scores [7]int) int {
	best := -2
	for _, s := range scores {
		if s != c4solver.Invalid {
			best = max(best, outcomeClass(s))
		}
	}
	return best
}

// Bench asks a fresh player from f for a move in every non-terminal position
// and judges it with the solver's weak solve (c4solver.OutcomeMoves), or with
// cfg.Verdicts when they were computed for these positions. Early positions
// (Pons' L1 sets) can take the solver seconds each.
func Bench(ctx context.Context, cfg BenchConfig, f *players.Factory, positions []Position) (BenchResult, error) {
	if cfg.Verdicts != nil && !cfg.Verdicts.matches(positions) {
		return BenchResult{}, errors.New("arena: bench: the verdicts given were computed for other positions")
	}
	bits := cfg.SolverTableLog2
	if bits == 0 {
		bits = c4solver.DefaultTableLog2
	}
	var sv *c4solver.Solver
	if cfg.Verdicts == nil || cfg.ExactScores {
		var err error
		if sv, err = c4solver.New(bits); err != nil {
			return BenchResult{}, fmt.Errorf("arena: bench: %w", err)
		}
	}
	var res BenchResult
	for k, pos := range positions {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("arena: bench stopped: %w", err)
		}
		if pos.State.IsTerminal() {
			return res, fmt.Errorf("arena: bench: line %d (%s): the game is over, no move to judge", pos.Line, pos.Moves)
		}
		p, err := f.New(match.GameRNG(cfg.Seed, k, 0))
		if err != nil {
			return res, fmt.Errorf("arena: bench: %w", err)
		}
		start := time.Now()
		a, err := p.ChooseAction(ctx, pos.State.Clone())
		el := time.Since(start)
		if err != nil {
			return res, fmt.Errorf("arena: bench: line %d (%s): player %s: %w", pos.Line, pos.Moves, f.Name, err)
		}
		if !pos.State.IsLegal(a) {
			return res, fmt.Errorf("arena: bench: line %d (%s): player %s chose illegal column %d", pos.Line, pos.Moves, f.Name, a+1)
		}
		var outcomes [7]int
		if cfg.Verdicts != nil {
			outcomes = cfg.Verdicts.Outcomes[k]
		} else {
			outcomes = sv.OutcomeMoves(pos.State)
		}
		rec := BenchRecord{Position: pos.Moves, Move: a + 1, Outcomes: outcomes, Mistake: IsMistake(outcomes, a), Seconds: el.Seconds()}
		if cfg.ExactScores {
			scores := sv.ScoreMoves(pos.State)
			rec.Scores = &scores
		}
		if v, ok := p.(players.Valuer); ok {
			x := v.Value()
			rec.Value = &x
		}
		res.Positions++
		res.Time += el
		if AdmitsMistake(outcomes) {
			res.Open++
		}
		if rec.Mistake {
			res.Mistakes++
		}
		if cfg.Record != nil {
			if err := cfg.Record(rec); err != nil {
				return res, fmt.Errorf("arena: bench: writing line %d: %w", pos.Line, err)
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(k+1, len(positions))
		}
	}
	return res, nil
}

// Solve reads Pons-format positions from r (a trailing score is ignored,
// blank lines are skipped) and writes "<moves> <score>" per line in Pons'
// convention, or with all "<moves> s1 ... s7", the score of each column
// (-1000 for a full column). A finished game (won, or a full board) has no
// move to score and is an error either way, and so is input without a
// position. The error names the line.
func Solve(ctx context.Context, r io.Reader, name string, w io.Writer, all bool, sv *c4solver.Solver) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	bw := bufio.NewWriter(w)
	solved := 0
	for n := 1; sc.Scan(); n++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("stopped at %s:%d: %w", name, n, err)
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		st, _, _, err := c4solver.ParsePosition(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		moves := strings.Fields(line)[0]
		if st.IsTerminal() {
			how := "the board is full (a draw)"
			if st.Returns()[st.CurrentPlayer()] < 0 {
				how = "the player who moved last has won"
			}
			return fmt.Errorf("%s:%d: position %s: the game is over (%s): no move to score", name, n, moves, how)
		}
		bw.WriteString(moves)
		if all {
			for _, s := range sv.ScoreMoves(st) {
				bw.WriteByte(' ')
				bw.WriteString(strconv.Itoa(s))
			}
		} else {
			bw.WriteByte(' ')
			bw.WriteString(strconv.Itoa(sv.Solve(st)))
		}
		if err := bw.WriteByte('\n'); err != nil {
			return fmt.Errorf("writing: %w", err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("writing: %w", err)
		}
		solved++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if solved == 0 {
		return fmt.Errorf("%s: no positions to solve", name)
	}
	return bw.Flush()
}
