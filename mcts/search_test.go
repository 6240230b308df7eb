package mcts

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"tabula/games"
)

func matchConfig(sims int) Config {
	cfg := DefaultConfig()
	cfg.Simulations = sims
	cfg.DirichletEpsilon = 0
	cfg.TemperatureMoves = 0
	return cfg
}

// Boards as move strings (columns 1-7); want lists the acceptable columns.
var tacticalCases = []struct {
	name, moves string
	want        []int
}{
	{"vertical win", "121212", []int{1}},
	{"horizontal win, two ways", "445566", []int{3, 7}},
	{"block horizontal", "717263", []int{4}},
	{"block vertical", "12131", []int{1}},
	{"win rather than block", "1212123", []int{2}},
}

// checkTactic fails t unless p plays one of the columns want (1-7) at the
// Connect Four position after moves; what prefixes the message.
func checkTactic(t *testing.T, p interface {
	ChooseAction(context.Context, games.State) (int, error)
}, moves string, want []int, what string) {
	t.Helper()
	a, err := p.ChooseAction(context.Background(), position(t, moves))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(want, a+1) {
		t.Errorf("%splayed %d, want one of %v", what, a+1, want)
	}
}

func TestTacticsUniform(t *testing.T) {
	for _, tc := range tacticalCases {
		for _, batch := range []int{1, 8} {
			t.Run(tc.name, func(t *testing.T) {
				cfg := matchConfig(800)
				cfg.BatchSize = batch
				p, err := NewPlayer(cfg, UniformEvaluator{}, newRNG(1))
				if err != nil {
					t.Fatal(err)
				}
				checkTactic(t, p, tc.moves, tc.want, fmt.Sprintf("batch %d: ", batch))
			})
		}
	}
}

func TestTacticsUCT(t *testing.T) {
	for _, tc := range tacticalCases {
		t.Run(tc.name, func(t *testing.T) {
			u, err := NewUCT(UCTConfig{Rollouts: 3000, C: math.Sqrt2}, newRNG(2))
			if err != nil {
				t.Fatal(err)
			}
			checkTactic(t, u, tc.moves, tc.want, "")
		})
	}
}

// TestOracle gives PUCT exact values near the end of random Connect Four
// games and checks that it always picks a move of the best exact value.
func TestOracle(t *testing.T) {
	g := connect4Game(t)
	rng := newRNG(7)
	memo := map[uint64]int8{}
	tested, decisive := 0, 0
	for tested < 40 {
		s := g.NewInitialState()
		for s.MoveNumber() < 30 && !s.IsTerminal() {
			legal := s.LegalActions(nil)
			s.ApplyAction(legal[rng.IntN(len(legal))])
		}
		if s.IsTerminal() {
			continue
		}
		// Exact value of each move.
		best := int8(-2)
		vals := map[int]int8{}
		for _, a := range s.LegalActions(nil) {
			c := s.Clone()
			c.ApplyAction(a)
			v := int8(c.Returns()[s.CurrentPlayer()])
			if !c.IsTerminal() {
				v = -negamax(c, memo)
			}
			vals[a] = v
			best = max(best, v)
		}
		distinct := false
		for _, v := range vals {
			distinct = distinct || v != best
		}
		if !distinct {
			continue // every move is as good: nothing to test
		}
		tested++
		p, err := NewPlayer(matchConfig(400), oracle{memo}, newRNG(uint64(tested)))
		if err != nil {
			t.Fatal(err)
		}
		a, err := p.ChooseAction(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if vals[a] != best {
			t.Errorf("position\n%s\nplayed %d of value %d; exact values %v", s, a+1, vals[a], vals)
		}
		if best != 0 {
			decisive++
		}
	}
	if decisive < 10 {
		t.Errorf("only %d of the positions are decisive; the test is too weak", decisive)
	}
}

// TestReproducible checks that noise and temperature come from the seed.
func TestReproducible(t *testing.T) {
	run := func(seed uint64) ([]float32, []int) {
		cfg := DefaultConfig()
		cfg.Simulations = 100
		cfg.TemperatureMoves = 100
		s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(seed))
		if err != nil {
			t.Fatal(err)
		}
		st := connect4Game(t).NewInitialState()
		var pis []float32
		var moves []int
		for range 6 {
			r, err := s.Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			pis = append(pis, r.Policy...)
			moves = append(moves, r.Action)
			st.ApplyAction(r.Action)
			if err := s.Advance(r.Action); err != nil {
				t.Fatal(err)
			}
		}
		return pis, moves
	}
	pi1, m1 := run(1)
	pi2, m2 := run(1)
	if !slices.Equal(pi1, pi2) || !slices.Equal(m1, m2) {
		t.Fatalf("same seed, different searches:\n%v %v\n%v %v", m1, pi1, m2, pi2)
	}
	pi3, m3 := run(2)
	if slices.Equal(pi1, pi3) && slices.Equal(m1, m3) {
		t.Fatalf("different seeds, same searches: %v", m1)
	}
	// Without noise and at temperature 0 the seed only breaks ties: the
	// first root visit distribution is then the same for every seed.
}

// TestNoResidue checks that after searches with batches and virtual loss the
// statistics equal the real backups, with and without tree reuse.
func TestNoResidue(t *testing.T) {
	for _, tc := range []struct {
		name         string
		batch, vl    int
		reuse, noise bool
	}{
		{"batch 1", 1, 1, false, false},
		{"batch 16 vl 1", 16, 1, false, true},
		{"batch 32 vl 3 reuse", 32, 3, true, true},
		{"batch 8 vl 0 reuse", 8, 0, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Simulations = 300
			cfg.BatchSize = tc.batch
			cfg.VirtualLoss = tc.vl
			cfg.TreeReuse = tc.reuse
			if !tc.noise {
				cfg.DirichletEpsilon = 0
			}
			s := newRolloutSearch(t, cfg)
			st := position(t, "4444")
			for move := range 8 {
				before := int32(0)
				if tc.reuse && move > 0 {
					before = s.sr.t.nodes[0].n
				}
				r, err := s.Run(context.Background(), st)
				if err != nil {
					t.Fatal(err)
				}
				checkTree(t, &s.sr.t)
				if got := s.sr.t.nodes[0].n; got != before+int32(r.Simulations) || r.Simulations != cfg.Simulations {
					t.Fatalf("move %d: root visits %d, want %d reused + %d new (want %d)", move, got, before, r.Simulations, cfg.Simulations)
				}
				if tc.reuse && move > 0 && before == 0 {
					t.Fatalf("move %d: tree reuse kept nothing", move)
				}
				st.ApplyAction(r.Action)
				if st.IsTerminal() {
					break
				}
				if err := s.Advance(r.Action); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestPolicy checks pi: a distribution, zero on full columns.
func TestPolicy(t *testing.T) {
	for _, forced := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Simulations = 400
		cfg.ForcedPlayouts = forced
		s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(5))
		if err != nil {
			t.Fatal(err)
		}
		st := position(t, "444444111111") // columns 1 and 4 full
		r, err := s.Run(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for a, p := range r.Policy {
			if p < 0 || (!st.IsLegal(a) && p != 0) {
				t.Errorf("forced %v: pi[%d] = %v, legal %v", forced, a, p, st.IsLegal(a))
			}
			sum += float64(p)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("forced %v: pi sums to %v", forced, sum)
		}
		if !st.IsLegal(r.Action) {
			t.Errorf("forced %v: chose illegal action %d", forced, r.Action)
		}
	}
}

func TestForcedPlayoutsPruned(t *testing.T) {
	// With forced playouts every child gets visits; pruning removes them
	// from the target so weak moves get less weight than their raw share.
	cfg := DefaultConfig()
	cfg.Simulations = 400
	cfg.ForcedPlayouts = true
	cfg.DirichletEpsilon = 0.25
	cfg.Solver = false // the solver would prove the win at once and drop the other moves
	s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(6))
	if err != nil {
		t.Fatal(err)
	}
	st := position(t, "121212") // column 1 wins at once
	r, err := s.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	root := s.sr.t.nodes[0]
	total := float64(root.n - 1)
	for _, e := range s.sr.t.edges[root.first : root.first+root.count] {
		raw := float64(e.n) / total
		pi := float64(r.Policy[e.action])
		if e.action == 0 && !(pi > raw) {
			t.Errorf("winning move: pi %v, raw share %v: pruning should raise it", pi, raw)
		}
		if e.action != 0 && !(pi < raw) {
			t.Errorf("losing move %d: pi %v, raw share %v: pruning should lower it", e.action+1, pi, raw)
		}
	}
}

func TestRunErrors(t *testing.T) {
	s, err := NewSearch(DefaultConfig(), UniformEvaluator{}, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), position(t, "1212121")); err == nil {
		t.Error("search of a finished game: no error")
	}
	if err := s.Advance(0); err == nil {
		t.Error("advance before a search: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Run(ctx, position(t, "")); err == nil {
		t.Error("cancelled context: no error")
	}
	if err := s.Advance(0); err != nil {
		t.Errorf("advance after a cancelled search: %v", err)
	}
	full := position(t, "111111")
	if _, err := s.Run(context.Background(), full); err != nil {
		t.Fatal(err)
	}
	if err := s.Advance(0); err == nil {
		t.Error("advance into a full column: no error")
	}
	if _, err := NewSearch(DefaultConfig(), nil, newRNG(1)); err == nil {
		t.Error("nil evaluator: no error")
	}
}

// failing fails every evaluation.
type failing struct{}

func (failing) Evaluate([]games.State, [][]float32, []float32) error {
	return context.DeadlineExceeded
}

func TestEvaluatorErrorRollsBack(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BatchSize = 8
	s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	st := position(t, "44")
	if _, err := s.Run(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	s.eval = failing{}
	if _, err := s.Run(context.Background(), st); err == nil {
		t.Fatal("failing evaluator: no error")
	}
	checkTree(t, &s.sr.t)
}

func TestMoveTime(t *testing.T) {
	cfg := matchConfig(1 << 30)
	cfg.MoveTime = 20 * time.Millisecond
	s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := s.Run(context.Background(), position(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second || r.Simulations < 2 || r.Simulations >= cfg.Simulations {
		t.Errorf("move time 20ms: ran %v, %d playouts", el, r.Simulations)
	}
}
