package nn

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"

	"tabula/games"
	_ "tabula/games/backgammon"
	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	"tabula/internal/cputime"
)

// playoutPositions returns n decision positions (no chance nodes, not
// terminal) of g reached by random play from the start.
func playoutPositions(t testing.TB, g games.Game, n int, seed uint64) []games.State {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	var out []games.State
	var buf []int
	for len(out) < n {
		s := g.NewInitialState()
		for !s.IsTerminal() && len(out) < n {
			buf = s.LegalActions(buf[:0])
			if s.CurrentPlayer() != games.ChancePlayer && rng.IntN(3) == 0 {
				out = append(out, s.Clone())
			}
			s.ApplyAction(buf[rng.IntN(len(buf))])
		}
	}
	return out
}

// TestCacheAnswersBitIdentical evaluates random positions twice with a
// cache: the second round, answered by the cache, must equal the first,
// computed by the network, bit for bit, with the sparse layout (backgammon)
// and the dense one (Go 9x9, Connect Four). The second round's rows start
// full of NaNs, so that a hit that left any action unwritten shows.
func TestCacheAnswersBitIdentical(t *testing.T) {
	for _, c := range []struct {
		game   string
		sparse bool
	}{{"backgammon", true}, {"go:size=9", false}, {"connect4", false}} {
		t.Run(c.game, func(t *testing.T) {
			g, err := games.New(c.game)
			if err != nil {
				t.Fatal(err)
			}
			p, h, wd := g.ObservationShape()
			sh := Shape{Planes: p, Height: h, Width: wd, Actions: g.NumActions()}
			w := randomWeights(t, Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}, sh, 5)
			m, err := NewModel(w)
			if err != nil {
				t.Fatal(err)
			}
			e, err := NewNetEvaluator(m, g, 16, 1<<14)
			if err != nil {
				t.Fatal(err)
			}
			if e.e.cache.sparse != c.sparse {
				t.Fatalf("sparse layout %v, want %v", e.e.cache.sparse, c.sparse)
			}
			states := playoutPositions(t, g, 300, 9)
			p1, v1 := make([][]float32, len(states)), make([]float32, len(states))
			for i := range p1 {
				p1[i] = make([]float32, g.NumActions())
			}
			if err := e.Evaluate(states, p1, v1); err != nil {
				t.Fatal(err)
			}
			// Again one position a call, to tell the cache's answers
			// from the network's (evicted entries of the direct-mapped
			// table, run again alone, may differ in the last bit).
			p2, v2 := make([][]float32, len(states)), make([]float32, len(states))
			hit := make([]bool, len(states))
			hits := 0
			for i := range states {
				p2[i] = make([]float32, g.NumActions())
				for a := range p2[i] {
					p2[i][a] = float32(math.NaN())
				}
				v2[i] = float32(math.NaN())
				before := e.Stats().Evaluated
				if err := e.Evaluate(states[i:i+1], p2[i:i+1], v2[i:i+1]); err != nil {
					t.Fatal(err)
				}
				if hit[i] = e.Stats().Evaluated == before; hit[i] {
					hits++
				}
			}
			if hits < len(states)*9/10 {
				t.Fatalf("%d of %d positions answered by the cache the second time, want 90%%", hits, len(states))
			}
			var buf []int
			for i := range states {
				if !hit[i] {
					continue
				}
				if math.Float32bits(v1[i]) != math.Float32bits(v2[i]) {
					t.Fatalf("position %d: value %v cached, %v computed", i, v2[i], v1[i])
				}
				for a := range p1[i] {
					if math.Float32bits(p1[i][a]) != math.Float32bits(p2[i][a]) {
						t.Fatalf("position %d action %d: policy %v cached, %v computed", i, a, p2[i][a], p1[i][a])
					}
				}
				var sum float64
				buf = states[i].LegalActions(buf[:0])
				for _, a := range buf {
					sum += float64(p1[i][a])
				}
				if math.Abs(sum-1) > 1e-4 {
					t.Fatalf("position %d: legal actions' probabilities sum to %v", i, sum)
				}
			}
		})
	}
}

// TestCacheSparseOverflow: a position with more legal actions than a sparse
// slot holds is not stored (and does not disturb its slot's entry); one
// with exactly sparseCap is, exactly.
func TestCacheSparseOverflow(t *testing.T) {
	const na = 1352
	c := newEvalCache(64, na)
	if !c.sparse {
		t.Fatal("a cache for 1352 actions is dense, want sparse")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	row := func(n int) ([]int, []float32) {
		legal := rng.Perm(na)[:n]
		p := make([]float32, na)
		for _, a := range legal {
			p[a] = rng.Float32()
		}
		return legal, p
	}
	got := make([]float32, na)
	var v float32
	full, pFull := row(sparseCap)
	c.put(11, 12, 1, full, pFull, 0.25)
	for a := range got {
		got[a] = -1
	}
	if !c.get(11, 12, 1, full, got, &v) || v != 0.25 {
		t.Fatalf("an entry of %d legal actions is not cached", sparseCap)
	}
	for a := range got {
		if math.Float32bits(got[a]) != math.Float32bits(pFull[a]) {
			t.Fatalf("action %d: %v cached, %v stored", a, got[a], pFull[a])
		}
	}
	over, pOver := row(sparseCap + 1)
	c.put(11, 13, 1, over, pOver, 0.5) // the same slot
	if c.get(11, 13, 1, over, got, &v) {
		t.Fatalf("an entry of %d legal actions, over the capacity %d, was cached", sparseCap+1, sparseCap)
	}
	if !c.get(11, 12, 1, full, got, &v) || v != 0.25 {
		t.Fatal("storing an entry over the capacity lost the slot's entry")
	}
	// A legal list of another length under the same hashes (a collision)
	// is a miss, not a partial row.
	if c.get(11, 12, 1, full[:10], got, &v) {
		t.Fatal("an entry answered a position with another number of legal actions")
	}
	// Another generation is a miss.
	if c.get(11, 12, 2, full, got, &v) {
		t.Fatal("an entry of generation 1 answered generation 2")
	}
}

// TestCacheEntryBytes bounds the memory a cached result takes: backgammon's
// (1352 actions) and chess's (4272) sparse entries, against 5440 and 17120
// bytes dense, and the dense ones of small games, counted from what
// newEvalCache allocates.
func TestCacheEntryBytes(t *testing.T) {
	for _, c := range []struct{ actions, max int }{{1352, 300}, {4272, 300}, {82, 32 + 4*82}, {7, 32 + 4*7}, {65, 32 + 4*65}} {
		const size = 4096
		cache := newEvalCache(size, c.actions)
		bytes := 0
		for i := range cache.shards {
			sh := &cache.shards[i]
			bytes += len(sh.entries)*int(unsafe.Sizeof(cacheEntry{})) + len(sh.policy)*4
		}
		if per := bytes / size; per > c.max || per != cacheEntryBytes(c.actions) {
			t.Errorf("%d actions: %d bytes an entry (cacheEntryBytes %d), want at most %d", c.actions, per, cacheEntryBytes(c.actions), c.max)
		}
	}
}

// TestNetEvaluatorSetModel: after SetModel, the evaluator and its workers
// answer with the new model (not the cache's results of the old one),
// exactly as a fresh evaluator of the new model, in the same cache.
func TestNetEvaluatorSetModel(t *testing.T) {
	states := tttPositions(30, 4)
	m1, err := NewModel(tttWeights(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	m2, err := NewModel(tttWeights(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewNetEvaluator(m1, ttt{}, 64, 1024)
	if err != nil {
		t.Fatal(err)
	}
	w := e.Worker()
	fresh, err := NewNetEvaluator(m2, ttt{}, 64, 1024)
	if err != nil {
		t.Fatal(err)
	}
	eval := func(ev *NetEvaluator) ([][]float32, []float32) { return evalTTT(t, ev, states) }
	eval(e)
	eval(w)
	cache := e.e.cache
	if err := e.SetModel(m2); err != nil {
		t.Fatal(err)
	}
	if e.e.cache != cache {
		t.Fatal("SetModel made a new cache")
	}
	wantP, wantV := eval(fresh)
	for _, ev := range []*NetEvaluator{w, e} {
		for range 2 { // from the network, then from the cache
			p, v := eval(ev)
			for i := range states {
				if v[i] != wantV[i] || !equalRows(p[i], wantP[i]) {
					t.Fatalf("position %d after SetModel: value %v, want the new model's %v", i, v[i], wantV[i])
				}
			}
		}
	}
	if err := e.SetModel(nil); err == nil {
		t.Error("SetModel(nil) accepted")
	}
	g, _ := games.New("connect4")
	p, h, wd := g.ObservationShape()
	other, err := NewModel(randomWeights(t, Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8},
		Shape{Planes: p, Height: h, Width: wd, Actions: g.NumActions()}, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetModel(other); err == nil {
		t.Error("SetModel accepted a network of another game")
	}
}

func equalRows(a, b []float32) bool {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// BenchmarkCache times a lookup that hits and a store of backgammon
// positions' results in a table of 2^18 (the configs' size), with the
// sparse layout and the dense one it replaced.
func BenchmarkCache(b *testing.B) {
	g, err := games.New("backgammon")
	if err != nil {
		b.Fatal(err)
	}
	states := playoutPositions(b, g, 1024, 2)
	legal := make([][]int, len(states))
	rows := make([][]float32, len(states))
	rng := rand.New(rand.NewPCG(3, 3))
	for i, s := range states {
		legal[i] = s.LegalActions(nil)
		rows[i] = make([]float32, g.NumActions())
		for _, a := range legal[i] {
			rows[i][a] = rng.Float32()
		}
	}
	for _, sparse := range []bool{false, true} {
		name := map[bool]string{false: "dense", true: "sparse"}[sparse]
		c := newEvalCacheLayout(1<<18, g.NumActions(), sparse)
		for i, s := range states {
			c.put(s.Hash(), uint64(i), 1, legal[i], rows[i], 0.5)
		}
		dst := make([]float32, g.NumActions())
		var v float32
		b.Run("get/"+name, func(b *testing.B) {
			defer threadCPU(b, 1)()
			for k := 0; b.Loop(); k++ {
				i := k % len(states)
				c.get(states[i].Hash(), uint64(i), 1, legal[i], dst, &v)
			}
		})
		b.Run("put/"+name, func(b *testing.B) {
			defer threadCPU(b, 1)()
			for k := 0; b.Loop(); k++ {
				i := k % len(states)
				c.put(states[i].Hash(), uint64(i), 1, legal[i], rows[i], 0.5)
			}
		})
	}
}

// BenchmarkEvaluateCached times NetEvaluator.Evaluate of 64 backgammon
// positions a call, every one answered by the cache (2^18 results), with
// the sparse layout and the dense one: the cache's part of a call
// (hashing, encoding, lookups), without the network.
func BenchmarkEvaluateCached(b *testing.B) {
	g, err := games.New("backgammon")
	if err != nil {
		b.Fatal(err)
	}
	p, h, wd := g.ObservationShape()
	w := randomWeights(b, Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8},
		Shape{Planes: p, Height: h, Width: wd, Actions: g.NumActions()}, 1)
	m, err := NewModel(w)
	if err != nil {
		b.Fatal(err)
	}
	states := playoutPositions(b, g, 64, 7)
	pol, val := make([][]float32, len(states)), make([]float32, len(states))
	for i := range pol {
		pol[i] = make([]float32, g.NumActions())
	}
	for _, sparse := range []bool{false, true} {
		name := map[bool]string{false: "dense", true: "sparse"}[sparse]
		e, err := NewNetEvaluator(m, g, 64, 1)
		if err != nil {
			b.Fatal(err)
		}
		e.e.cache = newEvalCacheLayout(1<<18, g.NumActions(), sparse)
		if err := e.Evaluate(states, pol, val); err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			before := e.Stats().Evaluated
			stop := threadCPU(b, len(states))
			for b.Loop() {
				if err := e.Evaluate(states, pol, val); err != nil {
					b.Fatal(err)
				}
			}
			stop()
			if e.Stats().Evaluated != before {
				b.Fatal("positions missed the cache")
			}
		})
	}
}

// threadCPU locks the benchmark to its thread and returns a function that
// reports the thread's CPU time an item (per items items an op), which a
// shared machine's other processes do not inflate as they do ns/op.
func threadCPU(b *testing.B, items int) func() {
	runtime.LockOSThread()
	t0 := cputime.Thread()
	return func() {
		d := cputime.Thread() - t0
		runtime.UnlockOSThread()
		if cputime.ThreadMeasured() {
			b.ReportMetric(float64(d.Nanoseconds())/float64(b.N*items), "cpu-ns/item")
		}
	}
}

// TestNetEvaluatorSetModelPrecision: SetModel across precisions of one
// architecture (precision auto picks BF16 for one network and Int8 for the
// next) answers as a fresh evaluator of each model; buffers sized for the
// previous precision made the Int8 tower index an empty buffer.
func TestNetEvaluatorSetModelPrecision(t *testing.T) {
	states := tttPositions(30, 5)
	fp, err := NewModel(tttWeights(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	calib, legal, err := CalibrationPositions(ttt{}, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	models := map[Precision]*Model{FP32: fp}
	for _, p := range []Precision{BF16, Int8} {
		if models[p], err = fp.WithPrecision(p, calib, len(legal)); err != nil {
			t.Fatal(err)
		}
	}
	eval := func(ev *NetEvaluator) ([][]float32, []float32) { return evalTTT(t, ev, states) }
	e, err := NewNetEvaluator(models[BF16], ttt{}, 64, 1024)
	if err != nil {
		t.Fatal(err)
	}
	w := e.Worker()
	eval(e)
	eval(w)
	for _, p := range []Precision{Int8, BF16, FP32, Int8} {
		if err := e.SetModel(models[p]); err != nil {
			t.Fatal(err)
		}
		fresh, err := NewNetEvaluator(models[p], ttt{}, 64, 1024)
		if err != nil {
			t.Fatal(err)
		}
		wantP, wantV := eval(fresh)
		for _, ev := range []*NetEvaluator{w, e} {
			p0, v := eval(ev)
			for i := range states {
				if v[i] != wantV[i] || !equalRows(p0[i], wantP[i]) {
					t.Fatalf("%s, position %d: value %v, want a fresh evaluator's %v", p, i, v[i], wantV[i])
				}
			}
		}
	}
}

// TestWorkerUseModelPrecision: the batching Evaluator's worker, switched
// between precisions of one architecture (SetWeights under precision auto),
// computes as a fresh Net of each model.
func TestWorkerUseModelPrecision(t *testing.T) {
	fp, err := NewModel(tttWeights(t, 4))
	if err != nil {
		t.Fatal(err)
	}
	calib, legal, err := CalibrationPositions(ttt{}, 64, 2)
	if err != nil {
		t.Fatal(err)
	}
	n := len(legal)
	models := map[Precision]*Model{FP32: fp}
	for _, p := range []Precision{BF16, Int8} {
		if models[p], err = fp.WithPrecision(p, calib, n); err != nil {
			t.Fatal(err)
		}
	}
	run := func(net *Net) ([]float32, []float32) {
		l, v := make([]float32, n*9), make([]float32, n)
		if err := net.Forward(calib, n, l, v); err != nil {
			t.Fatal(err)
		}
		return l, v
	}
	var w worker
	for _, p := range []Precision{BF16, Int8, FP32, BF16, Int8} {
		w.useModel(models[p], n)
		gotL, gotV := run(w.net)
		wantL, wantV := run(models[p].newNet(n, defaultChunk(n, models[p].hw)))
		if !equalRows(gotL, wantL) || !equalRows(gotV, wantV) {
			t.Fatalf("%s: the reused worker's outputs differ from a fresh Net's", p)
		}
	}
}

// evalTTT evaluates tic-tac-toe states with ev and returns the policies
// and values.
func evalTTT(t *testing.T, ev *NetEvaluator, states []games.State) ([][]float32, []float32) {
	t.Helper()
	pol, val := make([][]float32, len(states)), make([]float32, len(states))
	for i := range pol {
		pol[i] = make([]float32, 9)
	}
	if err := ev.Evaluate(states, pol, val); err != nil {
		t.Fatal(err)
	}
	return pol, val
}
