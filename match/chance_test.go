package match

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"tabula/players/playerstest"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
	"tabula/players"
)

// TestMatchSamplesChance plays random players at a game of chance: the
// match rolls the dice itself, and the two games of each mirrored pair (the
// same two players, colours swapped) meet the same rolls, also when a
// pairing plays an odd number of games and three players make three
// pairings (the pairs must not straddle two pairings).
func TestMatchSamplesChance(t *testing.T) {
	g := gamestest.DiceRace()
	sp, _ := players.ParseSpec("random")
	fs, err := players.BuildAll(g, []players.Spec{sp, sp, sp})
	if err != nil {
		t.Fatal(err)
	}
	const per = 5
	var recs []GameRecord
	cfg := MatchConfig{Games: per, Parallel: 2, Seed: 3, Record: func(r GameRecord) error { recs = append(recs, r); return nil }}
	res, err := Match(context.Background(), cfg, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Total(0).Games(); n != 2*per {
		t.Fatalf("%d games counted for player 0, want %d", n, 2*per)
	}
	rolls := func(r GameRecord) []int {
		var out []int
		s := g.NewInitialState()
		for _, f := range strings.Fields(r.Moves) {
			a := int(f[0] - '0')
			if games.IsChanceNode(s) {
				out = append(out, a)
			}
			if err := games.Play(s, a); err != nil {
				t.Fatalf("game %d: %v", r.Index, err)
			}
		}
		if !s.IsTerminal() {
			t.Fatalf("game %d did not end", r.Index)
		}
		return out
	}
	differ := 0
	for first := 0; first < len(recs); first += per {
		for k := first; k+1 < first+per; k += 2 {
			x, y := recs[k], recs[k+1]
			if x.Seats != [2]int{y.Seats[1], y.Seats[0]} {
				t.Fatalf("games %d and %d: seats %v and %v, want the same players with colours swapped", k, k+1, x.Seats, y.Seats)
			}
			a, b := rolls(x), rolls(y)
			for i := 0; i < min(len(a), len(b)); i++ {
				if a[i] != b[i] {
					t.Fatalf("games %d and %d: roll %d is %d and %d, want the same dice", k, k+1, i, a[i], b[i])
				}
			}
		}
		if a, b := rolls(recs[first]), rolls(recs[first+2]); !slices.Equal(a, b) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("every pairing's first two pairs rolled the same dice: the pairs do not get their own dice")
	}
	for i := range 3 {
		for j := i + 1; j < 3; j++ {
			if n := res.Pairs[i][j].N; n != per/2 {
				t.Errorf("players %d and %d: %d mirrored pairs counted, want %d", i, j, n, per/2)
			}
		}
	}
	if res.WinPoints != nil {
		t.Error("dicerace scores no gammons, but the match counted win points")
	}
	tl, err := Tally(g, recs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tl.Pairs, res.Pairs) || !reflect.DeepEqual(tl.WDL, res.WDL) {
		t.Errorf("tally of the records: pairs %v, wdl %v; the match: %v, %v", tl.Pairs, tl.WDL, res.Pairs, res.WDL)
	}
}

// TestPairStats checks the paired interval on known pair scores.
func TestPairStats(t *testing.T) {
	var p PairStats
	if m, lo, hi := p.Interval(); m != 0.5 || lo != 0.5 || hi != 0.5 {
		t.Errorf("no pairs: %v [%v, %v], want 0.5", m, lo, hi)
	}
	for _, s := range []float64{1, 0.5, 0.5, 0} {
		p.Add(s)
	}
	// Mean 0.5, sample variance (0.25+0+0+0.25)/3 = 1/6, half width
	// 1.96*sqrt(1/6/4).
	m, lo, hi := p.Interval()
	want := 1.959963984540054 * math.Sqrt(1.0/24)
	if math.Abs(m-0.5) > 1e-12 || math.Abs(hi-m-want) > 1e-12 || math.Abs(m-lo-want) > 1e-12 {
		t.Errorf("interval %v [%v, %v], want 0.5 +- %v", m, lo, hi, want)
	}
}

// TestMatchScoresGammons plays backgammon: every record says what its win
// was worth (the state's Points), and the match's WinPoints add up to the
// wins.
func TestMatchScoresGammons(t *testing.T) {
	g := playerstest.MustGame(t, "backgammon")
	pub, _ := players.ParseSpec("pubeval")
	rnd, _ := players.ParseSpec("random")
	fs, err := players.BuildAll(g, []players.Spec{pub, rnd})
	if err != nil {
		t.Fatal(err)
	}
	var recs []GameRecord
	res, err := Match(context.Background(), MatchConfig{Games: 10, Parallel: 2, Seed: 2,
		Record: func(r GameRecord) error { recs = append(recs, r); return nil }}, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		acts, err := g.(games.Notation).ParseActions(r.Moves)
		if err != nil {
			t.Fatal(err)
		}
		s := g.NewInitialState()
		for _, a := range acts {
			s.ApplyAction(a)
		}
		w, pts := s.(Pointer).Points()
		if w != r.Winner || pts != r.Points || pts < 1 {
			t.Errorf("game %d: record says seat %d won %d points, the position %d won %d", r.Index, r.Winner, r.Points, w, pts)
		}
	}
	for i := range 2 {
		wp, wdl := res.WinPoints[i][1-i], res.WDL[i][1-i]
		if wp.Single+wp.Gammon+wp.Backgammon != wdl.Wins {
			t.Errorf("player %d: win points %+v do not add up to its %d wins", i, wp, wdl.Wins)
		}
	}
	if wp := res.WinPoints[0][1]; wp.Gammon+wp.Backgammon == 0 {
		t.Errorf("pubeval won no gammon in 10 games against random (%+v)", wp)
	}
	// Tally gives back the match's result from its records, also from
	// records without points (they are replayed).
	for _, strip := range []bool{false, true} {
		rs := slices.Clone(recs)
		if strip {
			for i := range rs {
				rs[i].Points = 0
			}
		}
		tl, err := Tally(g, rs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tl.WDL, res.WDL) || !reflect.DeepEqual(tl.WinPoints, res.WinPoints) || !reflect.DeepEqual(tl.Pairs, res.Pairs) || !slices.Equal(tl.Players, res.Players) {
			t.Errorf("tally (points stripped: %v) %+v, the match %+v", strip, tl, res)
		}
	}
	bad := slices.Clone(recs)
	bad[3].Winner = 1 - bad[3].Winner
	bad[3].Points = 0
	if _, err := Tally(g, bad); err == nil || !strings.Contains(err.Error(), "game 3") {
		t.Errorf("a record whose winner contradicts its moves: error %v", err)
	}
	if _, err := Tally(playerstest.MustGame(t, "connect4"), recs); err == nil {
		t.Error("backgammon records tallied as connect4")
	}
}

// TestMatchPointPairs checks the net points a game over mirrored pairs at
// backgammon:scoring=money: each pair's value is the mean of its two games'
// points won minus lost, from the records, and Tally gives the same.
func TestMatchPointPairs(t *testing.T) {
	g := playerstest.MustGame(t, "backgammon:scoring=money")
	fs := playerstest.MustFactories(t, g, "pubeval random")
	var recs []GameRecord
	res, err := Match(context.Background(), MatchConfig{Games: 10, Parallel: 2, Seed: 3,
		Record: func(r GameRecord) error { recs = append(recs, r); return nil }}, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(recs, func(a, b GameRecord) int { return a.Index - b.Index })
	var want ScoreStats
	for m := 0; m+1 < len(recs); m += 2 {
		v := 0.0
		for _, r := range recs[m : m+2] {
			pts := float64(r.Points)
			if r.Seats[r.Winner] != 0 {
				pts = -pts
			}
			v += pts / 2
		}
		want.Add(v)
	}
	got := res.PointPairs[0][1]
	if got.N != 5 || math.Abs(got.Sum-want.Sum) > 1e-9 || math.Abs(got.SumSq-want.SumSq) > 1e-9 {
		t.Fatalf("point pairs %+v, want %+v from the records", got, want)
	}
	if m, lo, hi := got.Interval(); m <= 0 || lo >= m || hi <= m {
		t.Errorf("pubeval against random: %v points a game [%v, %v]", m, lo, hi)
	}
	tl, err := Tally(g, recs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tl.PointPairs, res.PointPairs) {
		t.Errorf("tally's point pairs %+v, the match's %+v", tl.PointPairs, res.PointPairs)
	}
}
