package mcts

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/games/gamestest"
)

// expectimaxValue is the expectimax value of s for the player who moves next (at
// a chance node: the player after it), memoised by hash and move number.
func expectimaxValue(s games.State, memo map[[2]uint64]float64) float64 {
	if s.IsTerminal() {
		r := s.Returns()
		return r[s.(games.ChanceState).NextPlayer()]
	}
	k := [2]uint64{s.Hash(), uint64(s.MoveNumber())}
	if v, ok := memo[k]; ok {
		return v
	}
	cs := s.(games.ChanceState)
	me := cs.NextPlayer()
	var v float64
	if cs.IsChanceNode() {
		for _, o := range cs.ChanceOutcomes(nil) {
			c := s.Clone()
			c.ApplyAction(o.Action)
			v += o.Prob * signFor(c, me) * expectimaxValue(c, memo)
		}
	} else {
		v = math.Inf(-1)
		for _, a := range s.LegalActions(nil) {
			c := s.Clone()
			c.ApplyAction(a)
			v = max(v, signFor(c, me)*expectimaxValue(c, memo))
		}
	}
	memo[k] = v
	return v
}

// signFor is +1 when me is the player whose point of view c's exactValue
// takes, -1 otherwise.
func signFor(c games.State, me int) float64 {
	if c.(games.ChanceState).NextPlayer() == me {
		return 1
	}
	return -1
}

// diceRacePosition plays actions (outcomes and moves) from DiceRace's start.
func diceRacePosition(t *testing.T, actions ...int) games.State {
	t.Helper()
	s := gamestest.DiceRace().NewInitialState()
	for _, a := range actions {
		if err := games.Play(s, a); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestPUCTChance checks PUCT with a uniform evaluator on DiceRace positions
// whose two moves differ in exact (expectimax) value: it picks the better
// move, its root value approaches the exact value (so values cross chance
// nodes with the right sign), and below each move the chance node's
// outcomes get visits in proportion to their probabilities.
func TestPUCTChance(t *testing.T) {
	memo := map[[2]uint64]float64{}
	cases := [][]int{
		// Outcome, move, ..., outcome: the roll of the player to move.
		{1, 0, 0, 0, 2, 0, 1, 0, 0, 0, 1, 0, 1},       // scores 6, 5; roll 2
		{2, 0, 2, 0, 2, 0, 1, 1, 0, 0, 2, 0, 1},       // 7, 7; roll 2
		{0, 0, 2, 0, 1, 0, 2, 0, 2, 1, 1, 0, 2},       // 4, 8; roll 3
		{2, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}, // 5, 4; roll 1 (both moves add 1)
	}
	checked := 0
	for ci, acts := range cases {
		root := diceRacePosition(t, acts...)
		if root.IsTerminal() || games.IsChanceNode(root) {
			t.Fatalf("case %d: not a decision node: %v", ci, root)
		}
		me := root.CurrentPlayer()
		var q [2]float64
		for a := range 2 {
			c := root.Clone()
			c.ApplyAction(a)
			q[a] = signFor(c, me) * expectimaxValue(c, memo)
		}
		exact := max(q[0], q[1])
		cfg := DefaultConfig()
		cfg.Simulations = 6000
		cfg.BatchSize = 4
		cfg.DirichletEpsilon = 0
		cfg.Temperature, cfg.FinalTemperature, cfg.TemperatureMoves = 0, 0, 0
		s, err := NewSearch(cfg, UniformEvaluator{}, rand.New(rand.NewPCG(5, uint64(ci))))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("case %d (%v): exact Q = %.3f, %.3f; PUCT pi = %.3f, %.3f, value %.3f", ci, root, q[0], q[1], res.Policy[0], res.Policy[1], res.Value)
		if math.Abs(q[0]-q[1]) > 0.05 {
			checked++
			best := 0
			if q[1] > q[0] {
				best = 1
			}
			if res.Action != best {
				t.Errorf("case %d: PUCT played %d, the exact best move is %d", ci, res.Action, best)
			}
			if math.Abs(float64(res.Value)-exact) > 0.15 {
				t.Errorf("case %d: root value %.3f, exact %.3f", ci, res.Value, exact)
			}
		}
		tr := &s.sr.t
		r := tr.nodes[0]
		for _, e := range tr.edges[r.first : r.first+r.count] {
			if e.child < 0 || e.n < 500 {
				continue
			}
			c := tr.nodes[e.child]
			if c.status == nodeTerminal {
				continue
			}
			if !c.chance || int(c.player) != 1-me {
				t.Fatalf("case %d: the node after a move is not a chance node of the opponent's roll: %+v", ci, c)
			}
			want := []float64{1.0 / 2, 1.0 / 3, 1.0 / 6}
			total := 0
			for _, ce := range tr.edges[c.first : c.first+c.count] {
				total += int(ce.n)
			}
			for k, ce := range tr.edges[c.first : c.first+c.count] {
				got := float64(ce.n) / float64(total)
				if math.Abs(got-want[k]) > 0.02+4*math.Sqrt(want[k]*(1-want[k])/float64(total)) {
					t.Errorf("case %d: outcome %d visited %.3f of %d times, want %.3f", ci, k, got, total, want[k])
				}
			}
		}
	}
	if checked < 2 {
		t.Errorf("only %d positions with a clear best move", checked)
	}
}

// TestSelfPlayChance checks self-play of a game of chance: the driver draws
// the dice (every chance outcome is recorded without a policy target), the
// training examples are the decision nodes alone, every game replays to its
// recorded result, and a seeded run reproduces.
func TestSelfPlayChance(t *testing.T) {
	g := gamestest.DiceRace()
	play := func(seed uint64) []GameRecord {
		cfg := DefaultConfig()
		cfg.Simulations = 32
		cfg.GamesInFlight = 3
		cfg.BatchSize = 4
		cfg.TemperatureMoves = 4
		p, err := NewSelfPlay(cfg, g, UniformEvaluator{}, rand.New(rand.NewPCG(seed, 9)))
		if err != nil {
			t.Fatal(err)
		}
		var recs []GameRecord
		if err := p.Run(context.Background(), 10, func(r GameRecord) error {
			recs = append(recs, r)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return recs
	}
	recs := play(1)
	if len(recs) != 10 {
		t.Fatalf("%d games, want 10", len(recs))
	}
	rolls := [3]int{}
	for gi, r := range recs {
		s := g.NewInitialState()
		nch := 0
		for i, a := range r.Actions {
			if chance := games.IsChanceNode(s); chance != (r.Policies[i] == nil) {
				t.Fatalf("game %d move %d: chance node %v, policy %v", gi, i, chance, r.Policies[i])
			}
			if games.IsChanceNode(s) {
				rolls[a]++
				nch++
			}
			if err := games.Play(s, a); err != nil {
				t.Fatalf("game %d move %d: %v", gi, i, err)
			}
		}
		if nch != r.ChanceOutcomes {
			t.Errorf("game %d: %d chance outcomes, the record counts %d", gi, nch, r.ChanceOutcomes)
		}
		if !s.IsTerminal() || s.Returns() != r.Returns {
			t.Fatalf("game %d: replay ends at %v (terminal %v), record says %v", gi, s, s.IsTerminal(), r.Returns)
		}
		n := 0
		if err := r.Examples(g, func(s games.State, pi []float32, z float32) error {
			if games.IsChanceNode(s) {
				t.Errorf("game %d: a training example at a chance node", gi)
			}
			if want := float32(r.Returns[s.CurrentPlayer()]); z != want {
				t.Errorf("game %d: z = %v, want %v", gi, z, want)
			}
			n++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n == 0 || n != len(r.Actions)/2 {
			t.Errorf("game %d: %d examples for %d actions", gi, n, len(r.Actions))
		}
	}
	total := rolls[0] + rolls[1] + rolls[2]
	for k, want := range []float64{1.0 / 2, 1.0 / 3, 1.0 / 6} {
		if got := float64(rolls[k]) / float64(total); math.Abs(got-want) > 4*math.Sqrt(want*(1-want)/float64(total)) {
			t.Errorf("roll %d drawn %.3f of %d times, want %.3f", k+1, got, total, want)
		}
	}
	again := play(1)
	for i := range recs {
		if !slices.Equal(recs[i].Actions, again[i].Actions) {
			t.Fatalf("game %d differs between two runs with the same seed", i)
		}
	}
}

// TestTreeReuseThroughChance checks that tree reuse keeps the subtree below
// a move and then below the roll that follows it: the next search starts
// with the visits already spent there.
func TestTreeReuseThroughChance(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Simulations = 400
	cfg.TreeReuse = true
	cfg.DirichletEpsilon = 0
	s, err := NewSearch(cfg, UniformEvaluator{}, rand.New(rand.NewPCG(8, 8)))
	if err != nil {
		t.Fatal(err)
	}
	st := diceRacePosition(t, 1)
	res, err := s.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []int{res.Action, 0} { // the move, then a roll of 1
		if err := s.Advance(a); err != nil {
			t.Fatal(err)
		}
		if err := games.Play(st, a); err != nil {
			t.Fatal(err)
		}
	}
	res2, err := s.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Simulations != 400 || res2.Visits <= 400+50 {
		t.Errorf("after a move and a roll: %d simulations, %d root visits; want the kept subtree's visits too", res2.Simulations, res2.Visits)
	}
}

// TestPUCTBackgammonRolls searches a backgammon opening with a uniform
// evaluator: below the most visited move, the opponent's 21 rolls get
// visits in proportion to their probabilities (1/18, doubles 1/36), and the
// evaluator never sees a chance node.
func TestPUCTBackgammonRolls(t *testing.T) {
	for _, mode := range []string{ChanceSample, ChanceStratified} {
		t.Run(mode, func(t *testing.T) { testBackgammonRolls(t, mode) })
	}
}

// testBackgammonRolls checks that the chance nodes below the root of a
// backgammon search give each roll its share of the visits: within four
// standard errors of its probability when sampled, and within a few visits
// of its expected count, far tighter than independent draws, when
// stratified. The search has ended, so no visit is in flight: the expected
// counts are over each node's real visits, on every node with at least 200.
func testBackgammonRolls(t *testing.T, mode string) {
	g, err := games.New("backgammon")
	if err != nil {
		t.Fatal(err)
	}
	st := g.NewInitialState()
	if err := games.Play(st, backgammon.RollAction(3, 1)); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Simulations = 4000
	cfg.BatchSize = 8
	cfg.Chance = mode
	s, err := NewSearch(cfg, noChanceEvaluator{t}, rand.New(rand.NewPCG(2, 3)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	tr := &s.sr.t
	r := tr.nodes[0]
	checked, worst := 0, 0.0
	for _, me := range tr.edges[r.first : r.first+r.count] {
		if me.child < 0 {
			continue
		}
		c := tr.nodes[me.child]
		if c.status == nodeTerminal || !c.chance {
			continue
		}
		if c.player != 1 || c.count != 21 {
			t.Fatalf("the node after a move is not player 1's roll of 21 outcomes: %+v", c)
		}
		total := 0
		for _, e := range tr.edges[c.first : c.first+c.count] {
			total += int(e.n)
		}
		if total < 200 {
			continue
		}
		checked++
		for _, e := range tr.edges[c.first : c.first+c.count] {
			h, l := backgammon.ActionRoll(int(e.action))
			want := 1.0 / 18
			if h == l {
				want = 1.0 / 36
			}
			dev := math.Abs(float64(e.n) - want*float64(total))
			worst = max(worst, dev)
			limit := 4 * math.Sqrt(want*(1-want)*float64(total))
			if mode == ChanceStratified {
				limit = 3
			}
			if dev > limit {
				t.Errorf("%s: roll %d-%d visited %d of %d times, want %.1f +- %.1f", mode, h, l, e.n, total, want*float64(total), limit)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no chance node below the root has 200 visits")
	}
	t.Logf("%s: %d chance nodes checked, the largest miss %.1f visits", mode, checked, worst)
}

// noChanceEvaluator is UniformEvaluator that fails the test when asked to
// evaluate a chance node.
type noChanceEvaluator struct{ t *testing.T }

func (e noChanceEvaluator) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	for _, s := range states {
		if games.IsChanceNode(s) {
			e.t.Errorf("the evaluator was asked for a chance node: %v", s)
		}
	}
	return UniformEvaluator{}.Evaluate(states, policies, values)
}

// TestPlayerFollowsChance checks that a match player keeps its tree through
// its own move, the opponent's roll and move and its own next roll when
// told the game's actions (Follow), and that actions of another game leave
// a correct fresh search.
func TestPlayerFollowsChance(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Simulations = 800
	p, err := NewPlayer(cfg, UniformEvaluator{}, rand.New(rand.NewPCG(6, 6)))
	if err != nil {
		t.Fatal(err)
	}
	moves := []int{1}
	st := diceRacePosition(t, moves...)
	a, err := p.ChooseAction(context.Background(), st.Clone())
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []int{a, 0, 0, 0} { // our move, a roll of 1, the opponent adds it, a roll of 1
		moves = append(moves, x)
		if err := games.Play(st, x); err != nil {
			t.Fatal(err)
		}
	}
	p.Follow(moves)
	if _, err := p.ChooseAction(context.Background(), st.Clone()); err != nil {
		t.Fatal(err)
	}
	if p.last.Simulations != 800 || p.last.Visits <= 800 {
		t.Errorf("after Follow: %d simulations, %d root visits; want the kept subtree's visits too", p.last.Simulations, p.last.Visits)
	}
	// Actions that are not this game's: the search starts afresh.
	p.Follow([]int{0, 1, 2, 1, 2, 0, 2, 1, 0, 1})
	st2 := diceRacePosition(t, 2)
	if _, err := p.ChooseAction(context.Background(), st2); err != nil {
		t.Fatal(err)
	}
	if p.last.Visits != 800 {
		t.Errorf("after Follow of another game: %d root visits, want a fresh search of 800", p.last.Visits)
	}
}
