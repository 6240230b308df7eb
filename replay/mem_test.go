package replay

import (
	"runtime"
	"testing"

	"tabula/games"
)

// backgammonWithOpp returns chanceExamples whose every example but the last
// carries the next example's policy as its opponent-policy target: a
// distribution over the legal turns of another position, as self-play
// records it.
func backgammonWithOpp(tb testing.TB, n int) (games.Game, []Example) {
	g, ex := chanceExamples(tb, n+1)
	for i := 0; i < n; i++ {
		ex[i].OppPolicy = ex[i+1].Policy
	}
	return g, ex[:n]
}

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestMemoryPerExampleBackgammon fills a window with backgammon examples
// (random positions, ~13 legal turns on average, every one with an opponent
// policy) and reports the bytes a stored example takes: counted from the
// buffer's slices and measured as the growth of the live heap.
func TestMemoryPerExampleBackgammon(t *testing.T) {
	const window = 4000
	g, ex := backgammonWithOpp(t, window)
	legal := 0
	for _, e := range ex {
		for _, l := range e.Legal {
			if l {
				legal++
			}
		}
	}
	before := heapInUse()
	b, err := Open(t.TempDir(), g, Config{Window: window, Augment: false}, "mem", quiet)
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.addLocked(ex)
	b.mu.Unlock()
	heap := float64(heapInUse()-before) / window
	counted := float64(b.footprint()) / window
	runtime.KeepAlive(ex)
	t.Logf("backgammon, %.1f legal turns an example: %.0f bytes an example counted from the slices, %.0f measured (live heap)",
		float64(legal)/window, counted, heap)
	runtime.KeepAlive(b)
}
