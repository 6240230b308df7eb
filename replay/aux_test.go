package replay

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"tabula/games"
	_ "tabula/games/gogame"
)

// auxExamples returns n Go 5x5 examples; the odd ones carry auxiliary
// targets whose score encodes the example's index and whose ownership is a
// pattern that no symmetry maps onto itself.
func auxExamples(t testing.TB, g games.Game, n int) []Example {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	p, h, w := g.ObservationShape()
	var out []Example
	s := g.NewInitialState()
	for len(out) < n {
		if s.IsTerminal() {
			s = g.NewInitialState()
		}
		legal := s.LegalActions(nil)
		e := Example{Obs: make([]float32, p*h*w), Policy: make([]float32, g.NumActions()), Legal: make([]bool, g.NumActions())}
		s.Observation(e.Obs)
		for _, a := range legal {
			e.Legal[a] = true
		}
		e.Policy[legal[len(legal)-1]] = 1
		e.Value = float32(len(out))/float32(n)*2 - 1
		if len(out)%2 == 1 {
			e.Ownership = make([]float32, h*w)
			for j := range e.Ownership {
				e.Ownership[j] = []float32{1, -1, 0}[(j*j+len(out))%3]
			}
			e.Ownership[0] = 1 // corner 0 owned: tells the symmetries apart with the rest
			e.Ownership[1] = -1
			e.Score = float32(len(out)) - 0.5
		}
		out = append(out, e)
		s.ApplyAction(legal[rng.IntN(len(legal))])
	}
	return out
}

func goGame(t *testing.T) games.Game {
	g, err := games.New("go:size=5")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestAuxRoundTrip writes examples with and without auxiliary targets,
// reads them back from the chunk (version 3) and from a reopened window,
// and samples them with augmentation: every ownership map must come back
// mapped through the same symmetry as its observation.
func TestAuxRoundTrip(t *testing.T) {
	g := goGame(t)
	sym := g.(games.Symmetric)
	ex := auxExamples(t, g, 12)
	dir, b, path, back := writeBack(t, g, ex)
	if v := innerVersion(t, path); v != chunkFlagged {
		t.Fatalf("chunk with auxiliary targets: version %v, want %v", v, chunkFlagged)
	}
	for i := range ex {
		if !slices.Equal(back[i].Ownership, ex[i].Ownership) || back[i].Score != ex[i].Score ||
			!slices.Equal(back[i].Obs, ex[i].Obs) || back[i].Value != ex[i].Value {
			t.Fatalf("example %d changed through the chunk: %+v\nwant %+v", i, back[i], ex[i])
		}
	}
	// A chunk of examples without auxiliary targets keeps the old format.
	path, err := b.Write(auxExamples(t, g, 1))
	if err != nil {
		t.Fatal(err)
	}
	if v := innerVersion(t, path); v != chunkVersion {
		t.Fatalf("chunk without auxiliary targets: version %v, want %v", v, chunkVersion)
	}

	p, h, w := g.ObservationShape()
	n := h * w
	for _, buf := range []*Buffer{b, open2(t, dir, g)} {
		batch := buf.NewBatch(300)
		if err := buf.Sample(rand.New(rand.NewPCG(2, 2)), batch); err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for k, v := range batch.Value {
			i := slices.IndexFunc(ex, func(e Example) bool { return e.Value == v })
			if i < 0 {
				continue // the one-example chunk
			}
			own := batch.Ownership[k*n : (k+1)*n]
			if ex[i].Ownership == nil {
				if batch.AuxWeight[k] != 0 || batch.Score[k] != 0 || slices.ContainsFunc(own, func(x float32) bool { return x != 0 }) {
					t.Fatalf("sample %d: example %d has no auxiliary targets, batch has weight %v", k, i, batch.AuxWeight[k])
				}
				continue
			}
			if batch.AuxWeight[k] != 1 || batch.Score[k] != ex[i].Score {
				t.Fatalf("sample %d: weight %v score %v, want 1 and %v", k, batch.AuxWeight[k], batch.Score[k], ex[i].Score)
			}
			// Find the symmetry from the observation, then check the
			// ownership map went through the same one.
			obs := batch.Obs[k*p*n : (k+1)*p*n]
			found := -1
			tmp := make([]float32, p*n)
			for s := 0; s < sym.NumSymmetries(); s++ {
				sym.TransformObservation(s, tmp, ex[i].Obs)
				if slices.Equal(tmp, obs) {
					want := make([]float32, p*n)
					src := make([]float32, p*n)
					copy(src, ex[i].Ownership)
					sym.TransformObservation(s, want, src)
					if slices.Equal(want[:n], own) {
						found = s
						break
					}
				}
			}
			if found < 0 {
				t.Fatalf("sample %d (example %d): no symmetry maps both the observation and the ownership", k, i)
			}
			seen[found] = true
		}
		if len(seen) < 4 {
			t.Errorf("samples went through only %d symmetries", len(seen))
		}
	}
}

// writeBack opens a fresh augmenting window of g in a new folder, writes ex
// as one chunk and reads the chunk back.
func writeBack(t *testing.T, g games.Game, ex []Example) (dir string, b *Buffer, path string, back []Example) {
	t.Helper()
	dir = t.TempDir()
	b, err := Open(dir, g, Config{Window: 50, Augment: true}, "w", quiet)
	if err != nil {
		t.Fatal(err)
	}
	if path, err = b.Write(ex); err != nil {
		t.Fatal(err)
	}
	if _, back, err = ReadChunkFile(path); err != nil {
		t.Fatal(err)
	}
	return dir, b, path, back
}

func open2(t *testing.T, dir string, g games.Game) *Buffer {
	t.Helper()
	b, err := Open(dir, g, Config{Window: 50, Augment: true}, "r", quiet)
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != 13 {
		t.Fatalf("reopened window holds %d examples, want 13", b.Len())
	}
	return b
}

// TestOldChunkLoads reads a chunk written by the code before auxiliary
// targets existed (format version 1, testdata/go5-v1.tbr) and loads it
// into a window beside a new one with targets.
func TestOldChunkLoads(t *testing.T) {
	g := goGame(t)
	_, old, err := ReadChunkFile(filepath.Join("testdata", "go5-v1.tbr"))
	if err != nil {
		t.Fatal(err)
	}
	if len(old) != 6 || old[0].Ownership != nil {
		t.Fatalf("old chunk: %d examples, first ownership %v", len(old), old[0].Ownership)
	}
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "go5-v1.tbr"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chunk-00000000000000000001-old-000001.tbr"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir, g, Config{Window: 50}, "w", quiet)
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != 6 {
		t.Fatalf("window holds %d examples of the old chunk, want 6", b.Len())
	}
	if _, err := b.Write(auxExamples(t, g, 4)); err != nil {
		t.Fatal(err)
	}
	batch := b.NewBatch(100)
	if err := b.Sample(rand.New(rand.NewPCG(1, 1)), batch); err != nil {
		t.Fatal(err)
	}
	var with, without int
	for k := range batch.Value {
		if batch.AuxWeight[k] == 1 {
			with++
		} else {
			without++
		}
	}
	if with == 0 || without == 0 {
		t.Errorf("samples with targets %d, without %d: want both", with, without)
	}
}

func TestAuxChecks(t *testing.T) {
	g := goGame(t)
	p, h, w := g.ObservationShape()
	for name, mod := range map[string]func(e *Example){
		"short ownership": func(e *Example) { e.Ownership = e.Ownership[:3] },
		"ownership > 1":   func(e *Example) { e.Ownership[2] = 1.5 },
		"NaN score":       func(e *Example) { e.Score = float32(math.NaN()) },
	} {
		ex := auxExamples(t, g, 2)
		mod(&ex[1])
		if _, err := encodeChunk(g.Name(), p*h*w, g.NumActions(), h*w, ex); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
	damagedChunksFail(t, g, auxExamples(t, g, 4), 3)
}

// damagedChunksFail encodes examples of g as a chunk and checks that no
// truncation of it and no flip of every step-th bit decodes.
func damagedChunksFail(t *testing.T, g games.Game, examples []Example, step int) {
	t.Helper()
	p, h, w := g.ObservationShape()
	data, err := encodeChunk(g.Name(), p*h*w, g.NumActions(), h*w, examples)
	if err != nil {
		t.Fatal(err)
	}
	damagedBytesFail(t, data, step)
}

// damagedBytesFail checks that no truncation of the chunk bytes data and
// no flip of every step-th bit decodes.
func damagedBytesFail(t *testing.T, data []byte, step int) {
	t.Helper()
	for n := 0; n < len(data); n++ {
		if _, _, err := decodeChunk(data[:n]); err == nil {
			t.Fatalf("chunk truncated to %d of %d bytes decoded", n, len(data))
		}
	}
	for bit := 0; bit < len(data)*8; bit += step {
		d := slices.Clone(data)
		d[bit/8] ^= 1 << (bit % 8)
		if _, _, err := decodeChunk(d); err == nil {
			t.Fatalf("chunk with bit %d flipped decoded", bit)
		}
	}
}
