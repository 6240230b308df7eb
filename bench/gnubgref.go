package bench

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"tabula/elo"
	"tabula/games"
	"tabula/games/backgammon"
	"tabula/internal/refdata"
	"tabula/match"
)

// The gnubg referee: GNU Backgammon rates every turn of our players by the
// equity it loses against gnubg's best move, the error rate backgammon
// players read. gnubg runs as "gnubg -t -q -p gnubgref.py" on batches of
// turns written to a file (position ID, dice, position reached).

//go:embed gnubgref.py
var gnubgScript []byte

// BackgammonTurn is one turn of a recorded backgammon game: the position
// before it with the mover on roll, the dice, and the position the mover's
// decisions reached (both halves of doubles), all in gnubg's terms.
type BackgammonTurn struct {
	Game   int    `json:"game"`   // the record's index
	Turn   int    `json:"turn"`   // turns played before this one in the game
	Player string `json:"player"` // the mover's name
	Seat   int    `json:"seat"`   // 0 first mover, 1 second
	Before string `json:"before"` // gnubg position ID, the mover on roll
	Dice   [2]int `json:"dice"`   // higher first
	After  string `json:"after"`  // gnubg position ID reached, the mover's view
	Move   string `json:"move"`   // in gnubg notation ("" for a pass)
}

// BackgammonTurns lists the turns of a recorded backgammon game (a record of
// Match). The first randomPlies actions (chance included: MatchConfig's
// RandomPlies) were random, not the players': turns that began there are
// left out.
func BackgammonTurns(g games.Game, rec match.GameRecord, randomPlies int) ([]BackgammonTurn, error) {
	bg, ok := g.(*backgammon.Game)
	if !ok {
		return nil, fmt.Errorf("arena: gnubg rates backgammon, not %s", g.Name())
	}
	acts, err := bg.ParseActions(rec.Moves)
	if err != nil {
		return nil, fmt.Errorf("arena: game %d: %w", rec.Index, err)
	}
	s := bg.NewInitialState().(*backgammon.State)
	var out []BackgammonTurn
	var cur *BackgammonTurn
	var parts []string
	finish := func() {
		if cur == nil {
			return
		}
		q := s.Position()
		cur.After = backgammon.PositionID(&q, cur.Seat)
		cur.Move = strings.Join(parts, " ")
		out = append(out, *cur)
		cur, parts = nil, parts[:0]
	}
	turns := 0
	for i, a := range acts {
		if !s.IsLegal(a) {
			return nil, fmt.Errorf("arena: game %d: action %d (#%d) is not legal", rec.Index, i+1, a)
		}
		if s.IsChanceNode() {
			finish()
			s.ApplyAction(a)
			if i >= randomPlies {
				seat := s.NextPlayer()
				h, l := s.Dice()
				pre := s.Position()
				cur = &BackgammonTurn{Game: rec.Index, Turn: turns, Player: rec.Players[seat], Seat: seat,
					Before: backgammon.PositionID(&pre, seat), Dice: [2]int{h, l}}
			}
			turns++
			continue
		}
		if cur != nil {
			if mv := s.FormatMove(a); mv != "" && mv != "pass" {
				parts = append(parts, mv)
			}
		}
		s.ApplyAction(a)
	}
	if cur != nil && !s.IsTerminal() && !s.IsChanceNode() {
		return nil, fmt.Errorf("arena: game %d ends in the middle of a turn", rec.Index)
	}
	finish()
	return out, nil
}

// GnubgConfig configures RateWithGnubg.
type GnubgConfig struct {
	// Program is gnubg's path; "" looks for "gnubg" on PATH and in
	// /usr/games.
	Program string
	// Plies is gnubg's evaluation depth: 0 (its neural net on every legal
	// move) to 3; deeper, the moves within 0.16 of the best at 0 plies (at
	// most 8) and the move played are evaluated at that depth, as gnubg's
	// own analysis filters them.
	Plies int
	// Batch is the number of turns one gnubg process rates (0: 500).
	Batch int
	// Parallel is the number of gnubg processes at once (0: 1).
	Parallel int
	// Progress, if set, is called after each batch.
	Progress func(done, total int)
}

// TurnRating is gnubg's verdict on one turn. Equities are cubeless money
// equities of the mover after its move (+1 a single win, +2 a gammon, ...),
// as gnubg's hint shows them.
type TurnRating struct {
	BackgammonTurn
	Moves      int     `json:"moves"`       // legal moves (0: none; 1: forced)
	Best       string  `json:"best"`        // gnubg's choice
	BestEquity float64 `json:"best_equity"` // of gnubg's choice
	Equity     float64 `json:"equity"`      // of the move played
	Loss       float64 `json:"loss"`        // BestEquity - Equity
	BestWin    float64 `json:"best_win"`    // gnubg's P(win) after its choice
	Win        float64 `json:"win"`         // after the move played
	Plies      int     `json:"plies"`
}

// Unforced reports whether the turn had a choice (two or more legal moves).
func (r TurnRating) Unforced() bool { return r.Moves > 1 }

// Validate checks the configuration.
func (c GnubgConfig) Validate() error {
	switch {
	case c.Plies < 0 || c.Plies > 3:
		return fmt.Errorf("arena: gnubg plies = %d, want 0 to 3", c.Plies)
	case c.Batch < 0:
		return fmt.Errorf("arena: gnubg batch = %d, want >= 0 (0: 500)", c.Batch)
	case c.Parallel < 0:
		return fmt.Errorf("arena: gnubg parallel = %d, want >= 0 (0: 1)", c.Parallel)
	}
	return nil
}

// RateWithGnubg has gnubg rate every turn, in order. It is an error when
// gnubg cannot be run, or when a turn reaches a position that is none of
// gnubg's legal moves (the rules disagree).
func RateWithGnubg(ctx context.Context, cfg GnubgConfig, turns []BackgammonTurn) ([]TurnRating, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	prog := cfg.Program
	if prog == "" {
		p, err := refdata.LookProgram("gnubg")
		if err != nil {
			return nil, fmt.Errorf("arena: the gnubg referee needs GNU Backgammon (apt-get install gnubg): %w", err)
		}
		prog = p
	}
	batch := cfg.Batch
	if batch == 0 {
		batch = 500
	}
	par := max(1, cfg.Parallel)
	if err := backgammon.EnsureGnubgHome(); err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	dir, err := os.MkdirTemp("", "tabula-gnubg-")
	if err != nil {
		return nil, fmt.Errorf("arena: gnubg referee: %w", err)
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "gnubgref.py")
	if err := os.WriteFile(script, gnubgScript, 0o644); err != nil {
		return nil, fmt.Errorf("arena: gnubg referee: %w", err)
	}
	out := make([]TurnRating, len(turns))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	sem := make(chan struct{}, par)
	for start := 0; start < len(turns); start += batch {
		end := min(start+batch, len(turns))
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(start, end int) {
			defer wg.Done()
			defer func() { <-sem }()
			err := rateBatch(ctx, prog, script, filepath.Join(dir, strconv.Itoa(start)), cfg.Plies, turns[start:end], out[start:end])
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				cancel()
				return
			}
			done += end - start
			if cfg.Progress != nil {
				cfg.Progress(done, len(turns))
			}
		}(start, end)
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = fmt.Errorf("arena: gnubg referee stopped: %w", ctx.Err())
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// rateBatch runs one gnubg process over turns, filling out.
func rateBatch(ctx context.Context, prog, script, stem string, plies int, turns []BackgammonTurn, out []TurnRating) error {
	var in bytes.Buffer
	for i, t := range turns {
		fmt.Fprintf(&in, "%d %s %d %d %s\n", i, t.Before, t.Dice[0], t.Dice[1], t.After)
	}
	inPath, outPath := stem+".in", stem+".out"
	if err := os.WriteFile(inPath, in.Bytes(), 0o644); err != nil {
		return fmt.Errorf("arena: gnubg referee: %w", err)
	}
	cmd := exec.CommandContext(ctx, prog, "-t", "-q", "-p", script)
	cmd.Stdin = strings.NewReader("")
	cmd.Env = append(os.Environ(), "TABULA_GNUBG_IN="+inPath, "TABULA_GNUBG_OUT="+outPath, "TABULA_GNUBG_PLIES="+strconv.Itoa(plies))
	if msg, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("arena: gnubg referee stopped: %w", ctx.Err())
		}
		return fmt.Errorf("arena: gnubg %s: %w\n%s", prog, err, tail(msg, 2000))
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		return fmt.Errorf("arena: gnubg wrote no answers: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 9 {
			return fmt.Errorf("arena: gnubg answer %q: %d fields, want 9", line, len(f))
		}
		k, err := strconv.Atoi(f[0])
		if err != nil || k != n || k >= len(turns) {
			return fmt.Errorf("arena: gnubg answer %q: out of order (want turn %d)", line, n)
		}
		t := turns[k]
		if f[2] != "1" {
			return fmt.Errorf("arena: game %d, turn %d: %s on %s with %d-%d reaches %s, which is none of gnubg's legal moves",
				t.Game, t.Turn, t.Player, t.Before, t.Dice[0], t.Dice[1], t.After)
		}
		r := TurnRating{BackgammonTurn: t, Best: f[7]}
		var errs []error
		num := func(s string) float64 {
			v, err := strconv.ParseFloat(s, 64)
			errs = append(errs, err)
			return v
		}
		r.Moves, err = strconv.Atoi(f[1])
		errs = append(errs, err)
		r.BestEquity, r.Equity, r.BestWin, r.Win = num(f[3]), num(f[4]), num(f[5]), num(f[6])
		r.Plies, err = strconv.Atoi(f[8])
		errs = append(errs, err)
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("arena: gnubg answer %q: %w", line, err)
		}
		if r.Best == "-" {
			r.Best = ""
		}
		r.Loss = r.BestEquity - r.Equity
		out[k] = r
		n++
	}
	if n != len(turns) {
		return fmt.Errorf("arena: gnubg answered %d of %d turns", n, len(turns))
	}
	return nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// GnubgSummary is one player's error rate: gnubg's equity loss over its
// turns.
type GnubgSummary struct {
	Player    string
	Turns     int     // all turns rated
	Unforced  int     // turns with a choice
	Loss      float64 // summed over all turns (forced ones lose 0)
	Best      int     // unforced turns where the move was gnubg's choice
	Bad       int     // unforced turns losing 0.06 or more (gnubg's "bad" threshold)
	WinLoss   float64 // summed loss of winning chance
	half95    float64 // of the mean loss per unforced turn
	haveError bool
}

// PerUnforced is the mean equity lost per unforced turn (gnubg's error
// rate, in equity; x1000 for millipoints).
func (s GnubgSummary) PerUnforced() float64 { return s.Loss / float64(max(1, s.Unforced)) }

// PerTurn is the mean equity lost per turn, forced ones included.
func (s GnubgSummary) PerTurn() float64 { return s.Loss / float64(max(1, s.Turns)) }

// Interval95 is the half width of the 95% interval of PerUnforced, from the
// spread between games (turns of one game are not independent), or NaN with
// fewer than two games.
func (s GnubgSummary) Interval95() float64 {
	if !s.haveError {
		return math.NaN()
	}
	return s.half95
}

// SummariseGnubg sums the ratings per player, in the order the players first
// appear.
func SummariseGnubg(rs []TurnRating) []GnubgSummary {
	var out []GnubgSummary
	idx := map[string]int{}
	type gameSum struct{ loss, n float64 }
	perGame := map[string]map[int]*gameSum{}
	for _, r := range rs {
		i, ok := idx[r.Player]
		if !ok {
			i = len(out)
			idx[r.Player] = i
			out = append(out, GnubgSummary{Player: r.Player})
			perGame[r.Player] = map[int]*gameSum{}
		}
		s := &out[i]
		s.Turns++
		s.Loss += r.Loss
		s.WinLoss += r.BestWin - r.Win
		if !r.Unforced() {
			continue
		}
		s.Unforced++
		if r.Loss <= 1e-9 {
			s.Best++
		}
		if r.Loss >= 0.06 {
			s.Bad++
		}
		gs := perGame[r.Player][r.Game]
		if gs == nil {
			gs = &gameSum{}
			perGame[r.Player][r.Game] = gs
		}
		gs.loss += r.Loss
		gs.n++
	}
	// The ratio estimator's variance with games as clusters.
	for i := range out {
		s := &out[i]
		gs := perGame[s.Player]
		g := float64(len(gs))
		if len(gs) < 2 || s.Unforced == 0 {
			continue
		}
		mean := s.PerUnforced()
		nbar := float64(s.Unforced) / g
		var ss float64
		for _, x := range gs {
			d := x.loss - mean*x.n
			ss += d * d
		}
		s.half95 = elo.Z95 * math.Sqrt(ss/(g*(g-1))) / nbar
		s.haveError = true
	}
	return out
}
