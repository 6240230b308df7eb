package match

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"tabula/players/playerstest"
	"testing"

	"tabula/elo"
	"tabula/games"
	_ "tabula/games/othello"
	"tabula/players"
)

// TestAlphaBetaBeatsRandom is the acceptance check: alpha-beta at depth 5
// wins at least 95 of 100 Connect Four games against random play.
func TestAlphaBetaBeatsRandom(t *testing.T) {
	g := playerstest.MustGame(t, "connect4")
	res, err := Match(context.Background(), MatchConfig{Games: 100, Seed: 7}, g, playerstest.MustFactories(t, g, "alphabeta:depth=5 random"))
	if err != nil {
		t.Fatal(err)
	}
	w := res.WDL[0][1]
	t.Logf("alphabeta:depth=5 vs random: %d-%d-%d", w.Wins, w.Draws, w.Losses)
	if w.Games() != 100 || w.Wins < 95 {
		t.Errorf("alphabeta:depth=5 vs random: %d-%d-%d, want >= 95 wins of 100", w.Wins, w.Draws, w.Losses)
	}
	if res.WDL[1][0] != (WDL{Wins: w.Losses, Draws: w.Draws, Losses: w.Wins}) {
		t.Errorf("table not antisymmetric: %+v vs %+v", res.WDL[0][1], res.WDL[1][0])
	}
}

// TestMatchRecords checks the records: colours alternate, every game replays
// legally to the recorded result, records come in order, and the same seed
// gives the same games whatever the parallelism.
func TestMatchRecords(t *testing.T) {
	g := playerstest.MustGame(t, "connect4")
	play := func(parallel int, seed uint64) ([]GameRecord, *MatchResult) {
		var recs []GameRecord
		cfg := MatchConfig{Games: 4, Parallel: parallel, Seed: seed, RandomPlies: 2,
			Record: func(r GameRecord) error { recs = append(recs, r); return nil }}
		res, err := Match(context.Background(), cfg, g, playerstest.MustFactories(t, g, "greedy random alphabeta:depth=2"))
		if err != nil {
			t.Fatal(err)
		}
		return recs, res
	}
	recs, res := play(1, 42)
	if len(recs) != 12 {
		t.Fatalf("%d records, want 3 pairs x 4 games", len(recs))
	}
	var total WDL
	for i, r := range recs {
		if r.Index != i {
			t.Errorf("record %d has index %d", i, r.Index)
		}
		if r.Seats[0] == r.Seats[1] || res.Players[r.Seats[0]] != r.Players[0] || res.Players[r.Seats[1]] != r.Players[1] {
			t.Errorf("record %d: seats %v players %v", i, r.Seats, r.Players)
		}
		if i%4 > 0 && r.Seats != [2]int{recs[i-1].Seats[1], recs[i-1].Seats[0]} {
			t.Errorf("record %d: colours did not alternate: %v after %v", i, r.Seats, recs[i-1].Seats)
		}
		s, _, err := games.ParseAndReplay(g, r.Moves)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !s.IsTerminal() || s.Returns() != r.Result {
			t.Errorf("record %d: replay ends terminal=%v returns %v, recorded %v", i, s.IsTerminal(), s.Returns(), r.Result)
		}
		switch r.Winner {
		case 0, 1:
			if r.Result[r.Winner] != 1 {
				t.Errorf("record %d: winner %d but result %v", i, r.Winner, r.Result)
			}
			total.Wins++
		case -1:
			total.Draws++
		}
	}
	var counted WDL
	for i := range res.Players {
		tt := res.Total(i)
		counted.Wins += tt.Wins
		counted.Draws += tt.Draws
	}
	if counted.Wins != total.Wins || counted.Draws != 2*total.Draws {
		t.Errorf("table counts %+v do not match the records %+v", counted, total)
	}
	again, _ := play(3, 42)
	if !reflect.DeepEqual(withoutThink(recs), withoutThink(again)) {
		t.Error("same seed, parallel 3: different games than parallel 1")
	}
	other, _ := play(2, 43)
	if reflect.DeepEqual(withoutThink(recs), withoutThink(other)) {
		t.Error("a different seed replayed the same games")
	}
}

func TestMatchOthelloRatings(t *testing.T) {
	g := playerstest.MustGame(t, "othello:size=6")
	res, err := Match(context.Background(), MatchConfig{Games: 6, Seed: 1}, g, playerstest.MustFactories(t, g, "random,greedy,random"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Players[2] != "random#2" {
		t.Errorf("repeated name: %q, want random#2", res.Players[2])
	}
	r, err := res.Ratings(elo.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Players {
		if !(r.Low[i] <= r.Elo[i] && r.Elo[i] <= r.High[i]) {
			t.Errorf("player %d: rating %v outside its interval [%v, %v]", i, r.Elo[i], r.Low[i], r.High[i])
		}
	}
}

func TestMatchErrors(t *testing.T) {
	g := playerstest.MustGame(t, "connect4")
	fs := playerstest.MustFactories(t, g, "random random")
	for _, cfg := range []MatchConfig{{Games: 0}, {Games: 1, Parallel: -1}, {Games: 1, RandomPlies: -1}} {
		if _, err := Match(context.Background(), cfg, g, fs); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	if _, err := Match(context.Background(), MatchConfig{Games: 1}, g, fs[:1]); err == nil {
		t.Error("one player: no error")
	}
	// A player that plays an illegal move is named in the error.
	bad := &players.Factory{Name: "cheat", New: func(*rand.Rand) (players.Player, error) { return cheat{}, nil }}
	_, err := Match(context.Background(), MatchConfig{Games: 2, Seed: 1}, g, []*players.Factory{fs[0], bad})
	if err == nil || !strings.Contains(err.Error(), "cheat") || !strings.Contains(err.Error(), "illegal move") {
		t.Errorf("illegal move: error %v, want one naming the player and the illegal move", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Match(ctx, MatchConfig{Games: 2}, g, fs); err == nil {
		t.Error("cancelled context: no error")
	}
}

// cheat always plays action 99, which no game here has.
type cheat struct{}

func (cheat) Name() string { return "cheat" }
func (cheat) ChooseAction(context.Context, games.State) (int, error) {
	return 99, nil
}

func TestMatchUCT(t *testing.T) {
	g := playerstest.MustGame(t, "connect4")
	res, err := Match(context.Background(), MatchConfig{Games: 4, Seed: 2}, g, playerstest.MustFactories(t, g, "mcts:rollouts=200,random"))
	if err != nil {
		t.Fatal(err)
	}
	if w := res.WDL[0][1]; w.Games() != 4 || w.Wins < 3 {
		t.Errorf("mcts:rollouts=200 vs random: %+v, want at least 3 wins of 4", w)
	}
}

func BenchmarkMatch(b *testing.B) {
	g := playerstest.MustGame(b, "connect4")
	fs := playerstest.MustFactories(b, g, "alphabeta:depth=4 greedy")
	b.ReportAllocs()
	games := 0
	for b.Loop() {
		if _, err := Match(context.Background(), MatchConfig{Games: 8, Parallel: 1, Seed: uint64(games)}, g, fs); err != nil {
			b.Fatal(err)
		}
		games += 8
	}
	b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
}

// stall is a player that waits for its match to stop.
type stall struct{}

func (stall) Name() string { return "stall" }
func (stall) ChooseAction(ctx context.Context, _ games.State) (int, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

// TestMatchStoppedRecordsWhatItCounts stops a match while one early game
// hangs and later games have finished: every game the result counts is
// recorded (in game order, with the hung game's gap), so a match file
// tallies to what the interrupted match printed.
func TestMatchStoppedRecordsWhatItCounts(t *testing.T) {
	g := playerstest.MustGame(t, "connect4")
	fs := playerstest.MustFactories(t, g, "random")
	var made atomic.Int32
	hangFirst := &players.Factory{Name: "hangs-once", New: func(rng *rand.Rand) (players.Player, error) {
		if made.Add(1) == 1 {
			return stall{}, nil
		}
		return fs[0].New(rng)
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var recorded []int
	cfg := MatchConfig{Games: 1000, Parallel: 2, Seed: 1,
		Record: func(r GameRecord) error { recorded = append(recorded, r.Index); return nil },
		Progress: func(done, _ int) {
			if done >= 6 {
				cancel()
			}
		}}
	res, err := Match(ctx, cfg, g, []*players.Factory{hangFirst, fs[0]})
	if err == nil || res == nil {
		t.Fatalf("stopped match: result %v, error %v; want both", res, err)
	}
	counted := res.Total(0).Games()
	if counted < 6 {
		t.Fatalf("counted %d games, want >= 6", counted)
	}
	if len(recorded) != counted {
		t.Errorf("recorded %d games %v, the result counts %d", len(recorded), recorded, counted)
	}
	if !slices.IsSorted(recorded) {
		t.Errorf("records out of order: %v", recorded)
	}
}

// TestOpeningNeverPasses: Go's random opening plies draw from every legal
// move but the pass (a pass answered by a pass would end the game before the
// players have moved), so none of 400 random plies is a pass; 1 in 26 would
// be otherwise.
func TestOpeningNeverPasses(t *testing.T) {
	g := playerstest.MustGame(t, "go:size=5")
	const plies = 10
	var recs []GameRecord
	cfg := MatchConfig{Games: 40, Parallel: 1, Seed: 9, RandomPlies: plies,
		Record: func(r GameRecord) error { recs = append(recs, r); return nil }}
	if _, err := Match(context.Background(), cfg, g, playerstest.MustFactories(t, g, "random random")); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		moves := strings.Fields(r.Moves)
		if len(moves) < plies {
			t.Fatalf("record %d: %d moves, fewer than the %d random plies", r.Index, len(moves), plies)
		}
		for i, m := range moves[:plies] {
			if m == "pass" {
				t.Errorf("record %d: random opening ply %d is a pass: %s", r.Index, i+1, r.Moves)
			}
		}
	}
}

// TestRandomOpeningsPaired: the two games of a mirrored pair (2m, 2m+1)
// start from the same random plies with the colours swapped, the record
// says how many plies were not the players', and the result counts the
// pairs, as Tally does from the records.
func TestRandomOpeningsPaired(t *testing.T) {
	g := playerstest.MustGame(t, "connect4")
	const plies = 4
	var recs []GameRecord
	var mu sync.Mutex
	cfg := MatchConfig{Games: 20, Parallel: 2, Seed: 5, RandomPlies: plies,
		Record: func(r GameRecord) error { mu.Lock(); recs = append(recs, r); mu.Unlock(); return nil }}
	res, err := Match(context.Background(), cfg, g, playerstest.MustFactories(t, g, "alphabeta:depth=2 random"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Index < recs[j].Index })
	openings := map[string]bool{}
	nt := g.(games.Notation)
	for m := 0; m+1 < len(recs); m += 2 {
		a, err := nt.ParseActions(recs[m].Moves)
		if err != nil {
			t.Fatal(err)
		}
		b, err := nt.ParseActions(recs[m+1].Moves)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(a[:plies]) != fmt.Sprint(b[:plies]) {
			t.Errorf("games %d and %d open differently: %v / %v", m, m+1, a[:plies], b[:plies])
		}
		if recs[m].Seats == recs[m+1].Seats {
			t.Errorf("games %d and %d have the same colours", m, m+1)
		}
		openings[fmt.Sprint(a[:plies])] = true
	}
	for _, r := range recs {
		if r.OpeningPlies != plies {
			t.Errorf("game %d: opening_plies %d, want %d", r.Index, r.OpeningPlies, plies)
		}
	}
	if len(openings) < 5 {
		t.Errorf("only %d distinct openings in 10 pairs", len(openings))
	}
	if res.Pairs == nil || res.Pairs[0][1].N != 10 {
		t.Fatalf("pairs %v, want 10 pairs of player 0 against 1", res.Pairs)
	}
	tl, err := Tally(g, recs)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Pairs == nil || tl.Pairs[0][1] != res.Pairs[0][1] {
		t.Fatalf("Tally's pairs %v, Match's %v", tl.Pairs, res.Pairs)
	}
	// Without openings, random plies or chance, games are not paired.
	res, err = Match(context.Background(), MatchConfig{Games: 2, Parallel: 1, Seed: 5}, g, playerstest.MustFactories(t, g, "alphabeta:depth=1 random"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Pairs != nil {
		t.Fatal("a deterministic start is counted as pairs")
	}
}
