package replay

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"tabula/games"
	"tabula/internal/cputime"
)

// memCase is a game and a window's worth of its examples, as the memory
// test and the sampling benchmark use them.
type memCase struct {
	name    string
	augment bool
	build   func(testing.TB, int) (games.Game, []Example)
}

var memCases = []memCase{
	// Random backgammon decisions with a uniform policy over the legal
	// turns, as self-play writes them; no opponent policy (the game rolls
	// dice between the moves, so pipeline refuses one).
	{"backgammon", false, chanceExamples},
	{"connect4", true, func(tb testing.TB, n int) (games.Game, []Example) {
		g := connect4(tb)
		return g, examples(g, n, 11)
	}},
	// Go 9x9: ownership and score targets on every other example, the
	// next example's policy as the opponent policy.
	{"go9", true, goExamples},
}

// goExamples returns n examples of random Go 9x9 games with a uniform
// policy over the legal moves (the widest a search's policy gets), ownership
// and score targets on every other example, and the next position's policy
// as the opponent policy of every example but a game's last.
func goExamples(tb testing.TB, n int) (games.Game, []Example) {
	g, err := games.New("go:size=9")
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	p, h, w := g.ObservationShape()
	var out []Example
	var last []bool // a game's last example
	s := g.NewInitialState()
	for len(out) < n {
		legal := s.LegalActions(nil)
		e := Example{Obs: make([]float32, p*h*w), Policy: make([]float32, g.NumActions()), Legal: make([]bool, g.NumActions())}
		s.Observation(e.Obs)
		for _, a := range legal {
			e.Legal[a] = true
			e.Policy[a] = 1 / float32(len(legal))
		}
		e.Value = float32(len(out)%3 - 1)
		if len(out)%2 == 1 {
			e.Ownership = make([]float32, h*w)
			for j := range e.Ownership {
				e.Ownership[j] = float32(rng.IntN(3) - 1)
			}
			e.Score = float32(rng.IntN(40)) - 19.5
		}
		out = append(out, e)
		// Random play, passing only when nothing else is legal, so that
		// the games run long; a game is cut off after 120 moves.
		a := legal[rng.IntN(len(legal))]
		if a == g.NumActions()-1 && len(legal) > 1 {
			a = legal[rng.IntN(len(legal)-1)]
		}
		s.ApplyAction(a)
		end := s.IsTerminal() || len(out)%120 == 0
		last = append(last, end)
		if end {
			s = g.NewInitialState()
		}
	}
	for i := 0; i+1 < len(out); i++ {
		if !last[i] {
			out[i].OppPolicy = out[i+1].Policy
		}
	}
	return g, out
}

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// fill opens a buffer of window examples for c and adds them.
func (c memCase) fill(tb testing.TB, window int) (*Buffer, []Example) {
	g, ex := c.build(tb, window)
	b, err := Open(tb.TempDir(), g, Config{Window: window, Augment: c.augment}, "mem", quiet)
	if err != nil {
		tb.Fatal(err)
	}
	b.mu.Lock()
	b.addLocked(ex)
	b.mu.Unlock()
	return b, ex
}

// TestMemoryPerExample fills a window with each game's examples and
// reports the bytes a stored example takes: counted from the buffer's
// slices and measured as the growth of the live heap. A backgammon example
// must take at most 1,000.
func TestMemoryPerExample(t *testing.T) {
	const window = 3000
	for _, c := range memCases {
		t.Run(c.name, func(t *testing.T) {
			g, ex := c.build(t, window)
			legal := 0
			for _, e := range ex {
				for _, l := range e.Legal {
					if l {
						legal++
					}
				}
			}
			before := heapInUse()
			b, err := Open(t.TempDir(), g, Config{Window: window, Augment: c.augment}, "mem", quiet)
			if err != nil {
				t.Fatal(err)
			}
			b.mu.Lock()
			b.addLocked(ex)
			b.mu.Unlock()
			heap := float64(heapInUse()-before) / window
			counted := float64(b.footprint()) / window
			runtime.KeepAlive(ex)
			t.Logf("%s, %.1f legal actions of %d an example: %.0f bytes an example counted from the slices, %.0f measured (live heap)",
				c.name, float64(legal)/window, g.NumActions(), counted, heap)
			runtime.KeepAlive(b)
			// Dense over all 1,352 actions, a backgammon example took
			// 8,588 bytes: 1,824 of float32 observation, 5,408 of policy,
			// 1,352 of legal mask and 4 of value.
			if c.name == "backgammon" && (counted > 1000 || heap > 1000) {
				t.Errorf("a backgammon example takes %.0f bytes (%.0f measured), want at most 1000", counted, heap)
			}
		})
	}
}

// BenchmarkSample draws batches of 256 from a full window of 3,000
// examples of each game. cpu-ns/op is the thread's CPU time a batch, the
// figure to compare on a shared machine.
func BenchmarkSample(bm *testing.B) {
	for _, c := range memCases {
		bm.Run(c.name, func(bm *testing.B) {
			b, _ := c.fill(bm, 3000)
			batch := b.NewBatch(256)
			rng := rand.New(rand.NewPCG(1, 2))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu := cputime.Thread()
			for bm.Loop() {
				if err := b.Sample(rng, batch); err != nil {
					bm.Fatal(err)
				}
			}
			if cputime.ThreadMeasured() {
				bm.ReportMetric(float64(cputime.Thread()-cpu)/float64(bm.N), "cpu-ns/op")
			}
		})
	}
}

// TestOpenHoldsOneChunkDecoded opens a folder of 40 backgammon chunks of
// 100 examples and measures the live heap each time Open holds a chunk
// decoded and not yet added (after a full collection, so that garbage not
// yet collected does not count): its peak must stay far below the ~35 MB
// that all 4,000 examples take decoded (dense, as Example), since Open
// decodes and adds one chunk at a time. (Reading every chunk before adding
// any, it peaked at ~44 MB.)
func TestOpenHoldsOneChunkDecoded(t *testing.T) {
	const window, chunk = 4000, 100
	g, ex := chanceExamples(t, window)
	dir := t.TempDir()
	w, err := Open(dir, g, Config{Window: 1}, "w", quiet)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < window; i += chunk {
		if _, err := w.Write(ex[i : i+chunk]); err != nil {
			t.Fatal(err)
		}
	}
	decoded := 0
	for _, e := range ex {
		decoded += 4*len(e.Obs) + 4*len(e.Policy) + len(e.Legal) + 3*24 + 4
	}
	ex = nil
	base := heapInUse()
	var top int64
	calls := 0
	chunkDecoded = func() {
		calls++
		top = max(top, heapInUse())
	}
	defer func() { chunkDecoded = nil }()
	b, err := Open(dir, g, Config{Window: window}, "r", quiet)
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != window || calls != window/chunk {
		t.Fatalf("Len = %d after %d chunks decoded, want %d after %d", b.Len(), calls, window, window/chunk)
	}
	t.Logf("opening %d examples in %d chunks: the live heap peaked %.1f MB above where it was; the examples take %.1f MB decoded, %.1f MB in the window",
		window, window/chunk, float64(top-base)/1e6, float64(decoded)/1e6, float64(b.footprint())/1e6)
	if top-base > int64(decoded)/2 {
		t.Errorf("the heap grew %d bytes opening the window, want under half of the %d bytes all its examples take decoded", top-base, decoded)
	}
}
