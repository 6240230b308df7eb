package pipeline

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
	"tabula/match"
	"tabula/replay"
)

// TestLadderScoresPoints: in a game whose results carry points (backgammon
// on money scoring) the ladder's score is the share of the points, here
// 6 single wins against 1 single, 2 gammons and 1 backgammon: 6 points of
// 14, while the games share is 6 of 10; in the win/loss games it is the
// games share.
func TestLadderScoresPoints(t *testing.T) {
	for spec, want := range map[string]bool{"backgammon:scoring=money": true, "backgammon": false, "connect4": false} {
		g, err := games.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := scoresPoints(g); got != want {
			t.Errorf("%s: scores points %v, want %v", spec, got, want)
		}
	}
	res := &match.MatchResult{
		WDL:       [][]match.WDL{{{}, {Wins: 6, Losses: 4}}, {{Wins: 4, Losses: 6}, {}}},
		WinPoints: [][]match.WinPoints{{{}, {Single: 6}}, {{Single: 1, Gammon: 2, Backgammon: 1}, {}}},
	}
	score, gameShare := ladderScores(res, true)
	if math.Abs(score-6.0/14) > 1e-12 || gameShare != 0.6 {
		t.Errorf("points: score %v, games %v; want %v and 0.6", score, gameShare, 6.0/14)
	}
	if score, gameShare := ladderScores(res, false); score != 0.6 || gameShare != 0.6 {
		t.Errorf("win/loss: score %v, games %v; want 0.6 and 0.6", score, gameShare)
	}
	empty := &match.MatchResult{WDL: [][]match.WDL{{{}, {}}, {{}, {}}}}
	if score, _ := ladderScores(empty, true); score != 0.5 {
		t.Errorf("no games: score %v, want 0.5", score)
	}
}

// TestLadderMoneyRunScoresPoints runs one iteration of the money smoke run
// with a ladder and its game records: the ladder's scores are marked as
// points, and each is the best network's share of the points in its
// recorded ladder games (a game's points are its return times 3), its
// game_scores the share of those games won.
func TestLadderMoneyRunScoresPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a run")
	}
	dir := t.TempDir()
	cfg, err := Load("../configs/backgammon-money-smoke.yaml", []string{"run_dir=" + dir, "iterations=1", "ladder.every=1",
		"ladder.games=4", "gate.games=0", "selfplay.records=true"})
	if err != nil {
		t.Fatal(err)
	}
	runOnce(t, cfg)
	if sum := lastLadder(filepath.Join(dir, metricsFile)); !strings.Contains(sum, "(shares of the points; of the games: pubeval ") {
		t.Errorf("the summary's last ladder %q does not say its scores are shares of the points", sum)
	}
	ladder := readLastLadder(filepath.Join(dir, metricsFile)).Ladder
	if ladder == nil {
		t.Fatal("no ladder in the metrics")
	}
	if ladder.ScoreUnit != "points" || len(ladder.GameScores) != len(cfg.Ladder.Players) {
		t.Fatalf("ladder %+v: want scores in points and a games share for each player", ladder)
	}
	files, err := replay.RecordFiles(filepath.Join(dir, "records"))
	if err != nil {
		t.Fatal(err)
	}
	won, lost, wins, n := map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]float64{}
	for _, f := range files {
		recs, err := replay.ReadRecords(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.Kind != "ladder" {
				continue
			}
			best := 0
			if r.Players[1] == "best" {
				best = 1
			}
			opp := r.Players[1-best]
			pts := 3 * r.Returns[best]
			n[opp]++
			if pts > 0 {
				won[opp] += math.Round(pts)
				wins[opp]++
			} else {
				lost[opp] -= math.Round(pts)
			}
		}
	}
	for _, o := range cfg.Ladder.Players {
		if n[o] != float64(cfg.Ladder.Games) {
			t.Errorf("%d ladder games recorded against %s, want %d", int(n[o]), o, cfg.Ladder.Games)
			continue
		}
		wantPoints, wantGames := won[o]/(won[o]+lost[o]), wins[o]/n[o]
		if got := float64(ladder.Scores[o]); math.Abs(got-wantPoints) > 1e-9 {
			t.Errorf("score against %s %v, want the points share %v (%v points to %v)", o, got, wantPoints, won[o], lost[o])
		}
		if got := float64(ladder.GameScores[o]); math.Abs(got-wantGames) > 1e-9 {
			t.Errorf("games share against %s %v, want %v", o, got, wantGames)
		}
	}
}
