package replay

import (
	"math/rand/v2"
	"testing"

	"tabula/games"
	_ "tabula/games/backgammon"
)

// chanceExamples plays random backgammon games (dice sampled) and returns n
// examples of its decisions (the rolls drawn uniformly), each with a policy over its legal turns, as
// self-play writes them.
func chanceExamples(tb testing.TB, n int) (games.Game, []Example) {
	g, err := games.New("backgammon")
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	p, h, w := g.ObservationShape()
	var out []Example
	s := g.NewInitialState()
	for len(out) < n {
		if s.IsTerminal() {
			s = g.NewInitialState()
		}
		legal := s.LegalActions(nil)
		if games.IsChanceNode(s) { // a roll (uniform over the 21 outcomes is enough here)
			s.ApplyAction(legal[rng.IntN(len(legal))])
			continue
		}
		e := Example{Obs: make([]float32, p*h*w), Policy: make([]float32, g.NumActions()), Legal: make([]bool, g.NumActions()),
			Value: float32(rng.IntN(2)*2 - 1)}
		s.Observation(e.Obs)
		for _, a := range legal {
			e.Legal[a] = true
			e.Policy[a] = 1 / float32(len(legal))
		}
		out = append(out, e)
		s.ApplyAction(legal[rng.IntN(len(legal))])
	}
	return g, out
}

// BenchmarkChunkBackgammon encodes and compresses one chunk of 960
// backgammon positions (8 games' worth, configs/backgammon.yaml's
// chunk_games), then decodes it, reporting the sizes.
func BenchmarkChunkBackgammon(b *testing.B) {
	g, ex := chanceExamples(b, 960)
	p, h, w := g.ObservationShape()
	raw, err := encodeChunk(g.Name(), p*h*w, g.NumActions(), h*w, ex)
	if err != nil {
		b.Fatal(err)
	}
	packed := compressChunk(raw)
	b.Run("compress", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			compressChunk(raw)
		}
		b.ReportMetric(float64(len(raw))/float64(len(packed)), "ratio")
		b.ReportMetric(float64(len(packed))/float64(len(ex)), "B/example")
		b.ReportMetric(float64(len(raw))/float64(len(ex)), "raw-B/example")
	})
	for _, c := range []struct {
		name string
		data []byte
	}{{"decode-raw", raw}, {"decode-compressed", packed}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, _, err := decodeChunk(c.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
