//go:build unix

package pipeline

import (
	"fmt"
	"testing"
)

// BenchmarkSelfPlayCache measures what the evaluation cache (keyed by
// position: transpositions within a tree, between the games in flight and
// across moves) saves in Connect Four self-play with configs/connect4.yaml's
// settings and random initial weights: net-evals/pos is the network calls a
// position (move) costs, merged/pos the calls saved by merging identical
// positions of one batch. One worker, so that the figures do not depend on
// how two workers' timing interleaves; -benchtime 64x is one round of one
// worker's games (games_in_flight, all started together). The gumbel
// variants search with selfplay.search.algorithm=gumbel.
//
//	go test ./pipeline -run '^$' -bench SelfPlayCache -benchtime 64x -cpu 1
func BenchmarkSelfPlayCache(b *testing.B) {
	for _, size := range []int{0, 1 << 12, 1 << 16, 1 << 18} {
		v := selfPlayBench{name: fmt.Sprintf("cache=%d", size), workers: 1, direct: true,
			set: []string{fmt.Sprintf("evaluator.cache_size=%d", size)}}
		b.Run(v.name, func(b *testing.B) { benchSelfPlay(b, v) })
	}
	for _, size := range []int{0, 1 << 18} {
		v := selfPlayBench{name: fmt.Sprintf("gumbel/cache=%d", size), workers: 1, direct: true,
			set: []string{"selfplay.search.algorithm=gumbel", fmt.Sprintf("evaluator.cache_size=%d", size)}}
		b.Run(v.name, func(b *testing.B) { benchSelfPlay(b, v) })
	}
}
