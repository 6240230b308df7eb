package endgame

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	"tabula/games/othello"
	"tabula/mcts"
	"tabula/search/othelloend"
)

func newGame(t testing.TB, spec string) games.Game {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// randomPosition plays random moves from the start until at most empties
// squares are empty (or the game ends), and returns the position.
func randomPosition(g games.Game, rng *rand.Rand, empties int) *othello.State {
	for {
		st := g.NewInitialState().(*othello.State)
		var buf []int
		for !st.IsTerminal() && emptiesOf(st) > empties {
			buf = st.LegalActions(buf[:0])
			st.ApplyAction(buf[rng.IntN(len(buf))])
		}
		if !st.IsTerminal() {
			return st
		}
	}
}

func emptiesOf(st *othello.State) int {
	g := st.Game().(*othello.Game)
	p, o := st.Boards()
	return g.Size()*g.Size() - bits.OnesCount64(p|o)
}

// exact returns the game-theoretic value of st for player 0, by a full
// solve.
func exact(t testing.TB, s *othelloend.Solver, st *othello.State) float32 {
	t.Helper()
	if st.IsTerminal() {
		return float32(st.Returns()[0])
	}
	p, o := st.Boards()
	score, _ := s.Solve(p, o)
	v := float32(0)
	switch {
	case score > 0:
		v = 1
	case score < 0:
		v = -1
	}
	if st.CurrentPlayer() != 0 {
		v = -v
	}
	return v
}

func TestConfigureRefuses(t *testing.T) {
	cases := []struct {
		game    string
		endgame int
		solver  bool
		want    string
	}{
		{"go:size=5", 10, true, "game go"},
		{"connect4", 21, true, "want 1..20 empty cells"},
		{"connect4", 10, false, "needs the MCTS-solver"},
		{"othello", 17, true, "want 1..16"},
		{"othello:size=6", 10, false, "needs the MCTS-solver"},
	}
	for _, c := range cases {
		cfg := mcts.DefaultConfig()
		cfg.Endgame, cfg.Solver = c.endgame, c.solver
		err := Configure(&cfg, newGame(t, c.game))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s endgame=%d solver=%v: err %v, want one containing %q", c.game, c.endgame, c.solver, err, c.want)
		}
	}
	cfg := mcts.DefaultConfig()
	cfg.Prover = &othelloMaker{empties: 4, size: 8}
	if err := Configure(&cfg, newGame(t, "connect4")); err != nil || cfg.Prover != nil {
		t.Errorf("endgame 0: err %v, prover set %v; want no error and no prover", err, cfg.Prover != nil)
	}
	// A search asked for an endgame with no prover refuses at construction.
	cfg.Endgame = 8
	if _, err := mcts.NewSearch(cfg, uniform{favour: -1}, rand.New(rand.NewPCG(1, 2))); err == nil || !strings.Contains(err.Error(), "no exact prover") {
		t.Errorf("NewSearch with endgame and no prover: err %v", err)
	}
}

// TestProveAgreesWithSolver checks the prover's verdicts against full
// solves on random 8x8 and 6x6 positions, and that it declines positions
// beyond its reach.
func TestProveAgreesWithSolver(t *testing.T) {
	for _, spec := range []string{"othello", "othello:size=6"} {
		g := newGame(t, spec)
		cfg := mcts.DefaultConfig()
		cfg.Endgame = 10
		if err := Configure(&cfg, g); err != nil {
			t.Fatal(err)
		}
		pr := cfg.Prover.NewProver().(*Othello)
		ref, err := othelloend.New(othelloend.Config{TTBits: 16, Size: g.(*othello.Game).Size()})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(7, uint64(len(spec))))
		seen := map[float32]int{}
		for i := 0; i < 300; i++ {
			st := randomPosition(g, rng, 1+rng.IntN(12))
			v, ok := pr.Prove(st)
			if e := emptiesOf(st); e > 10 {
				if ok {
					t.Fatalf("%s: %d empties proven (%v) beyond endgame=10:\n%v", spec, e, v, st)
				}
				continue
			}
			if !ok {
				t.Fatalf("%s: %d empties not proven:\n%v", spec, emptiesOf(st), st)
			}
			if want := exact(t, ref, st); v != want {
				t.Fatalf("%s: prover says %v for player 0, the full solve %v:\n%v", spec, v, want, st)
			}
			seen[v]++
		}
		if seen[1] == 0 || seen[-1] == 0 {
			t.Errorf("%s: verdicts %v: want wins and losses for player 0 among the samples", spec, seen)
		}
		if pr.Solved == 0 || pr.Nodes() == 0 {
			t.Errorf("%s: Solved %d, Nodes %d: want counts", spec, pr.Solved, pr.Nodes())
		}
	}
}

// uniform is an evaluator with uniform priors and value 0; it counts the
// positions it is asked about. A legal action favour (-1: none) gets
// a prior of 0.99 (a network sure of a move).
type uniform struct {
	calls  *int
	favour int
}

func (u uniform) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	var buf []int
	for i, s := range states {
		buf = s.LegalActions(buf[:0])
		clear(policies[i])
		for _, a := range buf {
			policies[i][a] = 1 / float32(len(buf))
		}
		if u.favour >= 0 && s.IsLegal(u.favour) && len(buf) > 1 {
			for _, a := range buf {
				policies[i][a] = 0.01 / float32(len(buf)-1)
			}
			policies[i][u.favour] = 0.99
		}
		values[i] = 0
		if u.calls != nil {
			*u.calls++
		}
	}
	return nil
}

// TestSearchWithEndgameIsExact searches endgames whose moves differ in
// their exact result with a network that misleads: value 0 and a prior of
// 0.99 on a move worse than the best (a draw where the best wins, if it
// can). With endgame on, every child of the root is proven at its
// expansion, so the network is asked about the root alone, the root is
// solved, and the move played achieves the game-theoretic value (proving
// each leaf only when PUCT first visits it would keep visiting the favoured
// draw). Without endgame the same search asks about hundreds of leaves.
func TestSearchWithEndgameIsExact(t *testing.T) {
	g := newGame(t, "othello")
	ref, err := othelloend.New(othelloend.Config{TTBits: 16})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	tested := 0
	for tested < 25 {
		st := randomPosition(g, rng, 9+rng.IntN(3))
		// The exact value of every legal move, for the player to move.
		me := st.CurrentPlayer()
		sign := float32(1)
		if me != 0 {
			sign = -1
		}
		best := float32(-2)
		vals := map[int]float32{}
		for _, a := range st.LegalActions(nil) {
			c := st.Clone().(*othello.State)
			c.ApplyAction(a)
			vals[a] = sign * exact(t, ref, c)
			best = max(best, vals[a])
		}
		distinct := false
		for _, v := range vals {
			distinct = distinct || v != best
		}
		if !distinct {
			continue // every move has the same result: nothing to test
		}
		tested++
		favour, fv := -1, float32(-2)
		for a, v := range vals {
			if v < best && (v > fv || v == fv && a < favour) {
				favour, fv = a, v
			}
		}
		for _, endgame := range []int{0, 12} {
			res, calls := searchMisled(t, g, st, 400, endgame, favour, uint64(tested))
			if endgame == 0 {
				if calls < 50 {
					t.Fatalf("without endgame the network was asked about %d positions; want many", calls)
				}
				continue
			}
			if calls != 1 {
				t.Errorf("position %d (%d empties): the network was asked about %d positions, want 1 (the root)", tested, emptiesOf(st), calls)
			}
			if vals[res.Action] != best {
				t.Errorf("position %d (%d empties): played %d worth %v, the best move is worth %v (all: %v)\n%v",
					tested, emptiesOf(st), res.Action, vals[res.Action], best, vals, st)
			}
			if res.Value != best {
				t.Errorf("position %d: root value %v, want the exact %v", tested, res.Value, best)
			}
		}
	}
}

// countingMaker records the provers it makes.
type countingMaker struct {
	inner mcts.ProverMaker
	made  []*Othello
}

func (m *countingMaker) NewProver() mcts.Prover {
	p := m.inner.NewProver().(*Othello)
	m.made = append(m.made, p)
	return p
}

// selfPlayConfig is the self-play config of the endgame tests: sims
// simulations, inFlight games at once, batches of 8, endgame 8, changed by
// edit, then configured with g's prover.
func selfPlayConfig(t *testing.T, g games.Game, sims, inFlight int, edit func(*mcts.Config)) mcts.Config {
	t.Helper()
	cfg := mcts.DefaultConfig()
	cfg.Simulations, cfg.GamesInFlight, cfg.BatchSize, cfg.Endgame = sims, inFlight, 8, 8
	edit(&cfg)
	if err := Configure(&cfg, g); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestSelfPlayWithEndgame plays Othello 6x6 self-play games with endgame
// on: the worker's game slots share one prover, which proves leaves near
// the end of each game, and the games finish.
func TestSelfPlayWithEndgame(t *testing.T) {
	g := newGame(t, "othello:size=6")
	cfg := selfPlayConfig(t, g, 64, 3, func(*mcts.Config) {})
	cm := &countingMaker{inner: cfg.Prover}
	cfg.Prover = cm
	sp, err := mcts.NewSelfPlay(cfg, g, uniform{favour: -1}, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.made) != 1 {
		t.Fatalf("%d provers made for %d games in flight, want 1", len(cm.made), cfg.GamesInFlight)
	}
	games := 0
	err = sp.Run(t.Context(), 4, func(mcts.GameRecord) error {
		games++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var solved int64
	for _, p := range cm.made {
		solved += p.Solved
	}
	if solved == 0 {
		t.Error("self-play with endgame = 8 proved no leaf")
	}
	if games != 4 {
		t.Errorf("%d games finished, want 4", games)
	}
}

// searchMisled runs one search of st at sims simulations with endgame N,
// guided by a network of value 0 that puts 0.99 of its prior on favour,
// and returns the result and the positions the network was asked about.
func searchMisled(t *testing.T, g games.Game, st games.State, sims, endgame, favour int, seed uint64) (mcts.Result, int) {
	t.Helper()
	cfg := mcts.DefaultConfig()
	cfg.Simulations = sims
	cfg.DirichletEpsilon = 0
	cfg.Endgame = endgame
	if err := Configure(&cfg, g); err != nil {
		t.Fatal(err)
	}
	calls := 0
	s, err := mcts.NewSearch(cfg, uniform{&calls, favour}, rand.New(rand.NewPCG(1, seed)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	return res, calls
}

// TestSelfPlayWithEndgamePlaysProvenGamesOut: with endgame on, a player
// whose root is proven lost plays on instead of resigning (the rest of the
// game costs one network call a move), so every game reaches its end and
// its late positions and final margin become training targets. The network
// says 0 everywhere, so only proven roots fall below the resign threshold.
func TestSelfPlayWithEndgamePlaysProvenGamesOut(t *testing.T) {
	g := newGame(t, "othello:size=6")
	cfg := selfPlayConfig(t, g, 32, 4, func(c *mcts.Config) {
		c.Resign, c.ResignThreshold, c.ResignConsecutive, c.NoResignFraction = true, -0.99, 1, 0
	})
	sp, err := mcts.NewSelfPlay(cfg, g, uniform{favour: -1}, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	games, decided := 0, 0
	err = sp.Run(t.Context(), 8, func(r mcts.GameRecord) error {
		games++
		if r.Resigned {
			t.Errorf("game %d resigned after %d moves: a proven loss is played out with endgame on", games, len(r.Actions))
		}
		st := g.NewInitialState()
		for _, a := range r.Actions {
			if !st.IsLegal(a) {
				t.Fatalf("game %d: illegal move %d", games, a)
			}
			st.ApplyAction(a)
		}
		if !st.IsTerminal() {
			t.Errorf("game %d stopped before the end (%d moves)", games, len(r.Actions))
		}
		if r.Returns[0] != 0 {
			decided++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if games != 8 || decided == 0 {
		t.Fatalf("%d games, %d decided: want 8 games and some with a loser (who would have resigned)", games, decided)
	}
}

// TestReaches checks each prover's Reaches on random positions of every
// depth: true wherever some child is proven (the search would otherwise
// miss that proof), and false more than one move beyond the prover's reach
// (so that the search skips those nodes' children).
func TestReaches(t *testing.T) {
	for _, spec := range []string{"othello", "othello:size=6", "connect4"} {
		g := newGame(t, spec)
		cfg := mcts.DefaultConfig()
		cfg.Endgame = 8
		if err := Configure(&cfg, g); err != nil {
			t.Fatal(err)
		}
		pr := cfg.Prover.NewProver()
		rng := rand.New(rand.NewPCG(11, uint64(len(spec))))
		reached, skipped := 0, 0
		var buf []int
		for range 400 {
			st := g.NewInitialState()
			for !st.IsTerminal() {
				buf = st.LegalActions(buf[:0])
				childProven := false
				for _, a := range buf {
					c := st.Clone()
					c.ApplyAction(a)
					if _, ok := pr.Prove(c); ok {
						childProven = true
					}
				}
				_, self := pr.Prove(st)
				switch r := pr.Reaches(st); {
				case childProven && !r:
					t.Fatalf("%s: Reaches false where a child is proven:\n%v", spec, st)
				case r:
					reached++
				case !r && self:
					t.Fatalf("%s: Reaches false for a position the prover itself proves:\n%v", spec, st)
				default:
					skipped++
				}
				st.ApplyAction(buf[rng.IntN(len(buf))])
			}
		}
		if reached == 0 || skipped < reached {
			t.Errorf("%s: Reaches true at %d positions and false at %d: want most skipped", spec, reached, skipped)
		}
	}
}
