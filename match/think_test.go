package match

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"tabula/games"
	"tabula/players"
	"tabula/players/playerstest"
)

// withoutThink returns recs with their times cleared: the games a seed
// plays are the same whatever the parallelism, the times they took not.
func withoutThink(recs []GameRecord) []GameRecord {
	out := make([]GameRecord, len(recs))
	for i, r := range recs {
		r.Think = nil
		out[i] = r
	}
	return out
}

// resultWithoutThink returns a copy of res with the players' times and
// those of the games it lists cleared.
func resultWithoutThink(res *MatchResult) *MatchResult {
	c := *res
	c.ThinkSeconds, c.ThinkMoves = nil, nil
	if c.Forfeits != nil {
		c.Forfeits = withoutThink(c.Forfeits)
	}
	if c.Resignations != nil {
		c.Resignations = withoutThink(c.Resignations)
	}
	return &c
}

// slow plays the first legal move after sleeping d.
type slow struct{ d time.Duration }

func (slow) Name() string { return "slow" }
func (p slow) ChooseAction(_ context.Context, s games.State) (int, error) {
	time.Sleep(p.d)
	return s.LegalActions(nil)[0], nil
}

// TestMatchThinkTime checks the time each side took: every move a player
// chose is counted (random opening plies are not), a player that sleeps
// 5 ms a move is measured at no less, the fast one at far less, and Tally
// of the records adds up to the match's result.
func TestMatchThinkTime(t *testing.T) {
	g := playerstest.MustGame(t, "connect4")
	const sleep = 5 * time.Millisecond
	fs := []*players.Factory{
		{Name: "slow", New: func(*rand.Rand) (players.Player, error) { return slow{sleep}, nil }},
		playerstest.MustFactories(t, g, "random")[0],
	}
	var recs []GameRecord
	cfg := MatchConfig{Games: 4, Parallel: 2, Seed: 9, RandomPlies: 2,
		Record: func(r GameRecord) error { recs = append(recs, r); return nil }}
	res, err := Match(context.Background(), cfg, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Think == nil {
			t.Fatalf("game %d: no think time", r.Index)
		}
		plies := len(strings.TrimSpace(r.Moves))
		if got := r.Think.Moves[0] + r.Think.Moves[1]; got != plies-r.OpeningPlies {
			t.Errorf("game %d: %d moves timed, want %d plies less %d random", r.Index, got, plies, r.OpeningPlies)
		}
		for side, seat := range r.Seats {
			per := r.Think.Seconds[side] / float64(max(r.Think.Moves[side], 1))
			if seat == 0 && per < sleep.Seconds() {
				t.Errorf("game %d: the slow player measured at %.4f s a move, sleeps %v", r.Index, per, sleep)
			}
			if seat == 1 && per > sleep.Seconds()/5 {
				t.Errorf("game %d: random measured at %.4f s a move", r.Index, per)
			}
		}
	}
	tl, err := Tally(g, recs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Players {
		a, okA := res.SecondsPerMove(i)
		b, okB := tl.SecondsPerMove(i)
		if !okA || !okB || math.Abs(a-b) > 1e-9 || res.ThinkMoves[i] != tl.ThinkMoves[i] {
			t.Errorf("player %d: match %.6f s a move over %d, tally of the records %.6f over %d", i, a, res.ThinkMoves[i], b, tl.ThinkMoves[i])
		}
	}
	old := withoutThink(recs)
	if tl, err = Tally(g, old); err != nil {
		t.Fatal(err)
	}
	if _, ok := tl.SecondsPerMove(0); ok {
		t.Error("records without think time gave a time a move")
	}
}
