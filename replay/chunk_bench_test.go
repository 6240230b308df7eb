package replay

import (
	"testing"

	"tabula/games"
	_ "tabula/games/backgammon"
)

// chanceExamples returns n examples of random backgammon decisions, each
// with a uniform policy over its legal turns and a value of +-1, as
// self-play writes them.
func chanceExamples(tb testing.TB, n int) (games.Game, []Example) {
	g, err := games.New("backgammon")
	if err != nil {
		tb.Fatal(err)
	}
	ex := examples(g, n, 3)
	for i, e := range ex {
		var k float32
		for _, legal := range e.Legal {
			if legal {
				k++
			}
		}
		for a, legal := range e.Legal {
			e.Policy[a] = 0
			if legal {
				e.Policy[a] = 1 / k
			}
		}
		ex[i].Value = float32(i%2*2 - 1)
	}
	return g, ex
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
