// Package match plays players (package players) against each other: Match
// plays every pair of them with colours alternated and, for games of
// chance, mirrored dice; MatchResult holds the records, win/draw/loss
// tables and Elo ratings (package elo); Tally rebuilds a result from saved
// game records.
package match

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"tabula/elo"
	"tabula/games"
	"tabula/players"
)

// MatchConfig configures Match.
type MatchConfig struct {
	// Games is the number of games every pair of players plays; colours
	// alternate, the earlier player of the pair moving first in even games.
	Games int
	// Parallel is the number of games played at once; 0 means one per core.
	Parallel int
	// Seed seeds every game: game k draws its players' random sources from
	// (Seed, k), so a match replays exactly whatever Parallel is, for
	// players whose choices depend only on their random source (not on time).
	Seed uint64
	// RandomPlies is the number of opening plies played uniformly at random
	// (from the game's seed) before the players take over, so that
	// deterministic players do not repeat one game. No random ply lets the
	// opponent end the game at once (a pass in Go) where another is legal.
	RandomPlies int
	// Openings, if set, are move sequences from the initial state that
	// games start from, before any random plies: the games 2m and 2m+1 of
	// each pairing play opening m (modulo the number of openings), one with
	// each colour. ReadOpenings reads them from a file.
	Openings [][]int
	// Record, if set, receives every game in game order. A match that stops
	// early records every game it counted, in order, but with gaps where
	// games were unfinished.
	Record func(GameRecord) error
	// Values asks for GameRecord.Values: each move's value as the player
	// who chose it reported it (players.Valuer).
	Values bool
	// Progress, if set, is called after each finished game.
	Progress func(done, total int)
	// Played holds games of this match already played, as Record received
	// them (a match resumed from its records: "arena match -resume"). Each
	// is checked against the match before anything is played (see
	// CheckPlayed), counted in the result, and neither played nor recorded
	// again.
	Played []GameRecord
}

// GameRecord is one played game.
type GameRecord struct {
	Index   int        `json:"index"`
	Game    string     `json:"game"`
	Players [2]string  `json:"players"` // first mover first
	Seats   [2]int     `json:"seats"`   // index in the match's player list of each seat
	Moves   string     `json:"moves"`   // in the game's notation
	Result  [2]float64 `json:"result"`  // returns of the first and second mover
	Winner  int        `json:"winner"`  // 0 or 1 (seat), -1 for a draw
	// Points is what the win was worth in a game that scores more than
	// win or loss (backgammon: 1 single, 2 gammon, 3 backgammon; see
	// Pointer); 0 for other games, draws and forfeits.
	Points int `json:"points,omitempty"`
	// OpeningPlies is how many plies at the start were not the players'
	// choice: the opening from MatchConfig.Openings and the random plies.
	// The two games of a mirrored pair (2m and 2m+1) share them.
	OpeningPlies int `json:"opening_plies,omitempty"`
	// Values, when MatchConfig.Values is set, holds one value per move:
	// the mover's value of its choice as it reported it (players.Valuer,
	// in the player's own units), NaN for moves of players that report
	// none, random opening plies and dice. Not part of the JSON form.
	Values []float64 `json:"-"`
	// Score is what each seat scored in the game's own unit (chips in
	// poker, tricks in whist; see Scorer), first mover first; nil for
	// other games and forfeits.
	Score *[2]float64 `json:"score,omitempty"`
	// Forfeit is set when the game ended because a player failed (an
	// outside engine that crashed, hung or played an illegal move); the
	// other player is the winner.
	Forfeit *ForfeitRecord `json:"forfeit,omitempty"`
	// Restarts lists the outside engines that died during the game and
	// were started again (players.Restarter), in the order they died.
	Restarts []RestartRecord `json:"restarts,omitempty"`
	// Resigned is set when the game ended by the loser's resignation (an
	// outside engine that answered "resign"); Winner is the other side.
	Resigned bool `json:"resigned,omitempty"`
	// Think is how long each side took over its moves; nil in records
	// written before it was recorded.
	Think *Think `json:"think,omitempty"`
}

// Think is the time players took to choose their moves: for each side
// (first mover first, in a GameRecord) or player (in a MatchResult), the
// wall-clock seconds spent in ChooseAction and the number of moves chosen
// (random opening plies and dice not counted). Wall time measures compute
// time only while the match's games do not outnumber the free cores.
type Think struct {
	Seconds [2]float64 `json:"seconds"`
	Moves   [2]int     `json:"moves"`
}

// Pointer is implemented by the states of games whose wins are worth
// different amounts (backgammon's gammons and backgammons): Points returns
// the winner and what the win is worth, or -1, 0 before the end.
type Pointer interface {
	Points() (winner, points int)
}

// Scorer is implemented by the states of games that score each game
// (a hand, a deal) in a unit of their own, where Returns only scales it and
// who won says little (a poker hand won by a fold may be worth one chip):
// Score gives both players' scores at the end (they sum to zero) and
// ScoreUnit names the unit ("chips", "tricks"). A match of such a game
// reports the mean score a game with its interval.
type Scorer interface {
	Score() [2]float64
	ScoreUnit() string
}

// ScoreUnit returns the unit of g's scores and true when g's states are
// Scorers.
func ScoreUnit(g games.Game) (string, bool) {
	sc, ok := g.NewInitialState().(Scorer)
	if !ok {
		return "", false
	}
	return sc.ScoreUnit(), true
}

// ScoreStats summarises a player's scores against one opponent over the
// mirrored pairs of a game of chance (the same deal or dice, seats
// swapped): a pair's value is the player's mean score over its two games,
// in the game's unit. As with PairStats the pairs are independent and the
// luck of the deal cancels within a pair, so the interval comes from the
// spread of the pair values (the paired differences).
type ScoreStats struct {
	N          int     // pairs with both games scored
	Sum, SumSq float64 // of the pair values
}

// Add counts a pair whose value is v.
func (p *ScoreStats) Add(v float64) {
	p.N++
	p.Sum += v
	p.SumSq += v * v
}

// Interval returns the mean score a game and its 95% interval (normal
// approximation over the pairs; lo = hi = mean with fewer than 2 pairs).
func (p ScoreStats) Interval() (mean, lo, hi float64) {
	if p.N == 0 {
		return 0, 0, 0
	}
	mean, h := pairInterval(p.N, p.Sum, p.SumSq)
	return mean, mean - h, mean + h
}

// pairInterval returns the mean of n pair values with sum sum and sum of
// squares sumSq, and the half-width of its 95% interval (normal
// approximation; 0 with fewer than 2 pairs).
func pairInterval(n int, sum, sumSq float64) (mean, half float64) {
	fn := float64(n)
	mean = sum / fn
	if n < 2 {
		return mean, 0
	}
	v := max(0, (sumSq-fn*mean*mean)/(fn-1))
	return mean, elo.Z95 * math.Sqrt(v/fn)
}

// ForfeitRecord says who forfeited a game and why.
type ForfeitRecord struct {
	Side   int    `json:"side"` // 0 first mover, 1 second
	Player string `json:"player"`
	Reason string `json:"reason"`
	Stderr string `json:"stderr,omitempty"` // the engine's last stderr lines
}

// RestartRecord says which outside engine died during a game, at which
// move, and why; the player started it again and the game went on.
type RestartRecord struct {
	Side   int    `json:"side"` // 0 first mover, 1 second
	Player string `json:"player"`
	Move   int    `json:"move"` // the move (from 1) it was asked for
	Reason string `json:"reason"`
	Stderr string `json:"stderr,omitempty"` // the dead engine's last stderr lines
}

// WDL counts a player's wins, draws and losses against one opponent.
type WDL struct{ Wins, Draws, Losses int }

// Games is the number of games counted.
func (w WDL) Games() int { return w.Wins + w.Draws + w.Losses }

// Score is the fraction of points scored (0.5 with no games).
func (w WDL) Score() float64 { return elo.Score(w.Wins, w.Draws, w.Losses) }

// WinPoints counts a player's wins against one opponent by what they were
// worth, in a game that scores gammons (see Pointer).
type WinPoints struct{ Single, Gammon, Backgammon int }

// Points is the points won in all (1, 2 and 3 a win).
func (w WinPoints) Points() int { return w.Single + 2*w.Gammon + 3*w.Backgammon }

// PairStats summarises the mirrored pairs of games between two players: the
// two games of a pair share their dice (a game of chance) and their opening
// (MatchConfig.Openings and the random plies) with the colours swapped, and
// a pair's score is the mean of its two games' scores (0, 0.25, 0.5, 0.75
// or 1). The pairs are independent; the games of a pair are not (the dice
// or the opening that favour one seat favour it in both), so the spread of
// the pair scores gives an honest and tighter interval than counting the
// games as independent.
type PairStats struct {
	N          int     // pairs with both games played
	Sum, SumSq float64 // of the pair scores
}

// Add counts a pair whose score is s.
func (p *PairStats) Add(s float64) {
	p.N++
	p.Sum += s
	p.SumSq += s * s
}

// Interval returns the mean pair score and its 95% interval (normal
// approximation over the pairs; lo = hi = mean with fewer than 2 pairs).
func (p PairStats) Interval() (mean, lo, hi float64) {
	if p.N == 0 {
		return 0.5, 0.5, 0.5
	}
	mean, h := pairInterval(p.N, p.Sum, p.SumSq)
	return mean, max(0, mean-h), min(1, mean+h)
}

// MatchResult holds the results of a match.
type MatchResult struct {
	Players []string
	// WDL[i][j] is player i's record against player j.
	WDL [][]WDL
	// WinPoints[i][j] counts player i's wins against player j by what they
	// were worth; nil unless the game scores gammons (Pointer).
	WinPoints [][]WinPoints
	// Pairs[i][j] (i < j) summarises the mirrored pairs of i against j,
	// scored for i; nil unless the games are paired (chance, openings or
	// random plies).
	Pairs [][]PairStats
	// Scores[i][j] (i < j) summarises i's scores in the game's unit over
	// the mirrored pairs against j (pairs with a forfeit left out); nil
	// unless the game has chance nodes and its states are Scorers.
	Scores [][]ScoreStats
	// ScoreUnit names the unit of Scores.
	ScoreUnit string
	// PointPairs[i][j] (i < j) summarises i's net points a game (won
	// minus lost: 1, 2 or 3 a game) over the mirrored pairs against j,
	// pairs with a resigned or forfeited game left out (their points are
	// unknown); nil unless the game has chance nodes and scores gammons
	// (Pointer).
	PointPairs [][]ScoreStats
	// Forfeits holds the games that ended by a player's failure, in the
	// order they finished.
	Forfeits []GameRecord
	// Resignations holds the games that ended by a resignation, in the
	// order they finished.
	Resignations []GameRecord
	// Restarted holds the games in which an outside engine died and was
	// started again (GameRecord.Restarts), in the order they finished.
	Restarted []GameRecord
	// ThinkSeconds[i] and ThinkMoves[i] add up player i's Think over the
	// games that recorded it.
	ThinkSeconds []float64
	ThinkMoves   []int
}

// SecondsPerMove is player i's mean wall time a move, and false when no
// game recorded its time.
func (r *MatchResult) SecondsPerMove(i int) (float64, bool) {
	if i >= len(r.ThinkMoves) || r.ThinkMoves[i] == 0 {
		return 0, false
	}
	return r.ThinkSeconds[i] / float64(r.ThinkMoves[i]), true
}

// Total is player i's record against everyone.
func (r *MatchResult) Total(i int) WDL {
	var t WDL
	for _, w := range r.WDL[i] {
		t.Wins += w.Wins
		t.Draws += w.Draws
		t.Losses += w.Losses
	}
	return t
}

// Table returns the results as an Elo table.
func (r *MatchResult) Table() (*elo.Table, error) {
	t, err := elo.NewTable(len(r.Players))
	if err != nil {
		return nil, err
	}
	for i := range r.WDL {
		for j := i + 1; j < len(r.WDL); j++ {
			w := r.WDL[i][j]
			if err := t.AddN(i, j, float64(w.Games()), float64(w.Wins)+float64(w.Draws)/2); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// Ratings fits Elo ratings to the results (see package elo).
func (r *MatchResult) Ratings(cfg elo.Config) (elo.Ratings, error) {
	t, err := r.Table()
	if err != nil {
		return elo.Ratings{}, err
	}
	return elo.Fit(t, cfg)
}

// job is one game to play.
type job struct {
	index int
	seats [2]int
	// dice is the index of the game whose dice this game replays (the
	// first game of its mirrored pair: in a game of chance the games 2m and
	// 2m+1 of each pairing roll the same dice with colours swapped).
	dice int
	// opening is the index in MatchConfig.Openings of the game's opening,
	// or -1.
	opening int
}

type outcome struct {
	rec GameRecord
	err error
}

// Match plays every pair of players cfg.Games games in game g, cfg.Parallel
// at a time, and returns the win/draw/loss table. It stops at the first
// error (a player's error, an illegal move, a Record error, ctx done) and
// returns it, naming the game and the player.
func Match(ctx context.Context, cfg MatchConfig, g games.Game, players []*players.Factory) (*MatchResult, error) {
	switch {
	case len(players) < 2:
		return nil, fmt.Errorf("arena: a match needs at least two players, got %d", len(players))
	case cfg.Games < 1:
		return nil, fmt.Errorf("arena: games = %d per pair, want >= 1", cfg.Games)
	case cfg.Parallel < 0:
		return nil, fmt.Errorf("arena: parallel = %d, want >= 0 (0: one per core)", cfg.Parallel)
	case cfg.RandomPlies < 0:
		return nil, fmt.Errorf("arena: random plies = %d, want >= 0", cfg.RandomPlies)
	}
	for i, o := range cfg.Openings {
		s, err := games.Replay(g, o)
		if err == nil && s.IsTerminal() {
			err = errors.New("the game is over")
		}
		if err != nil {
			return nil, fmt.Errorf("arena: opening %d: %w", i+1, err)
		}
	}
	names := Names(players)
	jobs := matchJobs(cfg, len(players))
	played, err := checkPlayed(cfg, g, names, jobs)
	if err != nil {
		return nil, err
	}
	par := cfg.Parallel
	if par == 0 {
		par = runtime.GOMAXPROCS(0)
	}
	par = max(1, min(par, len(jobs)-len(played)))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	todo := make(chan job)
	done := make(chan outcome)
	var wg sync.WaitGroup
	for w := 0; w < par; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range todo {
				rec, err := playGame(ctx, cfg, g, players, names, jb)
				select {
				case done <- outcome{rec, err}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(todo)
		for _, jb := range jobs {
			if _, ok := played[jb.index]; ok {
				continue
			}
			select {
			case todo <- jb:
			case <-ctx.Done():
				return
			}
		}
	}()

	tl := newTally(g, names, games.HasChance(g) || cfg.RandomPlies > 0 || len(cfg.Openings) > 0)
	res := tl.res
	for _, i := range slices.Sorted(maps.Keys(played)) {
		tl.add(played[i], jobs[i].dice)
	}
	// next is the first game not yet recorded; the games played before are
	// recorded already.
	next := 0
	skipPlayed := func() {
		for _, ok := played[next]; ok; _, ok = played[next] {
			next++
		}
	}
	skipPlayed()
	pending := make(map[int]GameRecord)
	var firstErr error
	for n := len(played); n < len(jobs) && firstErr == nil; n++ {
		var o outcome
		select {
		case o = <-done:
		case <-ctx.Done():
			firstErr = fmt.Errorf("arena: match stopped: %w", ctx.Err())
			continue
		}
		if o.err != nil {
			firstErr = o.err
			continue
		}
		tl.add(o.rec, jobs[o.rec.Index].dice)
		pending[o.rec.Index] = o.rec
		for {
			rec, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			skipPlayed()
			if cfg.Record != nil {
				if err := cfg.Record(rec); err != nil {
					firstErr = fmt.Errorf("arena: recording game %d: %w", rec.Index, err)
					clear(pending) // nothing more goes to a failing Record
					break
				}
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(n+1, len(jobs))
		}
	}
	// A stopped match (interrupted, a player's error) still records every
	// game it counted: those finished behind an unfinished game wait in
	// pending, and go out now in game order, with the gap.
	if cfg.Record != nil {
		for _, i := range slices.Sorted(maps.Keys(pending)) {
			if err := cfg.Record(pending[i]); err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("arena: recording game %d: %w", i, err)
				}
				break
			}
		}
	}
	cancel()
	wg.Wait()
	if firstErr != nil {
		return res, firstErr
	}
	return res, nil
}

// matchJobs lists the games of a match between n players: every pairing
// plays cfg.Games games, colours alternating, the games 2m and 2m+1 sharing
// their dice and opening.
func matchJobs(cfg MatchConfig, n int) []job {
	var jobs []job
	for i := range n {
		for j := i + 1; j < n; j++ {
			first := len(jobs)
			for k := 0; k < cfg.Games; k++ {
				seats := [2]int{i, j}
				if k%2 == 1 {
					seats = [2]int{j, i}
				}
				opening := -1
				if len(cfg.Openings) > 0 {
					opening = k / 2 % len(cfg.Openings)
				}
				jobs = append(jobs, job{index: len(jobs), seats: seats, dice: first + k/2*2, opening: opening})
			}
		}
	}
	return jobs
}

// checkPlayed checks cfg.Played against the match's jobs (see CheckPlayed)
// and returns them by game index.
func checkPlayed(cfg MatchConfig, g games.Game, names []string, jobs []job) (map[int]GameRecord, error) {
	played := make(map[int]GameRecord, len(cfg.Played))
	for _, r := range cfg.Played {
		if r.Index < 0 || r.Index >= len(jobs) {
			return nil, fmt.Errorf("arena: played game %d: this match has games 0 to %d", r.Index, len(jobs)-1)
		}
		if _, dup := played[r.Index]; dup {
			return nil, fmt.Errorf("arena: played game %d: recorded twice", r.Index)
		}
		if err := checkRecord(cfg, g, names, jobs[r.Index], r); err != nil {
			return nil, fmt.Errorf("arena: played game %d is not a game of this match: %w", r.Index, err)
		}
		played[r.Index] = r
	}
	return played, nil
}

// CheckPlayed checks that recs, games read back from an earlier run's
// records, belong to the match cfg would play between players named names
// (as Match names them: MatchResult.Players) in game g: each index is a
// game of the match, recorded once, with the players in the seats the
// match gives them, and its moves replay legally from the opening and the
// random plies and dice that the match's seed gives that game to the
// recorded end and result. Match makes the same check of cfg.Played.
func CheckPlayed(cfg MatchConfig, g games.Game, names []string, recs []GameRecord) error {
	cfg.Played = recs
	_, err := checkPlayed(cfg, g, names, matchJobs(cfg, len(names)))
	return err
}

// checkRecord checks record r against job jb of the match cfg.
func checkRecord(cfg MatchConfig, g games.Game, names []string, jb job, r GameRecord) error {
	if r.Game != g.Name() {
		return fmt.Errorf("a game of %q, the match plays %s", r.Game, g.Name())
	}
	for side, seat := range jb.seats {
		if r.Seats[side] != seat || r.Players[side] != names[seat] {
			return fmt.Errorf("seat %d holds %q (player %d), the match puts %q (player %d) there", side, r.Players[side], r.Seats[side], names[seat], seat)
		}
	}
	moves, err := parseMoves(g, r.Moves)
	if err != nil {
		return err
	}
	s := g.NewInitialState()
	var buf []int
	fixed := 0 // plies not the players' choice: the opening, then the random plies
	if jb.opening >= 0 {
		fixed = len(cfg.Openings[jb.opening])
	}
	randomEnd := fixed + cfg.RandomPlies
	openingPlies := 0
	opening := GameRNG(cfg.Seed, jb.dice, 2)
	dice := GameRNG(cfg.Seed, jb.dice, 3)
	for i, a := range moves {
		want, what := -1, ""
		switch {
		case s.IsTerminal():
			return fmt.Errorf("move %d comes after the end of the game", i+1)
		case i < fixed: // the opening, dice included, as Match plays it
			want, what = cfg.Openings[jb.opening][i], fmt.Sprintf("its opening %d", jb.opening+1)
			openingPlies = i + 1
		case games.IsChanceNode(s):
			if want, err = games.SampleChance(s, dice); err != nil {
				return fmt.Errorf("move %d: %w", i+1, err)
			}
			what = "its dice (another seed?)"
		case i < randomEnd:
			buf = s.LegalActions(buf)
			want, what = openingMove(s, buf, opening), "its random plies (another seed or -random-plies?)"
			openingPlies = i + 1
		}
		if want >= 0 && a != want {
			return fmt.Errorf("move %d is %s, where the match plays %s from %s", i+1, formatMoves(g, []int{a}), formatMoves(g, []int{want}), what)
		}
		if err := games.Play(s, a); err != nil {
			return fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	if r.OpeningPlies != openingPlies && len(moves) >= randomEnd {
		return fmt.Errorf("%d opening plies recorded, the match gives %d", r.OpeningPlies, openingPlies)
	}
	if r.Forfeit != nil || r.Resigned {
		if r.Winner != 0 && r.Winner != 1 {
			return fmt.Errorf("a game lost by resignation or forfeit names winner %d", r.Winner)
		}
		return nil
	}
	if !s.IsTerminal() {
		return errors.New("the moves do not end the game")
	}
	ret := s.Returns()
	winner := -1
	switch {
	case ret[0] > ret[1]:
		winner = 0
	case ret[1] > ret[0]:
		winner = 1
	}
	if winner != r.Winner {
		return fmt.Errorf("the moves end in winner %d, the record says %d", winner, r.Winner)
	}
	return nil
}

// tally adds up finished games into a MatchResult.
type tally struct {
	res    *MatchResult
	paired bool            // the games 2m and 2m+1 of a pairing share dice or opening: count them as pairs
	halves map[int]float64 // dice key -> the score of the lower player in the pair's first finished game
	scored map[int]float64 // dice key -> the lower player's Score in the pair's first finished game, NaN after a forfeit
	points map[int]float64 // dice key -> the lower player's net points in the pair's first finished game, NaN when unknown
}

func newTally(g games.Game, names []string, paired bool) *tally {
	t := &tally{res: &MatchResult{Players: names, WDL: square[WDL](len(names)),
		ThinkSeconds: make([]float64, len(names)), ThinkMoves: make([]int, len(names))},
		paired: paired, halves: map[int]float64{}}
	if t.paired {
		t.res.Pairs = square[PairStats](len(names))
		if unit, ok := ScoreUnit(g); ok {
			t.res.Scores = square[ScoreStats](len(names))
			t.res.ScoreUnit = unit
			t.scored = map[int]float64{}
		}
		if _, ok := g.NewInitialState().(Pointer); ok && games.HasChance(g) {
			t.res.PointPairs = square[ScoreStats](len(names))
			t.points = map[int]float64{}
		}
	}
	return t
}

// add counts a finished game; dice names the dice it rolled, shared with its
// mirror (the game of the same pair with colours swapped), if any.
func (t *tally) add(rec GameRecord, dice int) {
	res := t.res
	if rec.Forfeit != nil {
		res.Forfeits = append(res.Forfeits, rec)
	}
	if rec.Resigned {
		res.Resignations = append(res.Resignations, rec)
	}
	if len(rec.Restarts) > 0 {
		res.Restarted = append(res.Restarted, rec)
	}
	a, b := rec.Seats[0], rec.Seats[1]
	if th := rec.Think; th != nil {
		for side, seat := range rec.Seats {
			res.ThinkSeconds[seat] += th.Seconds[side]
			res.ThinkMoves[seat] += th.Moves[side]
		}
	}
	switch rec.Winner {
	case 0:
		res.WDL[a][b].Wins++
		res.WDL[b][a].Losses++
	case 1:
		res.WDL[a][b].Losses++
		res.WDL[b][a].Wins++
	default:
		res.WDL[a][b].Draws++
		res.WDL[b][a].Draws++
	}
	if rec.Points > 0 && rec.Winner >= 0 {
		if res.WinPoints == nil {
			res.WinPoints = square[WinPoints](len(res.Players))
		}
		w, l := rec.Seats[rec.Winner], rec.Seats[1-rec.Winner]
		switch wp := &res.WinPoints[w][l]; rec.Points {
		case 1:
			wp.Single++
		case 2:
			wp.Gammon++
		default:
			wp.Backgammon++
		}
	}
	if !t.paired {
		return
	}
	lo, hi := min(a, b), max(a, b)
	s := 0.5
	switch {
	case rec.Winner < 0:
	case rec.Seats[rec.Winner] == lo:
		s = 1
	default:
		s = 0
	}
	if first, ok := t.halves[dice]; ok {
		delete(t.halves, dice)
		res.Pairs[lo][hi].Add((first + s) / 2)
	} else {
		t.halves[dice] = s // an odd last game stays here, uncounted
	}
	if t.points != nil {
		pts := 0.0 // a draw: a game cut at its length cap
		switch {
		case rec.Winner >= 0 && rec.Points == 0:
			pts = math.NaN() // resigned or forfeited: worth an unknown number of points
		case rec.Winner >= 0 && rec.Seats[rec.Winner] == lo:
			pts = float64(rec.Points)
		case rec.Winner >= 0:
			pts = -float64(rec.Points)
		}
		if first, ok := t.points[dice]; ok {
			delete(t.points, dice)
			if !math.IsNaN(first) && !math.IsNaN(pts) {
				res.PointPairs[lo][hi].Add((first + pts) / 2)
			}
		} else {
			t.points[dice] = pts
		}
	}
	if t.scored == nil {
		return
	}
	v := math.NaN()
	if rec.Score != nil && rec.Forfeit == nil {
		v = rec.Score[0]
		if rec.Seats[0] != lo {
			v = rec.Score[1]
		}
	}
	if first, ok := t.scored[dice]; ok {
		delete(t.scored, dice)
		if !math.IsNaN(first) && !math.IsNaN(v) {
			res.Scores[lo][hi].Add((first + v) / 2)
		}
	} else {
		t.scored[dice] = v
	}
}

// Tally adds up recorded games of game g (the records of one Match, in game
// order, e.g. read back from "arena match -out") into the result that Match
// returned: the players are named by the records, the mirrored pairs of a
// game of chance are the games 2m and 2m+1 of each pairing, as Match plays
// them, and a record without Points (written before they were recorded) has
// them computed by replaying its moves.
func Tally(g games.Game, recs []GameRecord) (*MatchResult, error) {
	var names []string
	for _, r := range recs {
		for side, seat := range r.Seats {
			if seat < 0 || seat > 1000 {
				return nil, fmt.Errorf("arena: game %d: seat %d out of range", r.Index, seat)
			}
			for len(names) <= seat {
				names = append(names, "")
			}
			switch names[seat] {
			case "":
				names[seat] = r.Players[side]
			case r.Players[side]:
			default:
				return nil, fmt.Errorf("arena: game %d: player %d is %q, earlier %q", r.Index, seat, r.Players[side], names[seat])
			}
		}
	}
	for i, n := range names {
		if n == "" {
			return nil, fmt.Errorf("arena: no game of player %d", i)
		}
	}
	if len(names) < 2 {
		return nil, fmt.Errorf("arena: no games to tally")
	}
	paired := games.HasChance(g)
	for _, r := range recs {
		paired = paired || r.OpeningPlies > 0
	}
	tl := newTally(g, names, paired)
	played := map[[2]int]int{} // games played so far by each pairing
	var pointsOf func(GameRecord) (int, error)
	if _, ok := g.NewInitialState().(Pointer); ok {
		nt, ok := g.(games.Notation)
		if !ok {
			return nil, fmt.Errorf("arena: game %s has no notation to replay records with", g.Name())
		}
		pointsOf = func(r GameRecord) (int, error) {
			acts, err := nt.ParseActions(r.Moves)
			if err != nil {
				return 0, err
			}
			s := g.NewInitialState()
			for i, a := range acts {
				if err := games.Play(s, a); err != nil {
					return 0, fmt.Errorf("move %d: %w", i+1, err)
				}
			}
			w, pts := s.(Pointer).Points()
			if w != r.Winner {
				return 0, fmt.Errorf("the moves end in a win of seat %d, the record says %d", w, r.Winner)
			}
			return pts, nil
		}
	}
	var scoreOf func(GameRecord) (*[2]float64, error)
	if _, ok := ScoreUnit(g); ok {
		scoreOf = func(r GameRecord) (*[2]float64, error) {
			s, err := replayRecord(g, r.Moves)
			if err != nil {
				return nil, err
			}
			if !s.IsTerminal() {
				return nil, fmt.Errorf("the moves do not end the game")
			}
			v := s.(Scorer).Score()
			return &v, nil
		}
	}
	for _, r := range recs {
		if r.Game != g.Name() {
			return nil, fmt.Errorf("arena: game %d is a game of %q, want %s", r.Index, r.Game, g.Name())
		}
		if r.Score == nil && r.Forfeit == nil && scoreOf != nil { // a record written before scores were
			sc, err := scoreOf(r)
			if err != nil {
				return nil, fmt.Errorf("arena: game %d: %w", r.Index, err)
			}
			r.Score = sc
		}
		if r.Points == 0 && r.Winner >= 0 && r.Forfeit == nil && !r.Resigned && pointsOf != nil {
			pts, err := pointsOf(r)
			if err != nil {
				return nil, fmt.Errorf("arena: game %d: %w", r.Index, err)
			}
			r.Points = pts
		}
		key := [2]int{min(r.Seats[0], r.Seats[1]), max(r.Seats[0], r.Seats[1])}
		k := played[key]
		played[key]++
		tl.add(r, (key[0]*(len(names)+1)+key[1])<<32|k/2)
	}
	return tl.res, nil
}

// DropForfeitPairs returns recs (the records of one Match in game order, as
// Tally takes them) without the games that ended by a forfeit and, where
// the games are paired (Tally's pairs: the games 2m and 2m+1 of each
// pairing, which share an opening or dice), without their mirror games, so
// that what is left is games decided by play, still in whole pairs. It
// also returns how many games it left out.
func DropForfeitPairs(g games.Game, recs []GameRecord) ([]GameRecord, int) {
	paired := games.HasChance(g)
	for _, r := range recs {
		paired = paired || r.OpeningPlies > 0
	}
	type pairKey struct{ lo, hi, m int }
	pairOf := make([]pairKey, len(recs))
	played := map[[2]int]int{}
	drop := map[pairKey]bool{}
	for i, r := range recs {
		key := [2]int{min(r.Seats[0], r.Seats[1]), max(r.Seats[0], r.Seats[1])}
		k := played[key]
		played[key]++
		m := k / 2
		if !paired {
			m = -1 - k // every game its own
		}
		pairOf[i] = pairKey{key[0], key[1], m}
		if r.Forfeit != nil {
			drop[pairOf[i]] = true
		}
	}
	var kept []GameRecord
	for i, r := range recs {
		if !drop[pairOf[i]] {
			kept = append(kept, r)
		}
	}
	return kept, len(recs) - len(kept)
}

// square returns an n x n table of zero values.
func square[T any](n int) [][]T {
	t := make([][]T, n)
	for i := range t {
		t[i] = make([]T, n)
	}
	return t
}

// Names returns the players' names as a match names them
// (MatchResult.Players): their Factory names, repeats numbered
// ("random#2").
func Names(players []*players.Factory) []string {
	names := make([]string, len(players))
	count := map[string]int{}
	for i, p := range players {
		count[p.Name]++
		names[i] = p.Name
		if c := count[p.Name]; c > 1 {
			names[i] = p.Name + "#" + strconv.Itoa(c)
		}
	}
	return names
}

// GameRNG returns the random source of seat side in game index.
func GameRNG(seed uint64, index, side int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(index)*4+uint64(side)+1))
}

// openingMove draws a random opening ply of s from its legal moves legal,
// uniformly, but never one after which the opponent could end the game at
// once (games.Ending: in Go a pass, which would let a pass answer it and
// end the game before the players have moved) unless no other move is
// legal.
func openingMove(s games.State, legal []int, rng *rand.Rand) int {
	if _, ok := s.(games.Ending); ok && len(legal) > 1 {
		keep := make([]int, 0, len(legal))
		for _, a := range legal {
			c := s.Clone()
			c.ApplyAction(a)
			if c.(games.Ending).EndingAction() < 0 { // c is of s's type
				keep = append(keep, a)
			}
		}
		if len(keep) > 0 {
			legal = keep
		}
	}
	return legal[rng.IntN(len(legal))]
}

// playGame plays one game to its end.
func playGame(ctx context.Context, cfg MatchConfig, g games.Game, factories []*players.Factory, names []string, jb job) (GameRecord, error) {
	rec := GameRecord{Index: jb.index, Game: g.Name(), Seats: jb.seats, Think: &Think{}}
	var ps [2]players.Player
	for side, seat := range jb.seats {
		rec.Players[side] = names[seat]
		p, err := factories[seat].New(GameRNG(cfg.Seed, jb.index, side))
		if err != nil {
			return rec, fmt.Errorf("arena: game %d: %w", jb.index, err)
		}
		ps[side] = p
		if c, ok := p.(io.Closer); ok {
			defer c.Close() // outside engines stop after each game
		}
	}
	s := g.NewInitialState()
	var moves, buf []int
	if jb.opening >= 0 {
		for _, a := range cfg.Openings[jb.opening] {
			if err := games.Play(s, a); err != nil { // checked by Match
				return rec, fmt.Errorf("arena: game %d: opening %d: %w", jb.index, jb.opening+1, err)
			}
			moves = append(moves, a)
		}
		rec.OpeningPlies = len(moves)
	}
	randomEnd := len(moves) + cfg.RandomPlies
	// The random opening plies come from a source shared by the two games
	// of a mirrored pair, as the dice do: each player gets the opening the
	// other had, so the opening's luck is paired out.
	opening := GameRNG(cfg.Seed, jb.dice, 2)
	// In a game of chance the dice come from their own source, shared by
	// the two games of a pair (index 2m and 2m+1, colours swapped): each
	// player meets the same rolls as the other did, which cancels much of
	// the luck (variance reduction).
	dice := GameRNG(cfg.Seed, jb.dice, 3)
	for !s.IsTerminal() {
		if err := ctx.Err(); err != nil {
			return rec, fmt.Errorf("arena: game %d: %w", jb.index, err)
		}
		if len(moves) >= g.MaxGameLength() {
			return rec, fmt.Errorf("arena: game %d: still going after %d moves, the game's maximum", jb.index, len(moves))
		}
		var a int
		if games.IsChanceNode(s) {
			var err error
			if a, err = games.SampleChance(s, dice); err != nil {
				return rec, fmt.Errorf("arena: game %d: %w", jb.index, err)
			}
		} else if len(moves) < randomEnd {
			buf = s.LegalActions(buf)
			a = openingMove(s, buf, opening)
			rec.OpeningPlies = len(moves) + 1
		} else {
			side := s.CurrentPlayer()
			if sy, ok := ps[side].(players.Syncer); ok {
				sy.Sync(moves)
			}
			var err error
			start := time.Now()
			a, err = ps[side].ChooseAction(ctx, s.Clone())
			rec.Think.Seconds[side] += time.Since(start).Seconds()
			rec.Think.Moves[side]++
			if r, ok := ps[side].(players.Restarter); ok {
				for _, x := range r.TakeRestarts() {
					rec.Restarts = append(rec.Restarts, RestartRecord{Side: side, Player: rec.Players[side],
						Move: len(moves) + 1, Reason: x.Reason, Stderr: x.Stderr})
				}
			}
			if f := (*players.Forfeit)(nil); errors.As(err, &f) && ctx.Err() == nil {
				return forfeitRecord(rec, g, moves, side, f), nil
			}
			if errors.Is(err, players.ErrResigned) && ctx.Err() == nil {
				return lostRecord(rec, g, moves, side), nil
			}
			if err != nil {
				return rec, fmt.Errorf("arena: game %d, move %d: player %s: %w", jb.index, len(moves)+1, names[jb.seats[side]], err)
			}
			if err := games.Play(s, a); err != nil {
				return rec, fmt.Errorf("arena: game %d, move %d: player %s: %w", jb.index, len(moves)+1, names[jb.seats[side]], err)
			}
			if cfg.Values {
				for len(rec.Values) < len(moves) {
					rec.Values = append(rec.Values, math.NaN())
				}
				v := math.NaN()
				if vr, ok := ps[side].(players.Valuer); ok {
					v = vr.Value()
				}
				rec.Values = append(rec.Values, v)
			}
			moves = append(moves, a)
			continue
		}
		s.ApplyAction(a)
		moves = append(moves, a)
	}
	rec.Moves = formatMoves(g, moves)
	for cfg.Values && len(rec.Values) < len(moves) {
		rec.Values = append(rec.Values, math.NaN())
	}
	rec.Result = s.Returns()
	switch {
	case rec.Result[0] > rec.Result[1]:
		rec.Winner = 0
	case rec.Result[1] > rec.Result[0]:
		rec.Winner = 1
	default:
		rec.Winner = -1
	}
	if sc, ok := s.(Scorer); ok {
		v := sc.Score()
		rec.Score = &v
	}
	if p, ok := s.(Pointer); ok && rec.Winner >= 0 {
		if w, pts := p.Points(); w == rec.Winner {
			rec.Points = pts
		}
	}
	return rec, nil
}

// lostRecord ends rec as a loss for side, which resigned.
func lostRecord(rec GameRecord, g games.Game, moves []int, side int) GameRecord {
	rec.Moves = formatMoves(g, moves)
	rec.Winner = 1 - side
	rec.Result[side], rec.Result[1-side] = -1, 1
	rec.Resigned = true
	return rec
}

// forfeitRecord ends rec as a loss for side, which forfeited.
func forfeitRecord(rec GameRecord, g games.Game, moves []int, side int, f *players.Forfeit) GameRecord {
	rec = lostRecord(rec, g, moves, side)
	rec.Resigned = false
	rec.Forfeit = &ForfeitRecord{Side: side, Player: rec.Players[side], Reason: f.Reason, Stderr: f.Stderr}
	return rec
}

// ReadOpenings reads openings for MatchConfig.Openings: one a line, each a
// move sequence from g's initial state in g's notation (chess: "e2e4 e7e5
// g1f3"), checked against the rules. Text from '#' to the end of a line is
// a comment; blank lines are skipped.
func ReadOpenings(g games.Game, r io.Reader) ([][]int, error) {
	var out [][]int
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		s, moves, err := games.ParseAndReplay(g, line)
		if err == nil && s.IsTerminal() {
			err = errors.New("the game is over")
		}
		if err != nil {
			return nil, fmt.Errorf("openings line %d: %w", n, err)
		}
		out = append(out, moves)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("openings: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("openings: no opening in the file")
	}
	return out, nil
}

// parseMoves reads moves written by formatMoves.
func parseMoves(g games.Game, moves string) ([]int, error) {
	if n, ok := g.(games.Notation); ok {
		acts, err := n.ParseActions(moves)
		if err != nil {
			return nil, fmt.Errorf("game %s: %w", g.Name(), err)
		}
		return acts, nil
	}
	var acts []int
	for i, f := range strings.Fields(moves) {
		a, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("move %d: %q is not an action number", i+1, f)
		}
		acts = append(acts, a)
	}
	return acts, nil
}

// replayRecord plays moves written by formatMoves from g's initial state.
func replayRecord(g games.Game, moves string) (games.State, error) {
	if _, ok := g.(games.Notation); ok {
		s, _, err := games.ParseAndReplay(g, moves)
		return s, err
	}
	s := g.NewInitialState()
	for i, f := range strings.Fields(moves) {
		a, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("move %d: %q is not an action number", i+1, f)
		}
		if err := games.Play(s, a); err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	return s, nil
}

// formatMoves writes moves in g's notation, or as space-separated action
// numbers for a game without one.
func formatMoves(g games.Game, moves []int) string {
	if n, ok := g.(games.Notation); ok {
		return n.FormatActions(moves)
	}
	parts := make([]string, len(moves))
	for i, a := range moves {
		parts[i] = strconv.Itoa(a)
	}
	return strings.Join(parts, " ")
}
