package backgammon

import (
	"math/rand/v2"
	"testing"

	"tabula/games"
)

// BenchmarkRandomGame plays whole games with uniformly random moves and
// sampled dice on one reused state.
func BenchmarkRandomGame(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf []int
	var outs []games.ChanceOutcome
	actions := 0
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s := winLoss.NewInitialState().(*State)
		for !s.IsTerminal() {
			if s.chance {
				outs = s.ChanceOutcomes(outs)
				s.ApplyAction(games.SampleOutcome(outs, rng))
			} else {
				buf = s.LegalActions(buf)
				s.ApplyAction(buf[rng.IntN(len(buf))])
			}
			actions++
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(actions)/float64(b.N), "actions/game")
}

// BenchmarkLegalActions generates the legal turns of positions from random
// games (a fresh state each time, as search sees them).
func BenchmarkLegalActions(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	qs := randomPositions(rng, 256)
	var buf []int
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		q := qs[i%len(qs)]
		s := &State{g: winLoss, pos: q, moves: 1, dice: [2]int8{int8(1 + i%6), int8(1 + i/6%6)}}
		if s.dice[1] > s.dice[0] {
			s.dice[0], s.dice[1] = s.dice[1], s.dice[0]
		}
		buf = s.LegalActions(buf)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pos/s")
}
