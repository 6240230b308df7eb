package nn

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"tabula/games"
	"tabula/mcts"
	"tabula/nn/gemm"
)

var _ mcts.Evaluator = (*Evaluator)(nil)

// ttt is tic-tac-toe, a small game for testing the evaluator: 2 planes of
// 3x3 (the mover's marks, the opponent's), 9 actions.
type ttt struct{}

func (ttt) Name() string                      { return "ttt" }
func (ttt) NumActions() int                   { return 9 }
func (ttt) ObservationShape() (int, int, int) { return 2, 3, 3 }
func (ttt) MaxGameLength() int                { return 9 }
func (ttt) NewInitialState() games.State      { return &tttState{} }

type tttState struct {
	cell  [9]int8 // 0 empty, 1 first player, 2 second
	moves int
	hash  uint64
}

var tttZobrist = func() (z [2][9]uint64) {
	rng := rand.New(rand.NewPCG(7, 7))
	for p := range z {
		for a := range z[p] {
			z[p][a] = rng.Uint64()
		}
	}
	return z
}()

var tttLines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

func (s *tttState) winner() int8 {
	for _, l := range tttLines {
		if c := s.cell[l[0]]; c != 0 && c == s.cell[l[1]] && c == s.cell[l[2]] {
			return c
		}
	}
	return 0
}

func (s *tttState) Game() games.Game   { return ttt{} }
func (s *tttState) CurrentPlayer() int { return s.moves % 2 }
func (s *tttState) IsTerminal() bool   { return s.winner() != 0 || s.moves == 9 }
func (s *tttState) IsLegal(a int) bool { return a >= 0 && a < 9 && s.cell[a] == 0 && !s.IsTerminal() }
func (s *tttState) MoveNumber() int    { return s.moves }
func (s *tttState) Hash() uint64       { return s.hash }
func (s *tttState) Clone() games.State { c := *s; return &c }

func (s *tttState) ApplyAction(a int) {
	s.hash ^= tttZobrist[s.moves%2][a]
	s.cell[a] = int8(1 + s.moves%2)
	s.moves++
}

func (s *tttState) LegalActions(buf []int) []int {
	buf = buf[:0]
	if s.IsTerminal() {
		return buf
	}
	for a, c := range s.cell {
		if c == 0 {
			buf = append(buf, a)
		}
	}
	return buf
}

func (s *tttState) Returns() [2]float64 {
	switch s.winner() {
	case 1:
		return [2]float64{1, -1}
	case 2:
		return [2]float64{-1, 1}
	}
	return [2]float64{}
}

func (s *tttState) Observation(dst []float32) {
	me := int8(1 + s.moves%2)
	for a, c := range s.cell {
		dst[a], dst[9+a] = 0, 0
		switch {
		case c == me:
			dst[a] = 1
		case c != 0:
			dst[9+a] = 1
		}
	}
}

func (s *tttState) String() string {
	b := []byte(".........")
	for a, c := range s.cell {
		b[a] = ".XO"[c]
	}
	return string(b)
}

var tttShape = Shape{Planes: 2, Height: 3, Width: 3, Actions: 9}

func tttWeights(t testing.TB, seed uint64) *Weights {
	return randomWeights(t, Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}, tttShape, seed)
}

// tttPositions returns n distinct non-terminal positions reached by random
// play (or fewer if there are not that many).
func tttPositions(n int, seed uint64) []games.State {
	rng := rand.New(rand.NewPCG(seed, 1))
	seen := map[uint64]bool{}
	var out []games.State
	var buf []int
	for tries := 0; len(out) < n && tries < 100*n; tries++ {
		s := ttt{}.NewInitialState()
		for k := rng.IntN(8); k > 0 && !s.IsTerminal(); k-- {
			buf = s.LegalActions(buf)
			s.ApplyAction(buf[rng.IntN(len(buf))])
		}
		if !s.IsTerminal() && !seen[s.Hash()] {
			seen[s.Hash()] = true
			out = append(out, s)
		}
	}
	return out
}

// expected computes what Evaluate must return, independently of the
// evaluator: one Forward per position and a float64 softmax over the legal
// actions.
func expected(t testing.TB, w *Weights, states []games.State) ([][]float32, []float32) {
	t.Helper()
	net, err := NewNet(w, 1)
	if err != nil {
		t.Fatal(err)
	}
	policies, values := make([][]float32, len(states)), make([]float32, len(states))
	obs, logits := make([]float32, 18), make([]float32, 9)
	for i, s := range states {
		s.Observation(obs)
		if err := net.Forward(obs, 1, logits, values[i:i+1]); err != nil {
			t.Fatal(err)
		}
		legal := s.LegalActions(nil)
		var z float64
		for _, a := range legal {
			z += math.Exp(float64(logits[a]))
		}
		policies[i] = make([]float32, 9)
		for _, a := range legal {
			policies[i][a] = float32(math.Exp(float64(logits[a])) / z)
		}
	}
	return policies, values
}

func newPolicies(n int) [][]float32 {
	p := make([][]float32, n)
	for i := range p {
		p[i] = make([]float32, 9)
		for a := range p[i] {
			p[i][a] = -7 // must be overwritten, illegal actions with 0
		}
	}
	return p
}

func checkResults(t testing.TB, states []games.State, gotP [][]float32, gotV []float32, wantP [][]float32, wantV []float32) {
	t.Helper()
	for i := range states {
		var sum float64
		for a := range 9 {
			if d := math.Abs(float64(gotP[i][a] - wantP[i][a])); d > 1e-6 {
				t.Fatalf("position %v: policy[%d] = %g, want %g", states[i], a, gotP[i][a], wantP[i][a])
			}
			if !states[i].IsLegal(a) && gotP[i][a] != 0 {
				t.Fatalf("position %v: illegal action %d has probability %g", states[i], a, gotP[i][a])
			}
			sum += float64(gotP[i][a])
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("position %v: policy sums to %g", states[i], sum)
		}
		if gotV[i] != wantV[i] {
			t.Fatalf("position %v: value = %g, want %g", states[i], gotV[i], wantV[i])
		}
	}
}

func newTestEvaluator(t testing.TB, cfg EvaluatorConfig, w *Weights) *Evaluator {
	t.Helper()
	e, err := NewEvaluator(cfg, w, ttt{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func TestEvaluatorMatchesForward(t *testing.T) {
	w := tttWeights(t, 1)
	states := tttPositions(40, 1)
	wantP, wantV := expected(t, w, states)
	for _, cfg := range []EvaluatorConfig{
		{MaxBatch: 16, MaxWait: time.Millisecond, Workers: 1},
		{MaxBatch: 7, MaxWait: 0, Workers: 2, CacheSize: 100},
		{MaxBatch: 64, MaxWait: time.Millisecond, Workers: 3, CacheSize: 1},
	} {
		e := newTestEvaluator(t, cfg, w)
		for round := range 2 { // the second round is answered by the cache, if any
			p, v := newPolicies(len(states)), make([]float32, len(states))
			if err := e.Evaluate(states, p, v); err != nil {
				t.Fatalf("%+v round %d: %v", cfg, round, err)
			}
			checkResults(t, states, p, v, wantP, wantV)
		}
	}
}

func TestEvaluatorTerminalAndEmpty(t *testing.T) {
	checkTerminalAndEmpty(t, newTestEvaluator(t, EvaluatorConfig{MaxBatch: 4, Workers: 1}, tttWeights(t, 1)))
}

// statsEvaluator is an evaluator that counts its work: Evaluator and
// NetEvaluator.
type statsEvaluator interface {
	mcts.Evaluator
	Stats() EvaluatorStats
}

// checkTerminalAndEmpty checks that e answers an empty request, and a request
// holding a won position and the empty board with a zero policy and value for
// the terminal position, which it neither counts nor evaluates.
func checkTerminalAndEmpty(t *testing.T, e statsEvaluator) {
	t.Helper()
	if err := e.Evaluate(nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	won := ttt{}.NewInitialState()
	for _, a := range []int{0, 3, 1, 4, 2} {
		won.ApplyAction(a)
	}
	open := ttt{}.NewInitialState()
	p, v := newPolicies(2), []float32{5, 5}
	if err := e.Evaluate([]games.State{won, open}, p, v); err != nil {
		t.Fatal(err)
	}
	for a, x := range p[0] {
		if x != 0 {
			t.Errorf("terminal policy[%d] = %g, want 0", a, x)
		}
	}
	if v[0] != 0 {
		t.Errorf("terminal value = %g, want 0", v[0])
	}
	if s := e.Stats(); s.Positions != 1 || s.Evaluated != 1 {
		t.Errorf("stats %+v: want 1 position asked for and evaluated", s)
	}
}

func TestEvaluatorConcurrent(t *testing.T) {
	w := tttWeights(t, 2)
	states := tttPositions(60, 2)
	wantP, wantV := expected(t, w, states)
	e := newTestEvaluator(t, EvaluatorConfig{MaxBatch: 16, MaxWait: 200 * time.Microsecond, Workers: 2, CacheSize: 32}, w)
	const callers, calls = 24, 30
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 3))
			for range calls {
				n := 1 + rng.IntN(4)
				idx := rng.Perm(len(states))[:n]
				sub, subP, subV := make([]games.State, n), make([][]float32, n), make([]float32, n)
				for k, i := range idx {
					sub[k], subP[k], subV[k] = states[i], wantP[i], wantV[i]
				}
				p, v := newPolicies(n), make([]float32, n)
				if err := e.Evaluate(sub, p, v); err != nil {
					t.Error(err)
					return
				}
				checkResults(t, sub, p, v, subP, subV)
			}
		}()
	}
	wg.Wait()
	s := e.Stats()
	if s.Requests != callers*calls {
		t.Errorf("stats %+v: want %d requests", s, callers*calls)
	}
	if s.CacheHits+s.CacheMisses != s.Positions || s.Evaluated != s.CacheMisses {
		t.Errorf("stats %+v: hits+misses should be positions, misses evaluated", s)
	}
}

func TestEvaluatorMergesBatches(t *testing.T) {
	w := tttWeights(t, 3)
	states := tttPositions(8, 3)
	wantP, wantV := expected(t, w, states)
	// A long wait: the batch can only run early by filling up.
	e := newTestEvaluator(t, EvaluatorConfig{MaxBatch: 8, MaxWait: 10 * time.Second, Workers: 1}, w)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range states {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, v := newPolicies(1), make([]float32, 1)
			if err := e.Evaluate(states[i:i+1], p, v); err != nil {
				t.Error(err)
				return
			}
			checkResults(t, states[i:i+1], p, v, wantP[i:i+1], wantV[i:i+1])
		}()
	}
	wg.Wait()
	if s := e.Stats(); s.Requests != 8 || s.Batches != 1 || s.Evaluated != 8 {
		t.Errorf("stats %+v: want 8 requests merged into 1 batch", s)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a full batch waited %v", d)
	}
}

func TestEvaluatorMaxWaitFlushesPartialBatch(t *testing.T) {
	w := tttWeights(t, 4)
	states := tttPositions(3, 4)
	for _, wait := range []time.Duration{0, 30 * time.Millisecond} {
		e := newTestEvaluator(t, EvaluatorConfig{MaxBatch: 64, MaxWait: wait, Workers: 1}, w)
		start := time.Now()
		p, v := newPolicies(3), make([]float32, 3)
		if err := e.Evaluate(states, p, v); err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		if d < wait {
			t.Errorf("max wait %v: answered after %v, before the wait was over", wait, d)
		}
		if s := e.Stats(); s.Evaluated != 3 || s.Batches < 1 || s.Batches > 3 {
			t.Errorf("max wait %v: stats %+v", wait, s)
		}
	}
}

func TestEvaluatorCacheAndSetWeights(t *testing.T) {
	w1, w2 := tttWeights(t, 5), tttWeights(t, 6)
	states := tttPositions(5, 5)
	wantP1, wantV1 := expected(t, w1, states)
	wantP2, wantV2 := expected(t, w2, states)
	e := newTestEvaluator(t, EvaluatorConfig{MaxBatch: 8, Workers: 1, CacheSize: 4096}, w1) // the 5 positions take 5 slots

	eval := func() ([][]float32, []float32) {
		p, v := newPolicies(len(states)), make([]float32, len(states))
		if err := e.Evaluate(states, p, v); err != nil {
			t.Fatal(err)
		}
		return p, v
	}
	p, v := eval()
	checkResults(t, states, p, v, wantP1, wantV1)
	before := e.Stats()
	p2, v2 := eval()
	after := e.Stats()
	if after.Evaluated != before.Evaluated || after.CacheHits-before.CacheHits != 5 {
		t.Errorf("repeat: stats before %+v after %+v, want 5 cache hits and nothing evaluated", before, after)
	}
	if before.Forward <= 0 || after.Forward != before.Forward {
		t.Errorf("forward time %v after the first call, %v after the repeat answered from the cache: want > 0, then the same", before.Forward, after.Forward)
	}
	for i := range p {
		for a := range p[i] {
			if math.Float32bits(p[i][a]) != math.Float32bits(p2[i][a]) {
				t.Fatalf("cache hit policy differs: %v vs %v", p[i], p2[i])
			}
		}
		if math.Float32bits(v[i]) != math.Float32bits(v2[i]) {
			t.Fatalf("cache hit value %g, want %g", v2[i], v[i])
		}
	}

	if err := e.SetWeights(w2); err != nil {
		t.Fatal(err)
	}
	p, v = eval()
	checkResults(t, states, p, v, wantP2, wantV2)
	if s := e.Stats(); s.Evaluated != after.Evaluated+5 {
		t.Errorf("after SetWeights: stats %+v, want the 5 positions evaluated again", s)
	}
	if wantV1[0] == wantV2[0] {
		t.Fatal("test weights give equal values; the test proves nothing")
	}

	// A network of another size: the workers rebuild their buffers.
	w3 := randomWeights(t, Config{Filters: 5, Blocks: 2, PolicyFilters: 1, ValueFilters: 2, ValueHidden: 3}, tttShape, 11)
	wantP3, wantV3 := expected(t, w3, states)
	if err := e.SetWeights(w3); err != nil {
		t.Fatal(err)
	}
	p, v = eval()
	checkResults(t, states, p, v, wantP3, wantV3)
}

// sameHash is a state whose Hash collides with every other sameHash.
type sameHash struct{ games.State }

func (sameHash) Hash() uint64 { return 42 }

func TestEvaluatorCacheCollision(t *testing.T) {
	w := tttWeights(t, 7)
	states := tttPositions(2, 7)
	wantP, wantV := expected(t, w, states)
	e := newTestEvaluator(t, EvaluatorConfig{MaxBatch: 8, Workers: 1, CacheSize: 64}, w)
	for i := range states {
		p, v := newPolicies(1), make([]float32, 1)
		if err := e.Evaluate([]games.State{sameHash{states[i]}}, p, v); err != nil {
			t.Fatal(err)
		}
		checkResults(t, states[i:i+1], p, v, wantP[i:i+1], wantV[i:i+1])
	}
	if s := e.Stats(); s.CacheHits != 0 {
		t.Errorf("stats %+v: a colliding hash was answered from the cache", s)
	}
}

func TestEvaluatorErrors(t *testing.T) {
	w := tttWeights(t, 8)
	e := newTestEvaluator(t, EvaluatorConfig{MaxBatch: 8, Workers: 1}, w)
	checkEvaluateErrors(t, e, tttPositions(1, 8))

	bad := randomWeights(t, w.Config, Shape{Planes: 2, Height: 3, Width: 3, Actions: 10}, 1)
	if _, err := NewEvaluator(DefaultEvaluatorConfig(), bad, ttt{}); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("NewEvaluator with a wrong shape: err = %v", err)
	}
	if err := e.SetWeights(bad); err == nil {
		t.Error("SetWeights with a wrong shape succeeded")
	}
	if _, err := NewEvaluator(DefaultEvaluatorConfig(), nil, ttt{}); err == nil {
		t.Error("NewEvaluator with nil weights succeeded")
	}
	if _, err := NewEvaluator(DefaultEvaluatorConfig(), w, nil); err == nil {
		t.Error("NewEvaluator with a nil game succeeded")
	}
}

// checkEvaluateErrors checks that e refuses, with an error saying why,
// requests with mismatched lengths, a short policy, a nil state or a state of
// another game; s holds one position of ttt.
func checkEvaluateErrors(t *testing.T, e mcts.Evaluator, s []games.State) {
	t.Helper()
	cases := []struct {
		name     string
		states   []games.State
		policies [][]float32
		values   []float32
		wantErr  string
	}{
		{"lengths", s, newPolicies(2), make([]float32, 1), "1 states, 2 policies"},
		{"policy length", s, [][]float32{make([]float32, 8)}, make([]float32, 1), "length 8"},
		{"nil state", []games.State{nil}, newPolicies(1), make([]float32, 1), "nil"},
		{"other game", []games.State{otherGame{s[0]}}, newPolicies(1), make([]float32, 1), "position of other"},
	}
	for _, c := range cases {
		err := e.Evaluate(c.states, c.policies, c.values)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.wantErr)
		}
	}
}

// otherGame is a position claiming to be of a game with another shape.
type otherGame struct{ games.State }

func (o otherGame) Game() games.Game { return other{} }

type other struct{ ttt }

func (other) Name() string                      { return "other" }
func (other) ObservationShape() (int, int, int) { return 3, 3, 3 }

func TestEvaluatorConfigValidate(t *testing.T) {
	if err := DefaultEvaluatorConfig().Validate(); err != nil {
		t.Fatalf("default: %v", err)
	}
	cases := []struct {
		mutate func(*EvaluatorConfig)
		field  string
	}{
		{func(c *EvaluatorConfig) { c.MaxBatch = 0 }, "max_batch"},
		{func(c *EvaluatorConfig) { c.MaxBatch = 5000 }, "max_batch"},
		{func(c *EvaluatorConfig) { c.MaxWait = -time.Millisecond }, "max_wait"},
		{func(c *EvaluatorConfig) { c.MaxWait = time.Minute }, "max_wait"},
		{func(c *EvaluatorConfig) { c.Workers = -1 }, "workers"},
		{func(c *EvaluatorConfig) { c.CacheSize = -1 }, "cache_size"},
	}
	for _, c := range cases {
		cfg := DefaultEvaluatorConfig()
		c.mutate(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%+v: err = %v, want one naming %s", cfg, err, c.field)
		}
		if _, err := NewEvaluator(cfg, tttWeights(t, 1), ttt{}); err == nil {
			t.Errorf("NewEvaluator accepted %+v", cfg)
		}
	}
}

func TestEvaluatorConfigYAML(t *testing.T) {
	var cfg EvaluatorConfig
	text := "max_batch: 32\nmax_wait: 2ms\nworkers: 2\ncache_size: 1000\n"
	if err := yaml.Unmarshal([]byte(text), &cfg); err != nil {
		t.Fatal(err)
	}
	want := EvaluatorConfig{MaxBatch: 32, MaxWait: 2 * time.Millisecond, Workers: 2, CacheSize: 1000}
	if cfg != want {
		t.Fatalf("decoded %+v, want %+v", cfg, want)
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var back EvaluatorConfig
	if err := yaml.Unmarshal(out, &back); err != nil || back != cfg {
		t.Fatalf("round trip through %q gave %+v, %v", out, back, err)
	}
}

func TestEvaluatorLifecycle(t *testing.T) {
	base := runtime.NumGoroutine()
	w := tttWeights(t, 9)
	s := tttPositions(2, 9)

	// Not started: no goroutines; Close works and later calls fail.
	e, err := NewEvaluator(EvaluatorConfig{MaxBatch: 4, Workers: 2}, w, ttt{})
	if err != nil {
		t.Fatal(err)
	}
	// More goroutines, not fewer: one an earlier test left may end meanwhile.
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("NewEvaluator started %d goroutines", n-base)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Evaluate(s, newPolicies(2), make([]float32, 2)); err != ErrClosed {
		t.Errorf("Evaluate after Close: %v, want ErrClosed", err)
	}
	if err := e.Start(context.Background()); err != ErrClosed {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}

	// Started explicitly, stopped by its context.
	e, err = NewEvaluator(EvaluatorConfig{MaxBatch: 4, Workers: 2}, w, ttt{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Start(ctx); err == nil {
		t.Error("second Start succeeded")
	}
	if err := e.Evaluate(s, newPolicies(2), make([]float32, 2)); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-e.stopped
	if err := e.Evaluate(s, newPolicies(2), make([]float32, 2)); err != ErrClosed {
		t.Errorf("Evaluate after the context ended: %v, want ErrClosed", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	// Started on first use, closed twice.
	e, err = NewEvaluator(EvaluatorConfig{MaxBatch: 4, Workers: 3, CacheSize: 8}, w, ttt{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Evaluate(s, newPolicies(2), make([]float32, 2)); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines left after Close", n-base)
	}
}

// TestEvaluatorCloseUnblocksCallers checks that callers waiting on a batch
// that can never fill get ErrClosed when the evaluator closes.
func TestEvaluatorCloseUnblocksCallers(t *testing.T) {
	e, err := NewEvaluator(EvaluatorConfig{MaxBatch: 64, MaxWait: 10 * time.Second, Workers: 1}, tttWeights(t, 10), ttt{})
	if err != nil {
		t.Fatal(err)
	}
	s := tttPositions(1, 10)
	errc := make(chan error)
	go func() { errc <- e.Evaluate(s, newPolicies(1), make([]float32, 1)) }()
	for e.Stats().Requests == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		// The worker may run its partial batch on the way out.
		if err != nil && err != ErrClosed {
			t.Errorf("Evaluate: %v, want nil or ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Evaluate still blocked after Close")
	}
}

func TestEvaluateAllocatesNothing(t *testing.T) {
	if raceEnabled {
		// Forward's scratch is the Net's own; the Evaluator's requests
		// come from a sync.Pool, which drops items under the race detector.
		t.Skip("the Evaluator's request pool drops items under the race detector")
	}
	if gemm.Kernel() == "generic" {
		t.Skip("the portable gemm fallback allocates")
	}
	states := tttPositions(6, 12)
	for _, cacheSize := range []int{0, 64} {
		e := newTestEvaluator(t, EvaluatorConfig{MaxBatch: 8, Workers: 1, CacheSize: cacheSize}, tttWeights(t, 12))
		p, v := newPolicies(len(states)), make([]float32, len(states))
		allocs := testing.AllocsPerRun(20, func() {
			if err := e.Evaluate(states, p, v); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("cache %d: %v allocations per Evaluate, want 0", cacheSize, allocs)
		}
	}
}

// TestCheckHashSeesEveryElement checks that the cache's check hash changes
// with every element of an observation (each lane and the tail), with the
// order of two elements, and with the legal moves.
func TestCheckHashSeesEveryElement(t *testing.T) {
	for _, n := range []int{84, 191, 729} {
		obs := make([]float32, n)
		for i := range obs {
			obs[i] = float32(i * 7 % 3 / 2)
		}
		legal := []int{1, 4, 9}
		seen := map[uint64]int{checkHash(obs, legal): -1}
		for i := range obs {
			old := obs[i]
			obs[i] = 0.5
			h := checkHash(obs, legal)
			if j, ok := seen[h]; ok {
				t.Fatalf("n=%d: element %d changed, the hash equals that of change %d", n, i, j)
			}
			seen[h] = i
			obs[i] = old
		}
		obs[0], obs[1] = 1, 0
		a := checkHash(obs, legal)
		obs[0], obs[1] = 0, 1
		if a == checkHash(obs, legal) {
			t.Errorf("n=%d: swapping two elements leaves the hash", n)
		}
		if checkHash(obs, legal) == checkHash(obs, []int{1, 4, 8}) {
			t.Errorf("n=%d: other legal moves, the same hash", n)
		}
	}
}

// TestMaskedSoftmax checks the evaluator's float32 softmax against the
// float64 one: zero off the legal moves, within 1e-5 relative on them, and
// summing to 1, over random logits of every spread.
func TestMaskedSoftmax(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	dst := make([]float32, 82)
	for trial := range 2000 {
		logits := make([]float32, 82)
		spread := []float64{0.01, 1, 10, 100}[trial%4]
		for a := range logits {
			logits[a] = float32(rng.NormFloat64() * spread)
		}
		var legal []int
		for a := range logits {
			if rng.IntN(3) == 0 || a == trial%82 {
				legal = append(legal, a)
			}
		}
		maskedSoftmax(dst, logits, legal)
		mx := math.Inf(-1)
		for _, a := range legal {
			mx = math.Max(mx, float64(logits[a]))
		}
		var z float64
		for _, a := range legal {
			z += math.Exp(float64(logits[a]) - mx)
		}
		isLegal := map[int]bool{}
		var sum float64
		for _, a := range legal {
			isLegal[a] = true
			want := math.Exp(float64(logits[a])-mx) / z
			sum += float64(dst[a])
			if d := math.Abs(float64(dst[a]) - want); d > 1e-5*want && d > 1e-30 {
				t.Fatalf("trial %d: action %d: %v, want %v", trial, a, dst[a], want)
			}
		}
		for a, p := range dst {
			if !isLegal[a] && p != 0 {
				t.Fatalf("trial %d: illegal action %d has %v", trial, a, p)
			}
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("trial %d: the policy sums to %v", trial, sum)
		}
	}
}
