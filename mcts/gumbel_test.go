package mcts

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/connect4"
	"tabula/internal/fastexp"
)

// scheduleCounts plays schedule seq over m actions ranked 0 (best) to m-1
// with fixed scores and returns the visits each rank gets; it fails when a
// simulation finds no action with the visits the schedule asks for.
func scheduleCounts(t *testing.T, seq []int32, m int) []int {
	t.Helper()
	counts := make([]int, m)
	for i, want := range seq {
		found := false
		for a := range m {
			if int32(counts[a]) == want {
				counts[a]++
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("simulation %d wants an action with %d visits; counts %v", i, want, counts)
		}
	}
	return counts
}

func TestGumbelSchedule(t *testing.T) {
	for _, tc := range []struct {
		n, m   int
		seq    []int32 // the whole schedule, when given
		counts []int   // visits by rank
	}{
		{n: 8, m: 4, seq: []int32{0, 0, 0, 0, 1, 1, 2, 2}, counts: []int{3, 3, 1, 1}},
		{n: 3, m: 4, seq: []int32{0, 0, 0}, counts: []int{1, 1, 1, 0}},
		{n: 3, m: 1, seq: []int32{0, 1, 2}, counts: []int{3}},
		{n: 5, m: 2, seq: []int32{0, 0, 1, 1, 2}, counts: []int{3, 2}},
		{n: 0, m: 7, seq: []int32{}, counts: []int{0, 0, 0, 0, 0, 0, 0}},
		// The paper's n = m log2 m for Connect Four's 7 moves (3 phases).
		{n: 21, m: 7, seq: []int32{0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}, counts: []int{7, 7, 2, 2, 1, 1, 1}},
		// 100 simulations, 7 moves: 4 each, then 8 each for the best 4, then
		// the last 40 shared by the best 2.
		{n: 100, m: 7, counts: []int{32, 32, 12, 12, 4, 4, 4}},
		// 30 (a fast search): 1 each, 2 each for 4, the last 15 for 2.
		{n: 30, m: 7, counts: []int{11, 10, 3, 3, 1, 1, 1}},
		{n: 64, m: 16, counts: []int{15, 15, 7, 7, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}},
		{n: 200, m: 16, counts: []int{49, 49, 21, 21, 9, 9, 9, 9, 3, 3, 3, 3, 3, 3, 3, 3}},
	} {
		seq := gumbelSchedule(nil, tc.n, tc.m)
		if len(seq) != tc.n {
			t.Errorf("n=%d m=%d: schedule of %d simulations", tc.n, tc.m, len(seq))
			continue
		}
		if tc.seq != nil && !slices.Equal(seq, tc.seq) {
			t.Errorf("n=%d m=%d: schedule %v, want %v", tc.n, tc.m, seq, tc.seq)
		}
		if got := scheduleCounts(t, seq, tc.m); !slices.Equal(got, tc.counts) {
			t.Errorf("n=%d m=%d: visits by rank %v, want %v", tc.n, tc.m, got, tc.counts)
		}
	}
}

// banditState is Connect Four that remembers its first move, so that
// banditEval can give every position below a root move the same value.
type banditState struct {
	connect4.State
	first int8
}

func (s *banditState) CopyFrom(src games.State) { *s = *src.(*banditState) }
func (s *banditState) Clone() games.State       { c := *s; return &c }
func (s *banditState) Game() games.Game         { return banditGame{} }
func (s *banditState) ApplyAction(a int) {
	if s.MoveNumber() == 0 {
		s.first = int8(a)
	}
	s.State.ApplyAction(a)
}

type banditGame struct{ connect4.Game }

func (banditGame) NewInitialState() games.State { return &banditState{first: -1} }

// banditEval values every position below root move a at q[a] for the first
// player (a perfect value oracle of a one-step bandit), with priors prior at
// the root and uniform below.
type banditEval struct {
	q, prior []float32
}

func (b banditEval) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	for i, s := range states {
		bs := s.(*banditState)
		if bs.first < 0 {
			copy(policies[i], b.prior)
			values[i] = 0
			continue
		}
		uniformPolicy(s, policies[i])
		values[i] = b.q[bs.first]
		if s.CurrentPlayer() != 0 {
			values[i] = -values[i]
		}
	}
	return nil
}

func gumbelConfig(sims int) Config {
	cfg := DefaultConfig()
	cfg.Search = SearchGumbel
	cfg.Simulations = sims
	cfg.TreeReuse = false
	cfg.Solver = false
	cfg.BatchSize = 1
	cfg.TemperatureMoves = 0 // the survivor is played (the paper's search)
	return cfg
}

func uniform7() []float32 { return []float32{1, 1, 1, 1, 1, 1, 1} }

// TestGumbelSearchVisits checks the root visits of a search against the
// Sequential Halving plan: with exact values the best moves by q get the
// visits of the best ranks, whatever the batch size, and the best survives.
func TestGumbelSearchVisits(t *testing.T) {
	q := []float32{0.1, -0.2, 0.5, 0.3, -0.5, 0.0, 0.2} // ranks: 2, 3, 6, 0, 5, 1, 4
	order := []int{2, 3, 6, 0, 5, 1, 4}
	want := []int32{32, 32, 12, 12, 4, 4, 4}
	for _, batch := range []int{1, 8, 32} {
		cfg := gumbelConfig(101) // the root's evaluation and 100 descents
		cfg.BatchSize = batch
		s, err := NewSearch(cfg, banditEval{q: q, prior: uniform7()}, newRNG(1))
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(context.Background(), banditGame{}.NewInitialState())
		if err != nil {
			t.Fatal(err)
		}
		root := s.sr.t.nodes[0]
		es := s.sr.t.edges[root.first : root.first+root.count]
		for rank, a := range order {
			if es[a].n != want[rank] {
				t.Errorf("batch %d: move %d (rank %d by q) has %d visits, want %d; all: %v", batch, a, rank, es[a].n, want[rank], visits(es))
			}
		}
		if r.Action != 2 || r.Simulations != 101 {
			t.Errorf("batch %d: action %d after %d simulations, want 2 after 101", batch, r.Action, r.Simulations)
		}
		checkTree(t, &s.sr.t)
		checkDistribution(t, r.Policy, 7)
		if best := argmax(r.Policy); best != 2 {
			t.Errorf("batch %d: policy %v peaks at %d, want 2", batch, r.Policy, best)
		}
	}
}

func visits(es []edge) []int32 {
	out := make([]int32, len(es))
	for i, e := range es {
		out[i] = e.n
	}
	return out
}

func argmax(p []float32) int {
	best := 0
	for i := range p {
		if p[i] > p[best] {
			best = i
		}
	}
	return best
}

func checkDistribution(t *testing.T, p []float32, n int) {
	t.Helper()
	var sum float64
	for _, x := range p {
		if !(x >= 0) {
			t.Fatalf("policy %v has a negative or NaN entry", p)
		}
		sum += float64(x)
	}
	if len(p) != n || math.Abs(sum-1) > 1e-5 {
		t.Fatalf("policy %v: length %d, sum %v; want %d entries summing to 1", p, len(p), sum, n)
	}
}

// TestGumbelPicksBestWithOracle: with exact values and n = m log2 m
// simulations, Gumbel search with its noise on picks the best move even when
// the prior puts the least mass on it, and the move it picks is the argmax
// of g + logits + sigma(q) (the paper's policy improvement), checked by
// recomputing that score from the search's noise.
func TestGumbelPicksBestWithOracle(t *testing.T) {
	q := []float32{0.0, -0.1, 0.1, -0.2, 0.6, 0.05, -0.3}
	prior := []float32{0.25, 0.2, 0.2, 0.15, 0.01, 0.1, 0.09}
	for seed := range uint64(40) {
		s, err := NewSearch(gumbelConfig(22), banditEval{q: q, prior: prior}, newRNG(seed))
		if err != nil {
			t.Fatal(err)
		}
		s.sr.explore = true // self-play's noise
		r, err := s.Run(context.Background(), banditGame{}.NewInitialState())
		if err != nil {
			t.Fatal(err)
		}
		if r.Action != 4 {
			t.Fatalf("seed %d: played %d, want the best move 4", seed, r.Action)
		}
		// The argmax over all moves of g + logit + sigma(q), with the
		// visit count of the final search.
		sr := &s.sr
		root := sr.t.nodes[0]
		es := sr.t.edges[root.first : root.first+root.count]
		var maxN int32
		for _, e := range es {
			maxN = max(maxN, e.n)
		}
		scale := float32((50 + float64(maxN)) * 0.5)
		best, bs := -1, float32(math.Inf(-1))
		for j := range es {
			if sc := sr.gScore[j] + scale*q[es[j].action]; sc > bs {
				best, bs = j, sc
			}
		}
		if int(es[best].action) != r.Action {
			t.Fatalf("seed %d: played %d, argmax of g+logit+sigma(q) is %d", seed, r.Action, es[best].action)
		}
	}
	// A real game with a perfect oracle: a Connect Four endgame (Pons'
	// Test_L3_R1, one winning move) searched without the solver.
	memo := map[uint64]int8{}
	st := position(t, "24555313265147651622632244317534477")
	winning := -1
	for _, a := range st.LegalActions(nil) {
		c := st.Clone()
		c.ApplyAction(a)
		if (c.IsTerminal() && c.Returns()[st.CurrentPlayer()] > 0) || (!c.IsTerminal() && negamax(c, memo) == -1) {
			if winning >= 0 {
				t.Fatalf("two winning moves, %d and %d", winning, a)
			}
			winning = a
		}
	}
	if winning < 0 {
		t.Fatal("no winning move")
	}
	m := len(st.LegalActions(nil))
	n := m * bitsCeilLog2(m)
	for seed := range uint64(10) {
		cfg := gumbelConfig(n + 1)
		s, err := NewSearch(cfg, oracle{memo: memo}, newRNG(seed))
		if err != nil {
			t.Fatal(err)
		}
		s.sr.explore = true
		r, err := s.Run(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if r.Action != winning {
			t.Errorf("seed %d, %d simulations over %d moves: played %d, want the winning %d", seed, n, m, r.Action, winning)
		}
	}
}

func bitsCeilLog2(m int) int {
	k := 0
	for 1<<k < m {
		k++
	}
	return k
}

// TestGumbelPolicyConcentrates: pi' puts more mass on the best move as the
// simulations grow (sigma's weight grows with the visits), nearly all of it
// at 400.
func TestGumbelPolicyConcentrates(t *testing.T) {
	q := []float32{0, 0, 0.06, 0, 0, 0, 0}
	prev := float32(0)
	for _, n := range []int{8, 25, 100, 400} {
		s, err := NewSearch(gumbelConfig(n), banditEval{q: q, prior: uniform7()}, newRNG(3))
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(context.Background(), banditGame{}.NewInitialState())
		if err != nil {
			t.Fatal(err)
		}
		checkDistribution(t, r.Policy, 7)
		p := r.Policy[2]
		t.Logf("n=%d: pi'(best) = %.3f", n, p)
		if p <= prev {
			t.Errorf("n=%d: pi'(best) = %v, not above %v at fewer simulations", n, p, prev)
		}
		prev = p
	}
	if prev < 0.95 {
		t.Errorf("pi'(best) = %v at 400 simulations, want >= 0.95", prev)
	}
}

// TestGumbelCompletedQ checks v_mix and the completed Q-values of a node by
// hand: unvisited children take v_mix, visited ones their mean.
func TestGumbelCompletedQ(t *testing.T) {
	var sr searcher
	cfg := gumbelConfig(10)
	sr.cfg = &cfg
	sr.t.reset()
	sr.t.nodes[0] = node{first: 0, count: 3, status: nodeExpanded, v: 0.2}
	sr.t.nodes = append(sr.t.nodes, node{}, node{}) // the visited children
	sr.t.edges = []edge{
		{action: 0, child: 1, n: 2, w: 1.0, p: 0.5},  // q = 0.5
		{action: 1, child: 2, n: 1, w: -0.5, p: 0.3}, // q = -0.5
		{action: 2, child: -1, p: 0.2},
	}
	q := make([]float32, 3)
	if maxN := sr.completedQ(0, q); maxN != 2 {
		t.Errorf("max visits %d, want 2", maxN)
	}
	// v_mix = (0.2 + 3/0.8 * (0.5*0.5 + 0.3*-0.5)) / 4 = (0.2 + 0.375) / 4.
	want := []float32{0.5, -0.5, 0.575 / 4}
	for j := range q {
		if math.Abs(float64(q[j]-want[j])) > 1e-6 {
			t.Errorf("completed q %v, want %v", q, want)
			break
		}
	}
}

// TestGumbelDeterministic: self-play with the same seed plays the same
// games with the same targets; another seed plays others.
func TestGumbelDeterministic(t *testing.T) {
	cfg := selfPlayConfig()
	cfg.Search = SearchGumbel
	cfg.PlayoutCap = true
	cfg.FastSimulations = 8
	rev := func() Evaluator {
		e, err := NewRolloutEvaluator(1, newRNG(5))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	a := playGames(t, cfg, rev(), 9, 6)
	b := playGames(t, cfg, rev(), 9, 6)
	c := playGames(t, cfg, rev(), 10, 6)
	same := true
	for i := range a {
		if !slices.Equal(a[i].Actions, b[i].Actions) {
			t.Fatalf("game %d: %v then %v with the same seed", i, a[i].Actions, b[i].Actions)
		}
		for k := range a[i].Policies {
			if !slices.Equal(a[i].Policies[k], b[i].Policies[k]) {
				t.Fatalf("game %d move %d: policies differ with the same seed", i, k)
			}
		}
		same = same && slices.Equal(a[i].Actions, c[i].Actions)
	}
	if same {
		t.Error("seeds 9 and 10 played the same games")
	}
}

// TestGumbelSelfPlay replays self-play games with Gumbel search: legal,
// finished, targets that are distributions over legal moves on full
// searches and none on fast ones, and targets that are pi' rather than
// visit shares.
func TestGumbelSelfPlay(t *testing.T) {
	g := connect4Game(t)
	for _, tc := range []struct {
		name  string
		tweak func(*Config)
	}{
		{"default", func(*Config) {}},
		{"playout cap", func(c *Config) { c.PlayoutCap, c.FastSimulations, c.FullSearchFraction = true, 6, 0.5 }},
		{"count reused, solver", func(c *Config) { c.CountReused, c.Solver = true, true }},
		{"batch 1, no reuse", func(c *Config) { c.BatchSize, c.GamesInFlight, c.TreeReuse = 1, 2, false }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := selfPlayConfig()
			cfg.Search = SearchGumbel
			tc.tweak(&cfg)
			recs := playGames(t, cfg, UniformEvaluator{}, 2, 8)
			full, fast := 0, 0
			distinct := map[string]bool{}
			for gi, r := range recs {
				distinct[fmtActions(r.Actions)] = true
				s := g.NewInitialState()
				for i, a := range r.Actions {
					if pi := r.Policies[i]; pi != nil {
						full++
						checkDistribution(t, pi, g.NumActions())
						for k, x := range pi {
							if x > 0 && !s.IsLegal(k) {
								t.Fatalf("game %d move %d: policy on illegal move %d", gi, i, k)
							}
						}
					} else {
						fast++
					}
					if err := games.Play(s, a); err != nil {
						t.Fatalf("game %d move %d: %v", gi, i, err)
					}
				}
				if !s.IsTerminal() || s.Returns() != r.Returns {
					t.Fatalf("game %d: replay ends at terminal %v, %v; record says %v", gi, s.IsTerminal(), s.Returns(), r.Returns)
				}
			}
			if cfg.PlayoutCap != (fast > 0) || full == 0 {
				t.Errorf("%d full and %d fast searches with playout cap %v", full, fast, cfg.PlayoutCap)
			}
			if len(distinct) < 4 {
				t.Errorf("%d distinct games of 8: the Gumbel noise should vary them", len(distinct))
			}
		})
	}
}

func fmtActions(a []int) string {
	var b strings.Builder
	for _, x := range a {
		b.WriteByte(byte('1' + x))
	}
	return b.String()
}

// TestGumbelSolver: with the solver, Gumbel search plays a proven win at
// once, and gives no policy to moves proven lost.
func TestGumbelSolver(t *testing.T) {
	cfg := gumbelConfig(200)
	cfg.Solver = true
	s, err := NewSearch(cfg, UniformEvaluator{}, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background(), position(t, "121212")) // column 1 wins at once
	if err != nil {
		t.Fatal(err)
	}
	if r.Action != 0 || r.Value != 1 || r.Policy[0] != 1 || r.Simulations != 1 {
		t.Errorf("column %d, value %v, policy %v, %d simulations: want column 1, 1, all on it, 1", r.Action+1, r.Value, r.Policy, r.Simulations)
	}
	// The first player threatens column 1: every other reply loses.
	s, err = NewSearch(cfg, UniformEvaluator{}, newRNG(2))
	if err != nil {
		t.Fatal(err)
	}
	r, err = s.Run(context.Background(), position(t, "12121"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Action != 0 || r.Policy[0] != 1 {
		t.Errorf("column %d, policy %v: want the block in column 1 with all the policy", r.Action+1, r.Policy)
	}
	checkTree(t, &s.sr.t)
}

// TestGumbelPlayerIsDeterministic: a match player (no noise) plays the
// same move from the same position whatever its seed, when the values
// leave no ties.
func TestGumbelPlayerIsDeterministic(t *testing.T) {
	q := []float32{0.1, -0.2, 0.5, 0.3, -0.5, 0.0, 0.2}
	var moves []int
	for seed := range uint64(5) {
		cfg := gumbelConfig(30)
		p, err := NewPlayer(cfg, banditEval{q: q, prior: uniform7()}, newRNG(seed))
		if err != nil {
			t.Fatal(err)
		}
		a, err := p.ChooseAction(context.Background(), banditGame{}.NewInitialState())
		if err != nil {
			t.Fatal(err)
		}
		moves = append(moves, a)
		checkDistribution(t, p.LastPolicy(), 7)
	}
	for _, a := range moves {
		if a != 2 {
			t.Fatalf("moves %v, want 2 every time", moves)
		}
	}
}

func TestGumbelConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		tweak func(*Config)
		want  string
	}{
		{func(c *Config) { c.Search = "mcts" }, "search"},
		{func(c *Config) { c.GumbelM = 0 }, "gumbel_m"},
		{func(c *Config) { c.GumbelCVisit = -1 }, "gumbel_c_visit"},
		{func(c *Config) { c.GumbelCScale = 0 }, "gumbel_c_scale"},
		{func(c *Config) { c.GumbelCScale = math.NaN() }, "gumbel_c_scale"},
		{func(c *Config) { c.ForcedPlayouts = true }, "forced_playouts"},
	} {
		cfg := DefaultConfig()
		cfg.Search = SearchGumbel
		tc.tweak(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one naming %s", err, tc.want)
		}
	}
	cfg := DefaultConfig()
	cfg.Search = ""
	if err := cfg.Validate(); err != nil {
		t.Errorf("empty search (puct): %v", err)
	}
	cfg.GumbelM = 0 // a Gumbel setting, unused by PUCT
	if err := cfg.Validate(); err != nil {
		t.Errorf("puct with gumbel_m 0: %v", err)
	}
}

// TestGumbelSelectFormula checks the selection below the root against the
// paper's formula computed here in float64 on random node statistics:
// argmax_a pi'(a) - N(a) / (1 + sum_b N(b)), pi' = softmax(log p + sigma(
// completedQ)), visits in flight counted in N.
func TestGumbelSelectFormula(t *testing.T) {
	rng := newRNG(11)
	picked := map[int]int{}
	for trial := range 500 {
		cfg := gumbelConfig(10)
		cfg.GumbelCVisit = []float64{0, 5, 50}[trial%3]
		cfg.GumbelCScale = []float64{0.02, 0.1, 1}[trial%3]
		var sr searcher
		sr.cfg = &cfg
		sr.t.reset()
		k := 2 + rng.IntN(6)
		nd := node{first: 0, count: int32(k), status: nodeExpanded, v: float32(rng.Float64()*2 - 1)}
		var psum float32
		for j := range k {
			e := edge{action: int32(j), child: -1, p: float32(rng.Float64())}
			psum += e.p
			if rng.IntN(3) > 0 {
				e.n = int32(1 + rng.IntN(8))
				e.w = float32(e.n) * float32(rng.Float64()*2-1)
			}
			if rng.IntN(4) == 0 {
				e.vl = 1
			}
			sr.t.edges = append(sr.t.edges, e)
		}
		for j := range sr.t.edges {
			sr.t.edges[j].p /= psum
		}
		sr.t.nodes[0] = nd
		sr.t.nodes = append(sr.t.nodes, node{}) // select from node 1, not the root
		sr.t.nodes[1] = nd
		for j, e := range sr.t.edges {
			if e.n > 0 || e.vl > 0 { // reached: the child has a node
				sr.t.edges[j].child = int32(len(sr.t.nodes))
				sr.t.nodes = append(sr.t.nodes, node{})
			}
		}
		es := sr.t.edges
		// The formula, in float64.
		var sumN, sumP, sumPQ, maxN float64
		for _, e := range es {
			if e.n > 0 {
				sumN += float64(e.n)
				sumP += float64(e.p)
				sumPQ += float64(e.p) * float64(e.w) / float64(e.n)
				maxN = math.Max(maxN, float64(e.n))
			}
		}
		vmix := float64(nd.v)
		if sumN > 0 {
			vmix = (vmix + sumN/sumP*sumPQ) / (1 + sumN)
		}
		logits := make([]float64, k)
		var z, total float64
		for j, e := range es {
			q := vmix
			if e.n > 0 {
				q = float64(e.w) / float64(e.n)
			}
			logits[j] = math.Log(float64(e.p)) + (cfg.GumbelCVisit+maxN)*cfg.GumbelCScale*(q+1)/2
			total += float64(e.n + e.vl)
		}
		mx := slices.Max(logits)
		for j := range logits {
			z += math.Exp(logits[j] - mx)
		}
		want, best := -1, math.Inf(-1)
		for j, e := range es {
			if s := math.Exp(logits[j]-mx)/z - float64(e.n+e.vl)/(1+total); s > best {
				want, best = j, s
			}
		}
		got := int(sr.gumbelSelect(1))
		if got != want {
			t.Fatalf("trial %d: selected %d, the formula gives %d; edges %+v, v %v", trial, got, want, es, nd.v)
		}
		picked[got]++
	}
	if len(picked) < 3 {
		t.Errorf("the random nodes picked only children %v: the test does not vary enough", picked)
	}
}

// TestGumbelOpeningTemperature: a move searched with a temperature is drawn
// from the root visits (varied openings), one without is the survivor.
func TestGumbelOpeningTemperature(t *testing.T) {
	q := []float32{0.1, -0.2, 0.5, 0.3, -0.5, 0.0, 0.2}
	for _, tempMoves := range []int{0, 4} {
		counts := map[int]int{}
		const runs = 200
		for seed := range uint64(runs) {
			cfg := gumbelConfig(101)
			cfg.TemperatureMoves = tempMoves
			cfg.Temperature = 1
			s, err := NewSearch(cfg, banditEval{q: q, prior: uniform7()}, newRNG(seed))
			if err != nil {
				t.Fatal(err)
			}
			s.sr.explore = true
			r, err := s.Run(context.Background(), banditGame{}.NewInitialState())
			if err != nil {
				t.Fatal(err)
			}
			counts[r.Action]++
			if argmax(r.Policy) != 2 {
				t.Fatalf("temperature_moves %d: target %v does not peak at the best move 2", tempMoves, r.Policy)
			}
		}
		if tempMoves == 0 {
			if counts[2] != runs {
				t.Errorf("no temperature: moves %v, want the survivor 2 every time", counts)
			}
			continue
		}
		// Visits 32/32/12/12/4/4/4 of 100: move 2 about 32% of the time,
		// the four least visited about 24% together.
		if f := float64(counts[2]) / runs; f < 0.2 || f > 0.45 || len(counts) < 6 {
			t.Errorf("temperature 1: moves %v, want move 2 about 32%% of the time and most moves played", counts)
		}
	}
}

// TestGumbelNoiseMoves: with gumbel_noise_moves = 2 and no opening
// temperature, only the first two moves of a game are drawn with noise, so
// games that open alike are identical to the end; with the noise on every
// move (0), they are not.
func TestGumbelNoiseMoves(t *testing.T) {
	for _, noiseMoves := range []int{2, 0} {
		cfg := selfPlayConfig()
		cfg.Search = SearchGumbel
		cfg.TemperatureMoves = 0
		cfg.GumbelNoiseMoves = noiseMoves
		cfg.BatchSize = 1 // each tree's search is the same whatever the other games do
		recs := playGames(t, cfg, UniformEvaluator{}, 3, 48)
		byOpening := map[string]map[string]bool{}
		for _, r := range recs {
			o := fmtActions(r.Actions[:2])
			if byOpening[o] == nil {
				byOpening[o] = map[string]bool{}
			}
			byOpening[o][fmtActions(r.Actions)] = true
		}
		varied := 0
		for _, games := range byOpening {
			if len(games) > 1 {
				varied++
			}
		}
		if len(byOpening) < 3 {
			t.Fatalf("gumbel_noise_moves %d: %d distinct openings of 48 games: the first two moves should vary", noiseMoves, len(byOpening))
		}
		if noiseMoves > 0 && varied > 0 {
			t.Errorf("gumbel_noise_moves %d: %d openings continue in more than one way; after move %d the search has no noise", noiseMoves, varied, noiseMoves)
		}
		if noiseMoves == 0 && varied == 0 {
			t.Errorf("gumbel_noise_moves 0: every opening continued one way in 48 games; the noise should vary later moves too")
		}
	}
}

// gumbelSelectRef is gumbelSelect written plainly: completedQ, then the
// softmax and the selection, a pass each.
func (sr *searcher) gumbelSelectRef(i int32) int32 {
	nd := &sr.t.nodes[i]
	es := sr.t.edges[nd.first : nd.first+nd.count]
	q := sr.qBuf(len(es))
	scale := sr.sigmaScale(sr.completedQ(i, q))
	qmax := float32(math.Inf(-1))
	var sumN int32
	for j := range es {
		qmax = max(qmax, q[j])
		sumN += es[j].n + es[j].vl
	}
	var z float32
	for j := range es {
		q[j] = es[j].p * fastexp.NonPos(scale*(q[j]-qmax))
		z += q[j]
	}
	inv := float32(0)
	if z > 0 {
		inv = 1 / z
	}
	skipLost := sr.cfg.Solver && !nd.solved
	invN := 1 / float32(1+sumN)
	best, bi := float32(math.Inf(-1)), -1
	for j := range es {
		e := &es[j]
		if skipLost && sr.lostChild(e, nd.player) {
			continue
		}
		if s := q[j]*inv - float32(e.n+e.vl)*invN; s > best {
			best, bi = s, j
		}
	}
	if bi < 0 {
		bi = 0
	}
	return nd.first + int32(bi)
}

// randomSelectNode gives sr (solver on) a root and, as node 1, a non-root
// node of k children with random priors, visits, values, visits in flight
// and proven children.
func randomSelectNode(sr *searcher, cfg *Config, rng interface {
	IntN(int) int
	Float64() float64
}, k int) {
	sr.cfg = cfg
	sr.t.reset()
	nd := node{first: 0, count: int32(k), status: nodeExpanded, v: float32(rng.Float64()*2 - 1), player: int8(rng.IntN(2))}
	var psum float32
	for j := range k {
		e := edge{action: int32(j), child: -1, p: float32(rng.Float64())}
		if rng.IntN(5) == 0 {
			e.p = 0
		}
		psum += e.p
		if rng.IntN(3) == 0 {
			e.n = int32(1 + rng.IntN(30))
			e.w = float32(e.n) * float32(rng.Float64()*2-1)
		}
		if rng.IntN(8) == 0 {
			e.vl = 1
		}
		sr.t.edges = append(sr.t.edges, e)
	}
	for j := range sr.t.edges {
		if psum > 0 {
			sr.t.edges[j].p /= psum
		}
	}
	sr.t.nodes[0] = nd
	sr.t.nodes = append(sr.t.nodes, nd)
	for j, e := range sr.t.edges {
		if e.n > 0 || e.vl > 0 || rng.IntN(6) == 0 { // reached, or proven before its visit
			c := node{status: nodeExpanded, player: 1 - nd.player}
			if rng.IntN(3) == 0 {
				c.solved, c.sv = true, float32(rng.IntN(3)-1)
			}
			sr.t.edges[j].child = int32(len(sr.t.nodes))
			sr.t.nodes = append(sr.t.nodes, c)
		}
	}
}

// TestGumbelSelectMatchesCompletedQ: selection below the root, written in
// three passes, picks the child the plain composition of completedQ and
// the softmax picks, on random nodes with children visited, in flight,
// proven (won, drawn, lost) and of zero prior.
func TestGumbelSelectMatchesCompletedQ(t *testing.T) {
	rng := newRNG(12)
	picked := map[int32]int{}
	for trial := range 5000 {
		cfg := gumbelConfig(10)
		cfg.Solver = trial%4 != 0
		cfg.GumbelCVisit = []float64{0, 5, 50}[trial%3]
		cfg.GumbelCScale = []float64{0.02, 0.1, 1}[trial%3]
		var sr searcher
		randomSelectNode(&sr, &cfg, rng, 1+rng.IntN(20))
		sr.t.nodes[1].solved = rng.IntN(10) == 0
		got, want := sr.gumbelSelect(1), sr.gumbelSelectRef(1)
		if got != want {
			t.Fatalf("trial %d: selected edge %d, completedQ and the softmax give %d; edges %+v", trial, got, want, sr.t.edges)
		}
		picked[got]++
	}
	if len(picked) < 10 {
		t.Errorf("the random nodes picked only edges %v: the test does not vary enough", picked)
	}
}

// BenchmarkGumbelSelect is selection below the root on a node of 10
// children (Othello 8x8's middle game), 3 of them visited, with the
// solver on: the tree's hottest function in self-play, its data in cache.
func BenchmarkGumbelSelect(b *testing.B) {
	cfg := gumbelConfig(10)
	cfg.Solver = true
	var sr searcher
	sr.cfg = &cfg
	sr.t.reset()
	nd := node{count: 10, status: nodeExpanded, v: 0.1}
	for j := range 10 {
		e := edge{action: int32(j), child: -1, p: float32(j+1) / 55}
		if j%3 == 1 {
			e.n, e.w = int32(j), 0.3*float32(j)
			e.child = int32(len(sr.t.nodes) + 1 + j/3)
		}
		sr.t.edges = append(sr.t.edges, e)
	}
	sr.t.nodes[0] = nd
	sr.t.nodes = append(sr.t.nodes, nd, node{status: nodeExpanded}, node{status: nodeExpanded}, node{status: nodeExpanded})
	for range b.N {
		sr.gumbelSelect(1)
	}
}
