package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"

	"tabula/elo"
	"tabula/games"
	"tabula/internal/metrics"
	"tabula/match"
	"tabula/players"
)

// netFactory is an arena player for a checkpoint file.
func netFactory(g games.Game, path string, sims int) (*players.Factory, error) {
	return players.Build(g, players.Spec{Kind: "net", Params: []players.Param{
		{Key: "path", Value: path}, {Key: "sims", Value: strconv.Itoa(sims)}}})
}

// gate plays the new checkpoint against the best in rounds and decides by
// SPRT (stopping early) or by win rate after all games.
func (t *Trainer) gate(ctx context.Context, candidate string) (bool, *metrics.Gate, error) {
	gc := t.cfg.Gate
	if gc.Games == 0 {
		t.log.Info("gating", "candidate", filepath.Base(candidate), "promoted", true, "reason", "gate.games = 0: every new network is promoted")
		return true, &metrics.Gate{Candidate: filepath.Base(candidate), Games: metrics.Ptr(0), Promoted: true, Reason: "gate.games = 0"}, nil
	}
	cand, err := netFactory(t.g, candidate, gc.Simulations)
	if err != nil {
		return false, nil, err
	}
	defer cand.Close()
	best, err := netFactory(t.g, t.bestPath, gc.Simulations)
	if err != nil {
		return false, nil, err
	}
	defer best.Close()
	round := 2 * max(1, runtime.GOMAXPROCS(0))
	var wdl match.WDL
	verdict := "continue"
	var dec elo.Decision
	bar := t.bar(gc.Games, fmt.Sprintf("iter %d gating", t.iter))
	defer bar.Finish()
	var games []match.GameRecord // for the watch page
	rw := newRecordWriter(t.cfg, t.dir.root, "gating", trainerName, t.g, t.bestGen, "", t.cfg.Seed^uint64(t.iter)<<24)
	record := func(r match.GameRecord) error {
		r.Index = len(games)
		for i, seat := range r.Seats {
			r.Players[i] = [2]string{"candidate", "best"}[seat]
		}
		games = append(games, r)
		return rw.match(r)
	}
	defer func() {
		if err := t.dir.writeGatingGames(t.iter, games); err != nil {
			t.log.Warn("gating games not stored", "err", err)
		}
		if err := rw.flush(); err != nil {
			t.log.Warn("gating game records not stored", "err", err)
		}
	}()
	for played := 0; played < gc.Games; {
		k := min(round, gc.Games-played)
		k += k % 2 // colours alternate within a round
		res, err := match.Match(ctx, match.MatchConfig{
			Games: k, Seed: t.cfg.Seed ^ uint64(t.iter)<<24 ^ uint64(played), RandomPlies: gc.RandomPlies,
			Progress: func(done, total int) { bar.Add(1) }, Record: record, Values: rw != nil,
		}, t.g, []*players.Factory{cand, best})
		if err != nil {
			return false, nil, err
		}
		r := res.WDL[0][1]
		wdl.Wins += r.Wins
		wdl.Draws += r.Draws
		wdl.Losses += r.Losses
		played += k
		if gc.Method == "sprt" {
			d, err := gc.SPRT.Test(wdl.Wins, wdl.Draws, wdl.Losses)
			if err != nil {
				return false, nil, err
			}
			dec = d
			verdict = d.Verdict.String()
			if d.Verdict != elo.Continue {
				break
			}
		}
	}
	promoted := false
	var reason string
	llr := dec.LLR
	switch gc.Method {
	case "sprt":
		// Out of games before a decision: promote only if the evidence leans
		// to H1 (LLR above zero) and the candidate scored above even.
		h := fmt.Sprintf("H0 elo=%g vs H1 elo=%g", gc.SPRT.Elo0, gc.SPRT.Elo1)
		switch {
		case dec.Verdict == elo.Accept:
			promoted = true
			reason = fmt.Sprintf("SPRT accepted H1: LLR %.2f >= upper bound %.2f (%s)", llr, dec.Upper, h)
		case dec.Verdict == elo.Reject:
			reason = fmt.Sprintf("SPRT rejected H1: LLR %.2f <= lower bound %.2f (%s)", llr, dec.Lower, h)
		case llr > 0 && wdl.Score() > 0.5:
			promoted = true
			reason = fmt.Sprintf("SPRT undecided after %d games (LLR %.2f in (%.2f, %.2f)), leaning to H1 with score %.3f > 0.5", wdl.Games(), llr, dec.Lower, dec.Upper, wdl.Score())
		default:
			reason = fmt.Sprintf("SPRT undecided after %d games (LLR %.2f in (%.2f, %.2f)), not leaning to H1 (score %.3f)", wdl.Games(), llr, dec.Lower, dec.Upper, wdl.Score())
		}
	case "winrate":
		var score float64
		score, promoted = elo.WinRate(wdl.Wins, wdl.Draws, wdl.Losses, gc.Threshold)
		cmp := "<"
		if promoted {
			cmp = ">="
		}
		reason = fmt.Sprintf("score %.3f %s gate.threshold %.3f after %d games", score, cmp, gc.Threshold, wdl.Games())
	}
	out := &metrics.Gate{Candidate: filepath.Base(candidate), Best: filepath.Base(t.bestPath),
		Wins: metrics.Ptr(wdl.Wins), Draws: metrics.Ptr(wdl.Draws), Losses: metrics.Ptr(wdl.Losses), Score: metrics.Num(wdl.Score()),
		EloDiff: metrics.Num(elo.FromScore(wdl.Score())), Method: gc.Method, Verdict: verdict, LLR: metrics.Num(llr), Promoted: promoted, Reason: reason}
	t.log.Info("gating", "candidate", filepath.Base(candidate), "W", wdl.Wins, "D", wdl.Draws, "L", wdl.Losses,
		"promoted", promoted, "reason", reason)
	return promoted, out, nil
}
