package players

import (
	"strings"
	"testing"
)

// TestNetCacheParam checks that net:...,cache=N sizes the player's
// evaluation cache, that it defaults to the evaluator's default, and that a
// size out of range is refused by ParseSpec.
func TestNetCacheParam(t *testing.T) {
	for _, c := range []struct {
		spec string
		want int
	}{
		{"net:path=a.tbn", 1 << 16},
		{"net:path=a.tbn,cache=0", 0},
		{"net:path=a.tbn,cache=1000,sims=5", 1000},
	} {
		sp, err := ParseSpec(c.spec)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if got := netEvaluatorConfig(sp).CacheSize; got != c.want {
			t.Errorf("%s: cache size %d, want %d", c.spec, got, c.want)
		}
	}
	for _, bad := range []string{"net:path=a.tbn,cache=-1", "net:path=a.tbn,cache=1e9", "net:path=a.tbn,cache=x"} {
		if _, err := ParseSpec(bad); err == nil || !strings.Contains(err.Error(), "cache") {
			t.Errorf("%s: error %v, want one naming cache", bad, err)
		}
	}
}
