package pipeline

import (
	"reflect"
	"testing"
)

// TestCacheKeepsGames plays the same seeded self-play games with the
// evaluation cache off and on (per-worker caches, so that the workers'
// timing does not matter): the cache must change only what the games cost,
// not a single record, since a hit returns exactly what the network gave
// the position (and merged copies in a batch get the original's result).
func TestCacheKeepsGames(t *testing.T) {
	off, so := playDirect(t, false, 6, "evaluator.cache_size=0")
	on, sn := playDirect(t, false, 6, "evaluator.cache_size=4096")
	if !reflect.DeepEqual(off, on) {
		t.Fatal("the same seeded games differ with the cache on")
	}
	if so.CacheHits != 0 || sn.CacheHits == 0 || sn.Merged == 0 || sn.Evaluated >= so.Evaluated || sn.Positions != so.Positions {
		t.Errorf("stats without cache %+v, with %+v: want the same requests, fewer network calls, hits and merges", so, sn)
	}
}
