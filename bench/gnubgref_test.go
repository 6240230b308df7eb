package bench

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"tabula/players/playerstest"
	"testing"

	"tabula/games"
	"tabula/games/backgammon"
	refdata "tabula/internal/refdata/refdatatest"
	"tabula/match"
	"tabula/players"
)

// playedGames plays a short pubeval-random match and returns its records.
func playedGames(t *testing.T, g games.Game, n int, randomPlies int) []match.GameRecord {
	t.Helper()
	pub, _ := players.ParseSpec("pubeval")
	rnd, _ := players.ParseSpec("random")
	fs, err := players.BuildAll(g, []players.Spec{pub, rnd})
	if err != nil {
		t.Fatal(err)
	}
	var recs []match.GameRecord
	_, err = match.Match(context.Background(), match.MatchConfig{Games: n, Parallel: 2, Seed: 11, RandomPlies: randomPlies,
		Record: func(r match.GameRecord) error { recs = append(recs, r); return nil }}, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestBackgammonTurns checks the turns read from recorded games: seats
// alternate, each turn starts where the last one ended (seen from the
// other side), the dice are what the record rolled, and random opening
// plies are left out.
func TestBackgammonTurns(t *testing.T) {
	g := playerstest.MustGame(t, "backgammon")
	for _, rp := range []int{0, 6} {
		for _, rec := range playedGames(t, g, 2, rp) {
			turns, err := BackgammonTurns(g, rec, rp)
			if err != nil {
				t.Fatal(err)
			}
			rolls := strings.Count(rec.Moves, ":")
			if rp > 0 && len(turns) != rolls-3 && len(turns) != rolls-2 { // 6 plies hold 2 or 3 rolls
				t.Errorf("game %d, %d random plies: %d turns of %d rolls", rec.Index, rp, len(turns), rolls)
			}
			if rp == 0 && len(turns) != rolls {
				t.Errorf("game %d: %d turns, want one a roll (%d)", rec.Index, len(turns), rolls)
			}
			start := backgammon.StartPosition()
			if rp == 0 && turns[0].Before != backgammon.PositionID(&start, turns[0].Seat) {
				t.Errorf("game %d: first turn starts at %s, not the starting position", rec.Index, turns[0].Before)
			}
			for k, tr := range turns {
				if tr.Player != rec.Players[tr.Seat] || tr.Dice[0] < tr.Dice[1] || tr.Dice[1] < 1 || tr.Dice[0] > 6 {
					t.Fatalf("game %d turn %d: %+v", rec.Index, k, tr)
				}
				if k+1 == len(turns) {
					continue
				}
				next := turns[k+1]
				if next.Seat != 1-tr.Seat || next.Turn != tr.Turn+1 {
					t.Fatalf("game %d: turn %d (seat %d) followed by turn %d (seat %d)", rec.Index, tr.Turn, tr.Seat, next.Turn, next.Seat)
				}
				q, err := backgammon.ParsePositionID(tr.After, tr.Seat)
				if err != nil {
					t.Fatal(err)
				}
				if id := backgammon.PositionID(&q, next.Seat); id != next.Before {
					t.Fatalf("game %d: turn %d ends at %s, the next starts at %s", rec.Index, tr.Turn, id, next.Before)
				}
			}
		}
	}
	if _, err := BackgammonTurns(playerstest.MustGame(t, "connect4"), match.GameRecord{}, 0); err == nil {
		t.Error("turns of a connect4 game")
	}
	if _, err := BackgammonTurns(g, match.GameRecord{Moves: "31: 8/5 6/5; 66: 25/1"}, 0); err == nil {
		t.Error("a record with an illegal move was read")
	}
}

// decisions returns n decisions with non-double dice from random games.
func decisions(n int) []*backgammon.State {
	g := backgammon.New(false)
	rng := rand.New(rand.NewPCG(5, 9))
	var out []*backgammon.State
	var buf []int
	for len(out) < n {
		s := g.NewInitialState().(*backgammon.State)
		stop := 2 + rng.IntN(80)
		for ply := 0; !s.IsTerminal(); ply++ {
			if s.IsChanceNode() {
				a, _ := games.SampleChance(s, rng)
				s.ApplyAction(a)
				continue
			}
			buf = s.LegalActions(buf)
			if h, l := s.Dice(); ply >= stop && h != l && len(buf) > 1 {
				out = append(out, s.Clone().(*backgammon.State))
				break
			}
			s.ApplyAction(buf[rng.IntN(len(buf))])
		}
	}
	return out
}

// turnOf is the turn of playing a at s.
func turnOf(s *backgammon.State, a int) BackgammonTurn {
	p := s.NextPlayer()
	h, l := s.Dice()
	pre := s.Position()
	c := s.Clone().(*backgammon.State)
	c.ApplyAction(a)
	q := c.Position()
	return BackgammonTurn{Player: "p", Seat: p, Before: backgammon.PositionID(&pre, p), Dice: [2]int{h, l},
		After: backgammon.PositionID(&q, p), Move: s.FormatMove(a)}
}

// TestGnubgReferee rates turns with gnubg: a random move loses what gnubg
// says it does (best minus played, never negative at 0 plies), gnubg's own
// choice loses nothing at 0 and at 1 ply, and a position that no legal move
// reaches is an error.
func TestGnubgReferee(t *testing.T) {
	prog := refdata.Program(t, "gnubg", "apt-get install gnubg")
	// A home without .gnubg, as on a fresh machine, where two gnubg
	// processes started at once each tried to create it and one failed (a
	// race: not every run without backgammon.EnsureGnubgHome fails).
	t.Setenv("HOME", t.TempDir())
	rng := rand.New(rand.NewPCG(1, 2))
	states := decisions(12)
	var turns []BackgammonTurn
	var buf []int
	for i, s := range states {
		buf = s.LegalActions(buf)
		tr := turnOf(s, buf[rng.IntN(len(buf))])
		tr.Game = i
		turns = append(turns, tr)
	}
	ctx := context.Background()
	for _, plies := range []int{0, 1} {
		cfg := GnubgConfig{Program: prog, Plies: plies}
		if plies == 0 {
			cfg.Batch, cfg.Parallel = 5, 2 // three processes, two at once
		}
		rs, err := RateWithGnubg(ctx, cfg, turns)
		if err != nil {
			t.Fatal(err)
		}
		var best []BackgammonTurn
		positive := 0
		for i, r := range rs {
			if r.Game != i || r.Moves < 2 || r.Best == "" || r.Plies != plies {
				t.Fatalf("rating %d: %+v", i, r)
			}
			if math.Abs(r.Loss-(r.BestEquity-r.Equity)) > 1e-12 || r.Loss < -1e-9 {
				t.Errorf("turn %d (%s, %d plies): loss %v, best %v, played %v", i, r.Move, plies, r.Loss, r.BestEquity, r.Equity)
			}
			if r.Loss > 1e-3 {
				positive++
			}
			a, err := states[i].ParseMove(r.Best)
			if err != nil {
				t.Fatalf("gnubg's choice %q at %s: %v", r.Best, r.Before, err)
			}
			tr := turnOf(states[i], a)
			tr.Game = i
			best = append(best, tr)
		}
		if positive == 0 {
			t.Errorf("%d plies: no random move lost anything", plies)
		}
		cfg.Batch = 0
		rs2, err := RateWithGnubg(ctx, cfg, best)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rs2 {
			if math.Abs(r.Loss) > 1e-9 || math.Abs(r.Equity-rs[i].BestEquity) > 1e-6 {
				t.Errorf("%d plies, turn %d: gnubg's own choice %s loses %v (equity %v, its best %v before)", plies, i, r.Move, r.Loss, r.Equity, rs[i].BestEquity)
			}
		}
		sum := SummariseGnubg(rs2)
		if len(sum) != 1 || sum[0].Best != len(rs2) || sum[0].Loss > 1e-9 {
			t.Errorf("%d plies: summary of gnubg's choices %+v", plies, sum)
		}
	}
	bad := turns[0]
	bad.After = bad.Before // not reachable: every turn here has a legal move
	if _, err := RateWithGnubg(ctx, GnubgConfig{Program: prog}, []BackgammonTurn{bad}); err == nil || !strings.Contains(err.Error(), "none of gnubg's legal moves") {
		t.Errorf("an unreachable position: error %v", err)
	}
	if _, err := RateWithGnubg(ctx, GnubgConfig{Program: prog, Plies: 9}, turns); err == nil {
		t.Error("plies 9 accepted")
	}
	if _, err := RateWithGnubg(ctx, GnubgConfig{Program: "/nonexistent/gnubg"}, turns); err == nil {
		t.Error("a missing gnubg program gave no error")
	}
}

// TestSummariseGnubg checks the per-player sums and the interval on known
// ratings.
func TestSummariseGnubg(t *testing.T) {
	mk := func(player string, game, moves int, loss float64) TurnRating {
		return TurnRating{BackgammonTurn: BackgammonTurn{Player: player, Game: game}, Moves: moves, BestEquity: loss, Loss: loss}
	}
	rs := []TurnRating{
		mk("a", 0, 5, 0.1), mk("b", 0, 3, 0), mk("a", 0, 1, 0), mk("a", 0, 4, 0),
		mk("a", 1, 5, 0.2), mk("a", 1, 0, 0), mk("b", 1, 2, 0.05),
	}
	s := SummariseGnubg(rs)
	if len(s) != 2 || s[0].Player != "a" || s[1].Player != "b" {
		t.Fatalf("summaries %+v", s)
	}
	a := s[0]
	if a.Turns != 5 || a.Unforced != 3 || a.Best != 1 || a.Bad != 2 || math.Abs(a.Loss-0.3) > 1e-12 {
		t.Errorf("player a: %+v", a)
	}
	if math.Abs(a.PerUnforced()-0.1) > 1e-12 || math.Abs(a.PerTurn()-0.06) > 1e-12 {
		t.Errorf("player a: %v per unforced turn, %v per turn", a.PerUnforced(), a.PerTurn())
	}
	// Games: (loss 0.1, 2 turns), (0.2, 1 turn); R = 0.1, nbar = 1.5;
	// residuals 0.1-0.2 = -0.1 and 0.2-0.1 = 0.1.
	want := 1.959963984540054 * math.Sqrt(0.02/2) / 1.5
	if math.Abs(a.Interval95()-want) > 1e-12 {
		t.Errorf("player a: interval %v, want %v", a.Interval95(), want)
	}
	if b := s[1]; b.Unforced != 2 || b.Best != 1 || b.Bad != 0 {
		t.Errorf("player b: %+v", b)
	}
}
