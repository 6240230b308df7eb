package players

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/games/chess"
	"tabula/internal/cputime"
	"tabula/nn"
	"tabula/search"
)

// tinyNet writes a small network of random weights for g to a temporary
// checkpoint and returns its path and an evaluator of it without a cache,
// the reference the tests compare the searchers with. With saturate set,
// the value head outputs tanh(-50) = -1 for every position: the player to
// move is sure to lose.
func tinyNet(t testing.TB, g games.Game, seed uint64, saturate bool) (string, *nn.Evaluator) {
	t.Helper()
	p, h, w := g.ObservationShape()
	wts, err := nn.NewWeights(nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8},
		nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		t.Fatal(err)
	}
	if saturate {
		clear(wts.ValueFC2.W)
		wts.ValueFC2.B[0] = -50
	}
	path := filepath.Join(t.TempDir(), "tiny.tbn")
	if err := nn.SaveCheckpoint(path, &nn.Checkpoint{Game: g.Name(), Weights: wts}); err != nil {
		t.Fatal(err)
	}
	cfg := nn.DefaultEvaluatorConfig()
	cfg.CacheSize, cfg.Workers = 0, 1
	ev, err := nn.NewEvaluator(cfg, wts, g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ev.Close() })
	return path, ev
}

// netValue is the network's own value of decision s for its player to move.
func netValue(t testing.TB, ev *nn.Evaluator, s games.State) float64 {
	t.Helper()
	pol := [][]float32{make([]float32, s.Game().NumActions())}
	val := []float32{0}
	if err := ev.Evaluate([]games.State{s}, pol, val); err != nil {
		t.Fatal(err)
	}
	return float64(val[0])
}

// buildFactory builds spec for g and closes it when the test ends.
func buildFactory(t testing.TB, g games.Game, spec string) *Factory {
	t.Helper()
	f := mustBuild(t, g, spec)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func newFrom(t *testing.T, f *Factory) Player {
	t.Helper()
	p, err := f.New(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAlphaBetaNetEval checks alphabeta:eval=net in Connect Four with a
// network of random weights: at the horizon the searcher sees the
// network's own value for the player to move, and a search of depth 1
// returns the best of the negated values of the children, for either
// player to move.
func TestAlphaBetaNetEval(t *testing.T) {
	g := mustGame(t, "connect4")
	path, ref := tinyNet(t, g, 1, false)
	f := buildFactory(t, g, `alphabeta:depth=1,eval=net,path="`+path+`"`)
	ab := newFrom(t, f).(*alphaBetaPlayer)
	if ab.net == nil {
		t.Fatal("eval=net: the player has no network leaf")
	}
	s := g.NewInitialState()
	for _, a := range []int{3, 3, 2, 4, 4} {
		if err := games.Play(s, a); err != nil {
			t.Fatal(err)
		}
		var buf []int
		buf = s.LegalActions(buf)
		// The leaf's value is the network's for the player to move.
		if got, want := ab.net.Evaluate(s), netValue(t, ref, s); math.Abs(got-want) > 1e-6 {
			t.Errorf("player %d to move: leaf value %v, network %v", s.CurrentPlayer(), got, want)
		}
		// Depth 1: the best child, each scored by the network for the
		// opponent and negated.
		best, bestMove := math.Inf(-1), -1
		for _, m := range buf {
			c := s.Clone()
			c.ApplyAction(m)
			if c.IsTerminal() {
				t.Fatalf("move %d ends the game: pick a quieter test position", m)
			}
			if v := -netValue(t, ref, c); v > best {
				best, bestMove = v, m
			}
		}
		a, err := ab.ChooseAction(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(ab.Value()-best) > 1e-6 || a != bestMove {
			t.Errorf("player %d to move: depth 1 chose %d value %v, want %d value %v", s.CurrentPlayer(), a, ab.Value(), bestMove, best)
		}
	}
}

// TestAlphaBetaNetEvalInSearchThread checks that eval=net's forward passes
// run in the searcher's goroutine, not in worker goroutines, so that a cpu=
// budget (the search thread's CPU clock) counts them: a search with the
// cache off starts no goroutine, and the factory has nothing to close.
func TestAlphaBetaNetEvalInSearchThread(t *testing.T) {
	g := mustGame(t, "connect4")
	path, _ := tinyNet(t, g, 2, false)
	f := buildFactory(t, g, `alphabeta:depth=3,cache=0,eval=net,path="`+path+`"`)
	if f.Cleanup != nil {
		t.Error("eval=net: the factory holds something to close: a batching evaluator's workers?")
	}
	ab := newFrom(t, f).(*alphaBetaPlayer)
	before := runtime.NumGoroutine()
	if _, err := ab.ChooseAction(context.Background(), g.NewInitialState()); err != nil {
		t.Fatal(err)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("a search with eval=net left %d goroutines running, %d before: the network runs outside the search's thread, where cpu= does not count it", after, before)
	}
	if ab.net.ev.Stats().Evaluated == 0 {
		t.Error("the search evaluated no position with the network")
	}
}

// TestAlphaBetaNetProvenWin gives alpha-beta a network sure that every
// player to move loses (value -1): the leaf values stay strictly inside
// (-1, 1), and a mate in one (chess) and a four in a row (Connect Four)
// are still played with a proven win's value over every move the network
// rates a certain win.
func TestAlphaBetaNetProvenWin(t *testing.T) {
	for _, tc := range []struct {
		game  string
		moves []int
		fen   string
	}{
		{game: "connect4", moves: []int{0, 6, 0, 6, 0, 5}}, // first player to move wins in column 0
		{game: "chess", fen: "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"},
	} {
		g := mustGame(t, tc.game)
		path, _ := tinyNet(t, g, 2, true)
		ab := newFrom(t, buildFactory(t, g, `alphabeta:depth=2,eval=net,path="`+path+`"`)).(*alphaBetaPlayer)
		var s games.State
		if tc.fen != "" {
			cs, err := g.(chess.Game).NewState(tc.fen)
			if err != nil {
				t.Fatal(err)
			}
			s = cs
		} else {
			s = g.NewInitialState()
			for _, a := range tc.moves {
				if err := games.Play(s, a); err != nil {
					t.Fatal(err)
				}
			}
		}
		if v := ab.net.Evaluate(s); !(v > -1 && v < 1) || v > -0.99 {
			t.Errorf("%s: leaf value %v of a saturated network, want in (-1, -0.99]", tc.game, v)
		}
		a, err := ab.ChooseAction(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		c := s.Clone()
		c.ApplyAction(a)
		if !c.IsTerminal() || c.Returns()[s.CurrentPlayer()] != 1 || !search.IsProven(ab.Value()) || ab.Value() < 1 {
			t.Errorf("%s: played %d (value %v), want the winning move with a proven value", tc.game, a, ab.Value())
		}
	}
}

// TestChessNetCentipawns checks the chess mapping of a network's value to
// centipawns: the sign and the logistic scale of the Texel fit, for both
// players to move.
func TestChessNetCentipawns(t *testing.T) {
	g := chess.Game{}
	path, ref := tinyNet(t, g, 3, false)
	ab := newFrom(t, buildFactory(t, g, `alphabeta:depth=1,eval=net,path="`+path+`"`)).(*alphaBetaPlayer)
	s := g.NewInitialState()
	for i, mv := range []string{"e4", "e5", "Nf3"} {
		v := netValue(t, ref, s)
		got := ab.net.Evaluate(s)
		cp := got / s.(*chess.State).Centipawn()
		if math.Abs(math.Tanh(chessNetK*cp/2)-v) > 1e-6 || math.Abs(cp) > maxNetCP {
			t.Errorf("ply %d: %v centipawns for network value %v", i, cp, v)
		}
		a, err := s.(*chess.State).ParseMove(mv)
		if err != nil {
			t.Fatal(err)
		}
		s.ApplyAction(a)
	}
}

// TestExpectimaxNetEval checks expectimax:eval=net in backgammon: at a
// decision the evaluation is the network's value for the player to move;
// at a chance node, the mean over the 21 rolls of the network's values
// after them, for either player; and a search of depth 1 agrees with one
// run on that reference evaluation.
func TestExpectimaxNetEval(t *testing.T) {
	g := mustGame(t, "backgammon")
	path, ref := tinyNet(t, g, 4, false)
	f := buildFactory(t, g, `expectimax:depth=1,eval=net,path="`+path+`"`)
	ep := newFrom(t, f).(*expectiPlayer)
	if ep.net == nil {
		t.Fatal("eval=net: the player has no network leaf")
	}
	refEval := func(s games.State) float64 {
		if !games.IsChanceNode(s) {
			return netValue(t, ref, s)
		}
		cs := s.(games.ChanceState)
		sum := 0.0
		for _, o := range cs.ChanceOutcomes(nil) {
			c := s.Clone()
			c.ApplyAction(o.Action)
			v := netValue(t, ref, c)
			if c.CurrentPlayer() != cs.NextPlayer() {
				v = -v
			}
			sum += o.Prob * v
		}
		return sum
	}
	refSearch, err := search.NewExpecti(search.ExpectiConfig{Depth: 1, Pruning: search.Star2}, refEval)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	s := g.NewInitialState()
	seen := [2]bool{}
	for ply := 0; ply < 12 && !s.IsTerminal(); ply++ {
		cs := s.(*backgammon.State)
		want := refEval(s)
		if got := ep.net.Evaluation(s); math.Abs(got-want) > 1e-6 {
			t.Errorf("ply %d (chance %v, player %d): evaluation %v, want %v", ply, cs.IsChanceNode(), cs.NextPlayer(), got, want)
		}
		if rollDice(t, s, rng) {
			continue
		}
		seen[cs.NextPlayer()] = true
		r, err := refSearch.Search(s)
		if err != nil {
			t.Fatal(err)
		}
		a, err := ep.ChooseAction(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if a != r.Move || math.Abs(ep.Value()-r.Value) > 1e-6 {
			t.Errorf("ply %d: chose %d value %v, reference %d value %v", ply, a, ep.Value(), r.Move, r.Value)
		}
		s.ApplyAction(a)
	}
	if !seen[0] || !seen[1] {
		t.Errorf("decisions of players %v only: play longer", seen)
	}
	// A saturated network stays strictly inside (-1, 1), below a win.
	satPath, _ := tinyNet(t, g, 4, true)
	spec, err := ParseSpec(`expectimax:eval=net,path="` + satPath + `"`)
	if err != nil {
		t.Fatal(err)
	}
	sat, err := loadLeafNet(g, spec)
	if err != nil {
		t.Fatal(err)
	}
	leaf := newNetLeaf(sat, g)
	if v := leaf.Evaluation(g.NewInitialState()); !(v > -1 && v < -0.99) {
		t.Errorf("saturated network at a chance node: %v, want in (-1, -0.99)", v)
	}
}

// TestNetEvalErrors checks the errors of the network keys of alphabeta
// and expectimax.
func TestNetEvalErrors(t *testing.T) {
	c4 := mustGame(t, "connect4")
	bg := mustGame(t, "backgammon")
	c4net, _ := tinyNet(t, c4, 1, false)
	for _, tc := range []struct {
		game games.Game
		spec string
		want string
	}{
		{c4, "alphabeta:eval=net", "eval=net needs path=FILE or model=NAME"},
		{bg, "expectimax:eval=net", "eval=net needs path=FILE or model=NAME"},
		{c4, `alphabeta:path="` + c4net + `"`, "path is for eval=net"},
		{c4, `alphabeta:eval=tuned,path="` + c4net + `"`, "not eval=tuned"},
		{c4, "alphabeta:model=backgammon", "model is for eval=net"},
		{bg, "expectimax:model=backgammon", "model is for eval=net"},
		{bg, "expectimax:eval=pubeval,precision=int8", "precision is for eval=net"},
		{c4, "alphabeta:cache=10", "cache is for eval=net"},
		{bg, `expectimax:eval=net,path="` + c4net + `"`, `checkpoint is for game "connect4", not "backgammon"`},
		{c4, "alphabeta:eval=net,model=backgammon", `checkpoint is for game "backgammon", not "connect4"`},
		{c4, `alphabeta:eval=net,model=backgammon,path="` + c4net + `"`, "not both"},
		{c4, `alphabeta:eval=net,threads=2,path="` + c4net + `"`, "threads=1"},
		{c4, `alphabeta:eval=net,precision=int4,path="` + c4net + `"`, "precision"},
		{c4, "alphabeta:eval=net,path=/nonexistent/x.tbn", "/nonexistent/x.tbn"},
		{bg, "expectimax:eval=nett", "want hand, pubeval, td, rollout or net"},
		{mustGame(t, "othello"), "alphabeta:eval=net,probcut=1,model=backgammon", "probcut and mpc"},
	} {
		sp, err := ParseSpec(tc.spec)
		if err == nil {
			_, err = Build(tc.game, sp)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s in %s: error %v, want one containing %q", tc.spec, tc.game.Name(), err, tc.want)
		}
	}
}

// TestNetLeafAllocs checks that a leaf evaluation allocates nothing once
// warm, answered by the network (no cache) or by the cache.
func TestNetLeafAllocs(t *testing.T) {
	g := mustGame(t, "connect4")
	path, _ := tinyNet(t, g, 1, false)
	for _, cache := range []string{"0", "1024"} {
		f := buildFactory(t, g, `alphabeta:eval=net,cache=`+cache+`,path="`+path+`"`)
		ab := newFrom(t, f).(*alphaBetaPlayer)
		s := g.NewInitialState()
		s.ApplyAction(3)
		ab.net.Evaluate(s)
		if n := testing.AllocsPerRun(200, func() { ab.net.Evaluate(s) }); n != 0 {
			t.Errorf("cache=%s: %v allocations per leaf evaluation, want 0", cache, n)
		}
		if err := ab.net.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkNetLeaf measures one alpha-beta leaf evaluation by a small
// Connect Four network, through the evaluator with and without its cache.
func BenchmarkNetLeaf(b *testing.B) {
	g := mustGame(b, "connect4")
	path, _ := tinyNet(b, g, 1, false)
	for _, cache := range []string{"0", "65536"} {
		b.Run("cache="+cache, func(b *testing.B) {
			f := buildFactory(b, g, `alphabeta:eval=net,cache=`+cache+`,path="`+path+`"`)
			p, err := f.New(rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			leaf := p.(*alphaBetaPlayer).net
			s := g.NewInitialState()
			s.ApplyAction(3)
			leaf.Evaluate(s)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				leaf.Evaluate(s)
			}
			if err := leaf.Err(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkExpectimaxNetMove measures one move of expectimax:depth=1 with
// the shipped backgammon network (cache off, so that the positions
// repeated by the benchmark are evaluated each time), and with pubeval for
// scale, over the decisions of a seeded random game; cpu-ms/move is the
// process's CPU time (the evaluator's workers included), the figure to
// give net's time= in an equal-time match (docs/methods.md).
func BenchmarkExpectimaxNetMove(b *testing.B) {
	g := mustGame(b, "backgammon")
	rng := rand.New(rand.NewPCG(9, 9))
	var positions []games.State
	var buf []int
	for s := g.NewInitialState(); !s.IsTerminal() && len(positions) < 24; {
		if rollDice(b, s, rng) {
			continue
		}
		positions = append(positions, s.Clone())
		buf = s.LegalActions(buf)
		s.ApplyAction(buf[rng.IntN(len(buf))])
	}
	for _, spec := range []string{"expectimax:depth=1,eval=net,model=backgammon,cache=0", "expectimax:depth=1,eval=net,model=backgammon,cache=0,precision=auto", "expectimax:depth=1,eval=pubeval", "expectimax:depth=2,eval=pubeval"} {
		b.Run(spec, func(b *testing.B) {
			f := buildFactory(b, g, spec)
			p, err := f.New(rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			cpu := cputime.Process()
			for b.Loop() {
				if _, err := p.ChooseAction(context.Background(), positions[i%len(positions)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(cputime.Process()-cpu)/1e6/float64(i), "cpu-ms/move")
		})
	}
}

// TestNetEvalConcurrentGames plays two games at once with each eval=net
// player (go test -race): the games' players share one evaluator and have
// buffers of their own.
func TestNetEvalConcurrentGames(t *testing.T) {
	for _, tc := range []struct{ game, spec string }{
		{"connect4", "alphabeta:depth=2,eval=net,cache=64,path="},
		{"backgammon", "expectimax:depth=1,eval=net,path="},
	} {
		g := mustGame(t, tc.game)
		path, _ := tinyNet(t, g, 5, false)
		f := buildFactory(t, g, tc.spec+`"`+path+`"`)
		errs := make(chan error, 2)
		for seed := range uint64(2) {
			p, err := f.New(rand.New(rand.NewPCG(seed, 1)))
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				rng := rand.New(rand.NewPCG(seed, 3))
				s := g.NewInitialState()
				for ply := 0; ply < 16 && !s.IsTerminal(); ply++ {
					a, err := games.SampleChance(s, rng)
					if !games.IsChanceNode(s) {
						a, err = p.ChooseAction(context.Background(), s)
					}
					if err != nil {
						errs <- err
						return
					}
					s.ApplyAction(a)
				}
				errs <- nil
			}()
		}
		for range 2 {
			if err := <-errs; err != nil {
				t.Errorf("%s: %v", tc.spec, err)
			}
		}
	}
}

// TestNetEvalError checks that a search whose network fails (here: a
// network of another game) ends the move with the network's error instead
// of playing on values of 0.
func TestNetEvalError(t *testing.T) {
	for _, tc := range []struct{ game, spec, other string }{
		{"connect4", "alphabeta:depth=2,eval=net,path=", "othello"},
		{"backgammon", "expectimax:depth=1,eval=net,path=", "connect4"},
	} {
		g, other := mustGame(t, tc.game), mustGame(t, tc.other)
		path, _ := tinyNet(t, g, 6, false)
		p := newFrom(t, buildFactory(t, g, tc.spec+`"`+path+`"`))
		otherPath, _ := tinyNet(t, other, 6, false)
		spec, err := ParseSpec(`alphabeta:eval=net,path="` + otherPath + `"`)
		if err != nil {
			t.Fatal(err)
		}
		wrong, err := loadLeafNet(other, spec)
		if err != nil {
			t.Fatal(err)
		}
		switch p := p.(type) {
		case *alphaBetaPlayer:
			p.net.ev = wrong
		case *expectiPlayer:
			p.net.ev = wrong
		default:
			t.Fatalf("%s: player %T", tc.game, p)
		}
		s := g.NewInitialState()
		if games.IsChanceNode(s) {
			s.ApplyAction(backgammon.RollAction(3, 1))
		}
		if _, err := p.ChooseAction(context.Background(), s); err == nil || !strings.Contains(err.Error(), "eval=net") || !strings.Contains(err.Error(), "nn: evaluate") {
			t.Errorf("%s: error %v, want the network's", tc.game, err)
		}
	}
}
