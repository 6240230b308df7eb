package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"tabula/elo"
	"tabula/games"
	"tabula/internal/metrics"
	"tabula/match"
	"tabula/players"
)

// finalLadder plays the ladder once more at the end of a run when the best
// network has changed since the last ladder (a duration ends between two
// ladder.every iterations), so that the run's last figure is its final
// network's. It writes a metrics line marked final_ladder. Ctrl-C (ctx)
// cuts it short without an error: the run itself is complete.
func (t *Trainer) finalLadder(ctx context.Context, start time.Time) error {
	best := filepath.Base(t.bestPath)
	if t.cfg.Ladder.Every <= 0 || t.iter == 0 || best == t.ladderBest {
		return nil
	}
	t.log.Info("final ladder: the best network changed since the last ladder", "best", best, "last_ladder", t.ladderBest)
	ladder, err := t.ladder(ctx)
	if err != nil {
		if ctx.Err() != nil {
			t.log.Warn("final ladder cut short", "err", err)
			return nil
		}
		return fmt.Errorf("final ladder: %w", err)
	}
	t.ladderBest = best
	return t.metrics.write(&metrics.Record{Iteration: t.iter, FinalLadder: true, Best: best,
		Train: &metrics.Train{TotalSteps: t.trainer.Steps()}, Ladder: ladder,
		WallSeconds: metrics.Float(time.Since(start).Seconds()), RunSeconds: metrics.Num(t.runSeconds()), Time: time.Now().UTC().Format(time.RFC3339)})
}

// ladder rates the best network against the fixed players: one match per
// opponent, one Elo fit on the games won with the first fixed player as the
// anchor at 0. Its scores are shares of the games, or of the points in a
// game whose results carry points (ladderScores).
func (t *Trainer) ladder(ctx context.Context) (*metrics.Ladder, error) {
	lc := t.cfg.Ladder
	bestF, err := netFactory(t.g, t.bestPath, lc.Simulations)
	if err != nil {
		return nil, err
	}
	defer bestF.Close()
	n := len(lc.Players) + 1
	table, err := elo.NewTable(n)
	if err != nil {
		return nil, err
	}
	names := []string{"best"}
	scores := map[string]metrics.Float{}
	points := scoresPoints(t.g)
	var gameScores map[string]metrics.Float
	if points {
		gameScores = map[string]metrics.Float{}
	}
	bar := t.bar(lc.Games*len(lc.Players), fmt.Sprintf("iter %d ladder", t.iter))
	defer bar.Finish()
	for i, specText := range lc.Players {
		spec, err := players.ParseSpec(specText)
		if err != nil {
			return nil, fmt.Errorf("ladder.players[%d]: %w", i, err)
		}
		f, err := players.Build(t.g, spec)
		if err != nil {
			return nil, fmt.Errorf("ladder.players[%d]: %w", i, err)
		}
		seed := t.cfg.Seed ^ uint64(i)<<32 ^ uint64(t.iter)
		rw := newRecordWriter(t.cfg, t.dir.root, "ladder", trainerName, t.g, t.bestGen, "", seed)
		record := func(r match.GameRecord) error {
			for k, seat := range r.Seats {
				r.Players[k] = [2]string{"best", specText}[seat]
			}
			return rw.match(r)
		}
		res, err := match.Match(ctx, match.MatchConfig{Games: lc.Games, Seed: seed,
			RandomPlies: lc.RandomPlies, Progress: func(int, int) { bar.Add(1) }, Record: record, Values: rw != nil}, t.g, []*players.Factory{bestF, f})
		f.Close()
		if ferr := rw.flush(); ferr != nil && err == nil {
			err = ferr
		}
		if err != nil {
			return nil, err
		}
		r := res.WDL[0][1]
		if err := table.AddN(0, i+1, float64(r.Games()), float64(r.Wins)+float64(r.Draws)/2); err != nil {
			return nil, err
		}
		names = append(names, specText)
		score, gameShare := ladderScores(res, points)
		scores[specText] = metrics.Float(score)
		if points {
			gameScores[specText] = metrics.Float(gameShare)
		}
	}
	cfg := elo.DefaultConfig()
	cfg.Anchor = 1
	ratings, err := elo.Fit(table, cfg)
	out := &metrics.Ladder{Scores: scores, Players: names, GameScores: gameScores}
	if points {
		out.ScoreUnit = "points"
	}
	if err != nil {
		out.Error = err.Error()
		t.log.Warn("ladder: Elo fit failed", "err", err)
		return out, nil
	}
	out.Elo = floats(ratings.Elo)
	out.Low = floats(ratings.Low)
	out.High = floats(ratings.High)
	out.Extreme = ratings.Extreme
	t.log.Info("ladder", "best", filepath.Base(t.bestPath), "best_elo", fmt.Sprintf("%.0f", ratings.Elo[0]), "scores", scoreList(lc.Players, scores), "unit", out.ScoreLabel())
	return out, nil
}

// scoresPoints reports whether g's results carry points (a win worth 1, 2
// or 3: backgammon on money scoring), so that the ladder scores the share
// of the points rather than of the games.
func scoresPoints(g games.Game) bool {
	m, ok := g.(interface{ Money() bool })
	return ok && m.Money()
}

// ladderScores returns the best network's (player 0's) score against
// player 1 in res and its share of the games (wins and half the draws). The
// score is the games share, or with points its share of the points won in
// the games whose points are known (res.WinPoints: resigned and forfeited
// games left out), 0.5 when no points were won.
func ladderScores(res *match.MatchResult, points bool) (score, gameShare float64) {
	gameShare = res.WDL[0][1].Score()
	if !points {
		return gameShare, gameShare
	}
	var won, lost int
	if res.WinPoints != nil {
		won, lost = res.WinPoints[0][1].Points(), res.WinPoints[1][0].Points()
	}
	if won+lost == 0 {
		return 0.5, gameShare
	}
	return float64(won) / float64(won+lost), gameShare
}

// scoreList writes scores as "name score, name score, ..." in the order of
// names, for log lines (a Go map prints as map[...]).
func scoreList(names []string, scores map[string]metrics.Float) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.2f", n, scores[n])
	}
	return b.String()
}

// floats converts a slice of float64 for a metrics record.
func floats(xs []float64) []metrics.Float {
	out := make([]metrics.Float, len(xs))
	for i, x := range xs {
		out[i] = metrics.Float(x)
	}
	return out
}
