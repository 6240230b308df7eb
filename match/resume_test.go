package match

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
	"tabula/players"
	"tabula/players/playerstest"
)

// playAll plays cfg's match and returns its records and result.
func playAll(t *testing.T, cfg MatchConfig, g games.Game, fs []*players.Factory) ([]GameRecord, *MatchResult) {
	t.Helper()
	var recs []GameRecord
	cfg.Record = func(r GameRecord) error { recs = append(recs, r); return nil }
	res, err := Match(context.Background(), cfg, g, fs)
	if err != nil {
		t.Fatal(err)
	}
	return recs, res
}

// pick returns the records of recs at the given indices.
func pick(recs []GameRecord, idx ...int) []GameRecord {
	var out []GameRecord
	for _, i := range idx {
		out = append(out, recs[i])
	}
	return out
}

// checkResumed resumes cfg's match from the games played (a subset of the
// full match's records full, whose result is want) and checks that it plays
// and records exactly the other games, the same games as the full match,
// in order, and ends with the full match's result.
func checkResumed(t *testing.T, cfg MatchConfig, g games.Game, fs []*players.Factory, full []GameRecord, want *MatchResult, played []GameRecord) {
	t.Helper()
	cfg.Played = played
	recs, res := playAll(t, cfg, g, fs)
	var wantNew []GameRecord
	for _, r := range full {
		if !slices.ContainsFunc(played, func(p GameRecord) bool { return p.Index == r.Index }) {
			wantNew = append(wantNew, r)
		}
	}
	if !reflect.DeepEqual(withoutThink(recs), withoutThink(wantNew)) {
		var got, exp []int
		for _, r := range recs {
			got = append(got, r.Index)
		}
		for _, r := range wantNew {
			exp = append(exp, r.Index)
		}
		t.Fatalf("resumed from %d games: recorded games %v, want %v (or the same indices with other moves)", len(played), got, exp)
	}
	if !reflect.DeepEqual(resultWithoutThink(res), resultWithoutThink(want)) {
		t.Errorf("resumed from %d games: result\n%+v\nwant the full match's\n%+v", len(played), res, want)
	}
}

// TestMatchResumes checks that a match given the games it already played
// (MatchConfig.Played: the start, a scattered set, all of them) plays and
// records only the others, the very games a full run plays, and counts the
// same result: with openings and random plies (Connect Four) and with dice.
func TestMatchResumes(t *testing.T) {
	c4 := playerstest.MustGame(t, "connect4")
	c4cfg := MatchConfig{Games: 4, Parallel: 2, Seed: 42, RandomPlies: 2, Openings: [][]int{{3}, {2, 3}}}
	c4fs := playerstest.MustFactories(t, c4, "greedy random alphabeta:depth=2")
	dice := gamestest.DiceRace()
	dcfg := MatchConfig{Games: 6, Parallel: 3, Seed: 3, RandomPlies: 1}
	sp, _ := players.ParseSpec("random")
	dfs, err := players.BuildAll(dice, []players.Spec{sp, sp})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  MatchConfig
		g    games.Game
		fs   []*players.Factory
	}{{"connect4", c4cfg, c4, c4fs}, {"dice", dcfg, dice, dfs}} {
		t.Run(tc.name, func(t *testing.T) {
			full, want := playAll(t, tc.cfg, tc.g, tc.fs)
			n := len(full)
			checkResumed(t, tc.cfg, tc.g, tc.fs, full, want, nil)
			checkResumed(t, tc.cfg, tc.g, tc.fs, full, want, full[:n/2])
			checkResumed(t, tc.cfg, tc.g, tc.fs, full, want, pick(full, 0, 1, 3, n-1))
			checkResumed(t, tc.cfg, tc.g, tc.fs, full, want, full)
		})
	}
}

// TestMatchResumeRefusesOtherGames checks that records of another match, or
// altered ones, are refused, naming what differs, before anything is played.
func TestMatchResumeRefusesOtherGames(t *testing.T) {
	g := playerstest.MustGame(t, "connect4")
	cfg := MatchConfig{Games: 6, Parallel: 2, Seed: 42, RandomPlies: 2}
	fs := playerstest.MustFactories(t, g, "greedy alphabeta:depth=2")
	names := Names(fs)
	full, _ := playAll(t, cfg, g, fs)
	if err := CheckPlayed(cfg, g, names, full); err != nil {
		t.Fatalf("the match's own records: %v", err)
	}
	alter := func(i int, f func(*GameRecord)) []GameRecord {
		recs := slices.Clone(full)
		f(&recs[i])
		return recs
	}
	otherSeed := cfg
	otherSeed.Seed++
	moreRandom := cfg
	moreRandom.RandomPlies++
	swapped := []string{names[1], names[0]}
	for _, tc := range []struct {
		name  string
		cfg   MatchConfig
		names []string
		recs  []GameRecord
		want  string
	}{
		{"another seed", otherSeed, names, full, "from its random plies (another seed"},
		{"more random plies", moreRandom, names, full, "-random-plies"},
		{"players swapped", cfg, swapped, full, "seat 0 holds"},
		{"index beyond the match", cfg, names, alter(0, func(r *GameRecord) { r.Index = 6 }), "games 0 to 5"},
		{"a game twice", cfg, names, append(slices.Clone(full), full[2]), "recorded twice"},
		{"another game", cfg, names, alter(1, func(r *GameRecord) { r.Game = "othello" }), "a game of \"othello\""},
		{"winner changed", cfg, names, alter(2, func(r *GameRecord) { r.Winner = 1 - max(r.Winner, 0) }), "the moves end in winner"},
		{"moves cut short", cfg, names, alter(3, func(r *GameRecord) { r.Moves = r.Moves[:len(r.Moves)-1] }), "do not end the game"},
		{"an illegal move", cfg, names, alter(4, func(r *GameRecord) { r.Moves += "1111111" }), "move"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckPlayed(tc.cfg, g, tc.names, tc.recs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckPlayed: %v, want an error with %q", err, tc.want)
			}
			cfg := tc.cfg
			cfg.Played = tc.recs
			played := 0
			cfg.Record = func(GameRecord) error { played++; return nil }
			fs := fs
			if tc.names[0] != names[0] {
				fs = []*players.Factory{fs[1], fs[0]}
			}
			if _, err := Match(context.Background(), cfg, g, fs); err == nil || played > 0 {
				t.Fatalf("Match: %v after recording %d games, want the error before any game", err, played)
			}
		})
	}
	// Dice that are not the match's are refused.
	dice := gamestest.DiceRace()
	sp, _ := players.ParseSpec("random")
	dfs, err := players.BuildAll(dice, []players.Spec{sp, sp})
	if err != nil {
		t.Fatal(err)
	}
	dcfg := MatchConfig{Games: 2, Parallel: 1, Seed: 3}
	drecs, _ := playAll(t, dcfg, dice, dfs)
	dcfg.Seed = 4
	if err := CheckPlayed(dcfg, dice, Names(dfs), drecs); err == nil || !strings.Contains(err.Error(), "from its dice") {
		t.Fatalf("records of other dice: %v, want an error naming the dice", err)
	}
}

// TestDropForfeitPairs leaves out forfeited games with their mirror games
// where games are paired (random plies), and only the forfeits where they
// are not; pairs are counted per pairing, in game order, as Tally counts
// them.
func TestDropForfeitPairs(t *testing.T) {
	g := playerstest.MustGame(t, "connect4")
	rec := func(i int, seats [2]int, forfeit bool, opening int) GameRecord {
		r := GameRecord{Index: i, Game: g.Name(), Seats: seats, Players: [2]string{fmt.Sprint(seats[0]), fmt.Sprint(seats[1])}, OpeningPlies: opening}
		if forfeit {
			r.Forfeit = &ForfeitRecord{Side: 0, Player: r.Players[0], Reason: "timed out"}
		}
		return r
	}
	// Three players, 4 games a pairing: games 0-3 are 0 v 1, 4-7 are 0 v 2,
	// 8-11 are 1 v 2. Forfeits in game 3 (its mirror: 2) and game 8 (its
	// mirror: 9).
	var recs []GameRecord
	pairings := [][2]int{{0, 1}, {0, 2}, {1, 2}}
	for p, pr := range pairings {
		for k := range 4 {
			seats := pr
			if k%2 == 1 {
				seats = [2]int{pr[1], pr[0]}
			}
			i := 4*p + k
			recs = append(recs, rec(i, seats, i == 3 || i == 8, 2))
		}
	}
	indices := func(rs []GameRecord) []int {
		var out []int
		for _, r := range rs {
			out = append(out, r.Index)
		}
		return out
	}
	kept, n := DropForfeitPairs(g, recs)
	if want := []int{0, 1, 4, 5, 6, 7, 10, 11}; !reflect.DeepEqual(indices(kept), want) || n != 4 {
		t.Errorf("paired: kept %v (%d left out), want %v", indices(kept), n, want)
	}
	for i := range recs {
		recs[i].OpeningPlies = 0 // a deterministic start: no pairs
	}
	kept, n = DropForfeitPairs(g, recs)
	if want := []int{0, 1, 2, 4, 5, 6, 7, 9, 10, 11}; !reflect.DeepEqual(indices(kept), want) || n != 2 {
		t.Errorf("unpaired: kept %v (%d left out), want %v", indices(kept), n, want)
	}
}
