package endgame

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"tabula/games"
	"tabula/games/othello"
	"tabula/mcts"
)

// BenchmarkProveOthello8 measures one proof (the sign of the final margin)
// of random 8x8 positions with a given number of empty squares, with a
// prover's own 2^14-entry table kept across positions as in a search:
// what a leaf costs against a network evaluation. The table is cleared
// whenever the 256 positions come round again, so none is found solved.
func BenchmarkProveOthello8(b *testing.B) {
	g := newGame(b, "othello")
	for _, empties := range []int{8, 10, 12, 14} {
		b.Run(fmt.Sprintf("e%d", empties), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(11, uint64(empties)))
			pos := make([]*othello.State, 0, 256)
			for len(pos) < cap(pos) {
				st := randomPosition(g, rng, empties)
				if emptiesOf(st) == empties {
					pos = append(pos, st)
				}
			}
			cfg := mcts.DefaultConfig()
			cfg.Endgame = empties
			if err := Configure(&cfg, g); err != nil {
				b.Fatal(err)
			}
			pr := cfg.Prover.NewProver().(*Othello)
			ps := make([]games.State, len(pos))
			for i, st := range pos {
				ps[i] = st
			}
			benchProofs(b, pr, pr.solver.Reset, ps)
		})
	}
}

// countingProver is a prover that counts the solver's nodes.
type countingProver interface {
	mcts.Prover
	Nodes() uint64
}

// benchProofs proves pos round and round with pr, calling reset (which
// clears the prover's table and node count) whenever they come round again,
// and reports the solver nodes a proof.
func benchProofs(b *testing.B, pr countingProver, reset func(), pos []games.State) {
	b.ReportAllocs()
	i, nodes := 0, uint64(0)
	for b.Loop() {
		if i == len(pos) {
			nodes += pr.Nodes()
			reset()
			i = 0
		}
		if _, ok := pr.Prove(pos[i]); !ok {
			b.Fatal("not proven")
		}
		i++
	}
	b.ReportMetric(float64(nodes+pr.Nodes())/float64(b.N), "nodes/op")
}
