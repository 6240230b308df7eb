package match

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/poker"
	"tabula/games/whist"
	"tabula/players"
)

// TestMatchScoresInGameUnits plays whist and Kuhn poker matches: every
// record carries the game's own score, the two games of a pair share the
// deal with seats swapped, Scores holds the mean per pair of the lower
// player's scores (computed here from the records), and Tally of the
// records gives the same.
func TestMatchScoresInGameUnits(t *testing.T) {
	for _, c := range []struct {
		g     games.Game
		specs string
		unit  string
		deal  int // chance moves at the start of every game
	}{
		{whist.Default(), "cardrules random", "tricks", 13},
		{poker.Kuhn(), "random cfr:iters=500", "chips", 2},
	} {
		t.Run(c.g.Name(), func(t *testing.T) {
			specs, err := players.ParseSpecs(c.specs)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := players.BuildAll(c.g, specs)
			if err != nil {
				t.Fatal(err)
			}
			var recs []GameRecord
			cfg := MatchConfig{Games: 40, Parallel: 2, Seed: 5, Record: func(r GameRecord) error { recs = append(recs, r); return nil }}
			res, err := Match(context.Background(), cfg, c.g, fs)
			if err != nil {
				t.Fatal(err)
			}
			if res.ScoreUnit != c.unit || res.Scores == nil {
				t.Fatalf("score unit %q, scores %v; want %s", res.ScoreUnit, res.Scores, c.unit)
			}
			var want ScoreStats
			for k := 0; k+1 < len(recs); k += 2 {
				x, y := recs[k], recs[k+1]
				if x.Score == nil || y.Score == nil {
					t.Fatalf("games %d, %d: no score recorded", k, k+1)
				}
				if x.Score[0] != -x.Score[1] {
					t.Fatalf("game %d: scores %v do not sum to zero", k, *x.Score)
				}
				dx, dy := strings.Fields(x.Moves)[:c.deal], strings.Fields(y.Moves)[:c.deal]
				if !reflect.DeepEqual(dx, dy) {
					t.Fatalf("games %d and %d: deals %v and %v, want the same", k, k+1, dx, dy)
				}
				want.Add((scoreOf(x, 0) + scoreOf(y, 0)) / 2)
			}
			if got := res.Scores[0][1]; got.N != want.N || math.Abs(got.Sum-want.Sum) > 1e-9 || math.Abs(got.SumSq-want.SumSq) > 1e-9 {
				t.Errorf("scores %+v, want %+v from the records", got, want)
			}
			tl, err := Tally(c.g, recs)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tl.Scores, res.Scores) || tl.ScoreUnit != res.ScoreUnit {
				t.Errorf("tally of the records: %v %s; the match: %v %s", tl.Scores, tl.ScoreUnit, res.Scores, res.ScoreUnit)
			}
			// Records without scores (written before they were) are scored
			// by replaying their moves.
			for i := range recs {
				recs[i].Score = nil
			}
			if tl, err = Tally(c.g, recs); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tl.Scores, res.Scores) {
				t.Errorf("tally of records without scores: %v; the match: %v", tl.Scores, res.Scores)
			}
		})
	}
}

// TestScoreStats checks the paired interval on known pair values.
func TestScoreStats(t *testing.T) {
	var p ScoreStats
	for _, v := range []float64{1, 3, 2, 2} {
		p.Add(v)
	}
	m, lo, hi := p.Interval()
	// mean 2, sample variance 2/3, standard error sqrt(2/3/4).
	h := 1.959963984540054 * math.Sqrt(2.0/3/4)
	if m != 2 || math.Abs(lo-(2-h)) > 1e-9 || math.Abs(hi-(2+h)) > 1e-9 {
		t.Errorf("interval %v [%v, %v], want 2 +- %v", m, lo, hi, h)
	}
	var neg ScoreStats
	neg.Add(-5)
	neg.Add(-7)
	if m, lo, _ := neg.Interval(); m != -6 || lo >= -6 {
		t.Errorf("negative scores: %v, %v (the interval must not be clipped)", m, lo)
	}
}

// scoreOf returns player i's score in r.
func scoreOf(r GameRecord, i int) float64 {
	if r.Seats[0] == i {
		return r.Score[0]
	}
	return r.Score[1]
}
