package mcts

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"tabula/games"
)

func selfPlayConfig() Config {
	cfg := DefaultConfig()
	cfg.Simulations = 24
	cfg.GamesInFlight = 4
	cfg.BatchSize = 8
	return cfg
}

func playGames(t *testing.T, cfg Config, eval Evaluator, seed uint64, n int) []GameRecord {
	t.Helper()
	g := connect4Game(t)
	p, err := NewSelfPlay(cfg, g, eval, newRNG(seed))
	if err != nil {
		t.Fatal(err)
	}
	var recs []GameRecord
	err = p.Run(context.Background(), n, func(r GameRecord) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != n {
		t.Fatalf("%d games emitted, want %d", len(recs), n)
	}
	return recs
}

// TestSelfPlayGames replays every emitted game through the checked path and
// checks its result and policy targets.
func TestSelfPlayGames(t *testing.T) {
	g := connect4Game(t)
	for _, tc := range []struct {
		name  string
		tweak func(*Config)
	}{
		{"default", func(*Config) {}},
		{"one game, batch 1", func(c *Config) { c.GamesInFlight, c.BatchSize = 1, 1 }},
		{"more games than batch", func(c *Config) { c.GamesInFlight, c.BatchSize = 8, 3 }},
		{"no reuse, forced playouts", func(c *Config) { c.TreeReuse, c.ForcedPlayouts = false, true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := selfPlayConfig()
			tc.tweak(&cfg)
			recs := playGames(t, cfg, UniformEvaluator{}, 1, 12)
			distinct := map[string]bool{}
			for i, r := range recs {
				s, err := games.Replay(g, r.Actions)
				if err != nil {
					t.Fatalf("game %d: %v", i, err)
				}
				if !s.IsTerminal() || s.Returns() != r.Returns || r.Resigned {
					t.Fatalf("game %d: terminal %v, returns %v, recorded %v", i, s.IsTerminal(), s.Returns(), r.Returns)
				}
				if len(r.Policies) != len(r.Actions) || len(r.RootValues) != len(r.Actions) {
					t.Fatalf("game %d: %d actions, %d policies, %d values", i, len(r.Actions), len(r.Policies), len(r.RootValues))
				}
				n := 0
				err = r.Examples(g, func(s games.State, pi []float32, z float32) error {
					var sum float64
					for a, p := range pi {
						if p != 0 && !s.IsLegal(a) {
							t.Errorf("game %d move %d: pi on illegal action %d", i, s.MoveNumber(), a)
						}
						sum += float64(p)
					}
					if math.Abs(sum-1) > 1e-5 {
						t.Errorf("game %d move %d: pi sums to %v", i, s.MoveNumber(), sum)
					}
					if z != float32(r.Returns[s.CurrentPlayer()]) {
						t.Errorf("game %d move %d: z = %v", i, s.MoveNumber(), z)
					}
					n++
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if n != len(r.Actions) {
					t.Errorf("game %d: %d examples, want %d", i, n, len(r.Actions))
				}
				distinct[g.(games.Notation).FormatActions(r.Actions)] = true
			}
			if len(distinct) < len(recs)/2 {
				t.Errorf("only %d distinct games of %d: temperature and noise do not vary play", len(distinct), len(recs))
			}
		})
	}
}

func TestSelfPlayReproducible(t *testing.T) {
	cfg := selfPlayConfig()
	cfg.PlayoutCap = true
	cfg.FastSimulations = 8
	a := playGames(t, cfg, UniformEvaluator{}, 9, 6)
	b := playGames(t, cfg, UniformEvaluator{}, 9, 6)
	c := playGames(t, cfg, UniformEvaluator{}, 10, 6)
	same := func(x, y []GameRecord) bool {
		for i := range x {
			if !slices.Equal(x[i].Actions, y[i].Actions) || !slices.Equal(x[i].RootValues, y[i].RootValues) {
				return false
			}
			for j := range x[i].Policies {
				if !slices.Equal(x[i].Policies[j], y[i].Policies[j]) {
					return false
				}
			}
		}
		return true
	}
	if !same(a, b) {
		t.Error("same seed, different games")
	}
	if same(a, c) {
		t.Error("different seeds, same games")
	}
}

func TestPlayoutCap(t *testing.T) {
	cfg := selfPlayConfig()
	cfg.Simulations = 8
	cfg.PlayoutCap = true
	cfg.FullSearchFraction = 0.3
	cfg.FastSimulations = 2
	recs := playGames(t, cfg, UniformEvaluator{}, 2, 80)
	full, moves := 0, 0
	for _, r := range recs {
		for _, p := range r.Policies {
			moves++
			if p != nil {
				full++
			}
		}
	}
	// 80 games give ~1500 moves: the standard error of the fraction is ~0.012.
	if f := float64(full) / float64(moves); math.Abs(f-0.3) > 0.05 {
		t.Errorf("%d of %d moves got a full search (%.3f), want about 0.3", full, moves, f)
	}
}

func TestResignation(t *testing.T) {
	cfg := selfPlayConfig()
	cfg.Simulations = 8
	cfg.Resign = true
	cfg.ResignThreshold = -0.9
	cfg.ResignConsecutive = 2
	cfg.NoResignFraction = 0.25
	cfg.Solver = false // it would find real wins for player 1 the evaluator denies
	// Player 0 is winning everywhere by the evaluator's word.
	recs := playGames(t, cfg, biased{0.99}, 3, 200)
	g := connect4Game(t)
	noResign := 0
	for i, r := range recs {
		s, err := games.Replay(g, r.Actions)
		if err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
		if r.NoResign {
			noResign++
			if r.Resigned || !s.IsTerminal() {
				t.Fatalf("no-resign game %d resigned %v, terminal %v", i, r.Resigned, s.IsTerminal())
			}
			// Player 1 sees -0.99 from its second move: it would have
			// resigned before its second move, move index 3.
			if r.WouldResignMove != 3 || r.WouldResignPlayer != 1 {
				t.Fatalf("no-resign game %d: would resign at move %d by player %d", i, r.WouldResignMove, r.WouldResignPlayer)
			}
			if r.FalseResign() != (r.Returns[1] > -1) {
				t.Fatalf("no-resign game %d: FalseResign %v with returns %v", i, r.FalseResign(), r.Returns)
			}
			continue
		}
		if !r.Resigned || r.Returns != [2]float64{1, -1} || len(r.Actions) != 3 || s.IsTerminal() {
			t.Fatalf("game %d: resigned %v, returns %v after %d moves", i, r.Resigned, r.Returns, len(r.Actions))
		}
	}
	if f := float64(noResign) / float64(len(recs)); math.Abs(f-0.25) > 0.08 {
		t.Errorf("%d of %d games without resignation (%.2f), want about 0.25", noResign, len(recs), f)
	}
}

func TestSelfPlayStops(t *testing.T) {
	p, err := NewSelfPlay(selfPlayConfig(), connect4Game(t), UniformEvaluator{}, newRNG(4))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err = p.Run(ctx, 0, func(GameRecord) error {
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Errorf("cancelled after %d games: err %v", n, err)
	}
	stop := errors.New("stop")
	err = p.Run(context.Background(), 0, func(GameRecord) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("emit error: got %v", err)
	}
	p.eval = failing{}
	if err := p.Run(context.Background(), 1, func(GameRecord) error { return nil }); err == nil {
		t.Error("failing evaluator: no error")
	}
}

// TestRandomOpening checks random_opening_plies: every game begins with 0 to
// k moves without a policy target (each count seen), searched moves after
// them, no game ended by a random move, the records replay, and with the
// setting off no move lacks its target.
func TestRandomOpening(t *testing.T) {
	g := connect4Game(t)
	for _, k := range []int{0, 4} {
		cfg := selfPlayConfig()
		cfg.RandomOpeningPlies = k
		seen := map[int]int{}
		for _, r := range playGames(t, cfg, UniformEvaluator{}, 5, 60) {
			j := 0
			for j < len(r.Policies) && r.Policies[j] == nil {
				j++
			}
			for m := j; m < len(r.Policies); m++ {
				if r.Policies[m] == nil {
					t.Fatalf("k=%d: game %v: move %d, after the opening, has no policy target", k, r.Actions, m)
				}
			}
			if j > k || j == len(r.Actions) {
				t.Fatalf("k=%d: game %v: %d random moves", k, r.Actions, j)
			}
			seen[j]++
			n := 0
			if err := r.Examples(g, func(games.State, []float32, float32) error { n++; return nil }); err != nil {
				t.Fatalf("k=%d: game %v: %v", k, r.Actions, err)
			}
			if n != len(r.Actions)-j {
				t.Fatalf("k=%d: game %v: %d examples, want %d", k, r.Actions, n, len(r.Actions)-j)
			}
		}
		if len(seen) != k+1 {
			t.Fatalf("k=%d: random opening lengths %v, want each of 0..%d", k, seen, k)
		}
	}
	cfg := DefaultConfig()
	cfg.RandomOpeningPlies = -1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "random_opening_plies") {
		t.Fatalf("random_opening_plies -1: %v", err)
	}
}

// TestFalseResignScale checks FalseResign against the -1 a resignation
// records: a loss of -1 was no false resignation, a smaller loss (a single
// game of backgammon:scoring=money, -1/3), a draw or a win was.
func TestFalseResignScale(t *testing.T) {
	for _, c := range []struct {
		ret  float64
		want bool
	}{{-1, false}, {-2.0 / 3, true}, {-1.0 / 3, true}, {0, true}, {1.0 / 3, true}, {1, true}} {
		r := GameRecord{NoResign: true, WouldResignMove: 5, WouldResignPlayer: 1, Returns: [2]float64{-c.ret, c.ret}}
		if got := r.FalseResign(); got != c.want {
			t.Errorf("would-be resigner's return %v: FalseResign %v, want %v", c.ret, got, c.want)
		}
	}
	if (GameRecord{NoResign: true, WouldResignMove: -1, Returns: [2]float64{1.0 / 3, -1.0 / 3}}).FalseResign() {
		t.Error("FalseResign with no would-be resignation")
	}
}

// TestSelfPlayRootVisits checks the records' root visits under a playout
// cap without tree reuse: every searched move has the visits a fresh search
// of its budget reports (Result.Visits), the full searches' budget where
// the move has a policy target and the fast one where not; the random
// opening moves have none.
func TestSelfPlayRootVisits(t *testing.T) {
	cfg := selfPlayConfig()
	cfg.Simulations, cfg.FastSimulations = 8, 3
	cfg.PlayoutCap, cfg.FullSearchFraction = true, 0.5
	cfg.TreeReuse, cfg.Solver = false, false
	cfg.RandomOpeningPlies = 2
	reported := map[bool]int{}
	for _, full := range []bool{true, false} {
		c := cfg
		if !full {
			c.Simulations = cfg.FastSimulations
		}
		s, err := NewSearch(c, UniformEvaluator{}, newRNG(1))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), connect4Game(t).NewInitialState())
		if err != nil {
			t.Fatal(err)
		}
		reported[full] = res.Visits
	}
	if reported[true] == reported[false] {
		t.Fatalf("full and fast searches both report %d visits", reported[true])
	}
	recs := playGames(t, cfg, UniformEvaluator{}, 3, 6)
	counts := map[bool]int{}
	for k, r := range recs {
		if len(r.RootVisits) != len(r.Actions) {
			t.Fatalf("game %d: %d visit counts for %d actions", k, len(r.RootVisits), len(r.Actions))
		}
		for i, n := range r.RootVisits {
			switch {
			case n == 0: // a random opening move
				if r.Policies[i] != nil {
					t.Errorf("game %d move %d: a policy target without visits", k, i)
				}
			case n != reported[r.Policies[i] != nil]:
				t.Errorf("game %d move %d: %d root visits (full search %v), the search reports %v", k, i, n, r.Policies[i] != nil, reported)
			default:
				counts[r.Policies[i] != nil]++
			}
		}
	}
	if counts[true] == 0 || counts[false] == 0 {
		t.Errorf("searched moves by kind (full: true) %v, want both kinds", counts)
	}
}
