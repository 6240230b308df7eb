package gogame_test

import (
	"math/rand/v2"
	"testing"

	"tabula/games/gogame"
)

func benchPlayouts(b *testing.B, size int) {
	g, err := gogame.New(size, 7.5, 0)
	if err != nil {
		b.Fatal(err)
	}
	root := g.NewInitialState().(*gogame.State)
	s := root.Clone().(*gogame.State)
	rng := rand.New(rand.NewPCG(1, 2))
	moves := 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		s.CopyFrom(root)
		s.Playout(rng)
		moves += s.MoveNumber()
	}
	cpu := cpuSeconds() - cpu0
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "playouts/s")
	b.ReportMetric(float64(moves)/sec, "moves/s")
	b.ReportMetric(float64(moves)/float64(b.N), "moves/playout")
	if cpu > 0 {
		// Per CPU-second of this process: the rate per core, whatever
		// else the machine is running.
		b.ReportMetric(float64(b.N)/cpu, "playouts/cpu-s")
	}
}

func BenchmarkPlayout5x5(b *testing.B)   { benchPlayouts(b, 5) }
func BenchmarkPlayout9x9(b *testing.B)   { benchPlayouts(b, 9) }
func BenchmarkPlayout19x19(b *testing.B) { benchPlayouts(b, 19) }

// BenchmarkLegalActions9x9 measures LegalActions on midgame 9x9 positions
// (40 random moves in): the generation, the state's kept list dropped
// before each call; and a second call, which hands out the list.
func BenchmarkLegalActions9x9(b *testing.B) {
	g, err := gogame.New(9, 7.5, 0)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var states []*gogame.State
	for len(states) < 64 {
		s := g.NewInitialState().(*gogame.State)
		for s.MoveNumber() < 40 && !s.IsTerminal() {
			s.ApplyAction(s.RandomMove(rng))
		}
		if !s.IsTerminal() {
			states = append(states, s)
		}
	}
	for _, kept := range []bool{false, true} {
		b.Run(map[bool]string{false: "generated", true: "kept"}[kept], func(b *testing.B) {
			buf := make([]int, 0, g.NumActions())
			n := 0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s := states[i&63]
				if !kept {
					s.ForgetLegal()
				}
				buf = s.LegalActions(buf)
				n += len(buf)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			b.ReportMetric(float64(n)/float64(b.N), "actions/call")
		})
	}
}

// BenchmarkClone9x9 measures Clone of a midgame 9x9 state (the cost search
// pays per copied node).
func BenchmarkClone9x9(b *testing.B) {
	g, err := gogame.New(9, 7.5, 0)
	if err != nil {
		b.Fatal(err)
	}
	s := g.NewInitialState().(*gogame.State)
	rng := rand.New(rand.NewPCG(5, 6))
	for s.MoveNumber() < 40 {
		s.ApplyAction(s.RandomMove(rng))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = s.Clone()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "clones/s")
}

// BenchmarkObservation9x9 encodes 9x9 positions (0-79 random moves in) for
// the network, 1,024 of them in turn, as self-play's leaves come: a few
// dozen repeated would let the branch predictor learn their points.
func BenchmarkObservation9x9(b *testing.B) {
	g, err := gogame.New(9, 7.5, 0)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var states []*gogame.State
	for i := 0; len(states) < 1024; i++ {
		s := g.NewInitialState().(*gogame.State)
		for s.MoveNumber() < i%80 && !s.IsTerminal() {
			s.ApplyAction(s.RandomMove(rng))
		}
		states = append(states, s)
	}
	obs := make([]float32, gogame.NumPlanes*81)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		states[i&1023].Observation(obs)
	}
}
