package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tabula/games"
	_ "tabula/games/connect4"
	"tabula/internal/atomicfile"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func connect4(t testing.TB) games.Game {
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// examples plays random games of g (Connect Four in most tests; rolls are
// drawn uniformly in a game of chance) and returns n examples whose
// Value encodes their index (i/n scaled into [-1, 1]) so tests can tell
// them apart.
func examples(g games.Game, n int, seed uint64) []Example {
	rng := rand.New(rand.NewPCG(seed, 1))
	p, h, w := g.ObservationShape()
	var out []Example
	s := g.NewInitialState()
	for len(out) < n {
		if s.IsTerminal() {
			s = g.NewInitialState()
		}
		legal := s.LegalActions(nil)
		if games.IsChanceNode(s) { // a roll: drawn uniformly, no example
			s.ApplyAction(legal[rng.IntN(len(legal))])
			continue
		}
		e := Example{Obs: make([]float32, p*h*w), Policy: make([]float32, g.NumActions()), Legal: make([]bool, g.NumActions())}
		s.Observation(e.Obs)
		for _, a := range legal {
			e.Legal[a] = true
		}
		e.Policy[legal[rng.IntN(len(legal))]] = 0.75
		e.Policy[legal[0]] += 0.25
		e.Value = float32(len(out))/float32(n)*2 - 1
		out = append(out, e)
		s.ApplyAction(legal[rng.IntN(len(legal))])
	}
	return out
}

func open(t *testing.T, dir string, cfg Config, writer string) *Buffer {
	t.Helper()
	b, err := Open(dir, connect4(t), cfg, writer, quiet)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteReopenKeepsNewestWindow(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Window: 10, MaxReuse: 0}
	b := open(t, dir, cfg, "w1")
	ex := examples(b.game, 25, 1)
	for i := 0; i < 25; i += 5 {
		if _, err := b.Write(ex[i : i+5]); err != nil {
			t.Fatal(err)
		}
	}
	if b.Len() != 10 || b.Added() != 25 {
		t.Fatalf("Len %d Added %d, want 10 and 25", b.Len(), b.Added())
	}
	b2 := open(t, dir, cfg, "w2")
	if b2.Len() != 10 {
		t.Fatalf("reopened Len = %d, want 10", b2.Len())
	}
	// Only the newest 10 (indices 15..24) may come out.
	batch := b2.NewBatch(200)
	if err := b2.Sample(rand.New(rand.NewPCG(2, 2)), batch); err != nil {
		t.Fatal(err)
	}
	seen := map[float32]bool{}
	for _, v := range batch.Value {
		seen[v] = true
	}
	for _, e := range ex[:15] {
		if seen[e.Value] {
			t.Fatalf("evicted example with value %v was sampled", e.Value)
		}
	}
	if len(seen) != 10 {
		t.Fatalf("sampled %d distinct examples of the 10 in the window", len(seen))
	}
}

func TestSampleReturnsStoredExamplesAndAugments(t *testing.T) {
	b := open(t, t.TempDir(), Config{Window: 100, Augment: true}, "w")
	ex := examples(b.game, 50, 3)
	if _, err := b.Write(ex); err != nil {
		t.Fatal(err)
	}
	sym := b.game.(games.Symmetric)
	batch := b.NewBatch(400)
	if err := b.Sample(rand.New(rand.NewPCG(4, 4)), batch); err != nil {
		t.Fatal(err)
	}
	mirrored, plain := 0, 0
	for k := range batch.Value {
		obs := batch.Obs[k*b.obsLen : (k+1)*b.obsLen]
		pol := batch.Policy[k*b.na : (k+1)*b.na]
		leg := batch.Legal[k*b.na : (k+1)*b.na]
		var orig *Example
		for i := range ex {
			if ex[i].Value == batch.Value[k] {
				orig = &ex[i]
			}
		}
		if orig == nil {
			t.Fatalf("sample %d has a value %v that was never written", k, batch.Value[k])
		}
		for s := 0; s < sym.NumSymmetries(); s++ {
			wantObs := make([]float32, b.obsLen)
			sym.TransformObservation(s, wantObs, orig.Obs)
			wantPol := make([]float32, b.na)
			games.TransformPolicy(sym, s, wantPol, orig.Policy)
			wantLeg := make([]float32, b.na)
			for a, l := range orig.Legal {
				wantLeg[sym.TransformAction(s, a)] = boolTo32(l)
			}
			if slices.Equal(obs, wantObs) && slices.Equal(pol, wantPol) && slices.Equal(leg, wantLeg) {
				if s == 0 {
					plain++
				} else {
					mirrored++
				}
				break
			}
			if s == sym.NumSymmetries()-1 {
				t.Fatalf("sample %d matches no symmetry of the stored example", k)
			}
		}
	}
	if plain < 100 || mirrored < 100 {
		t.Fatalf("augmentation split %d plain / %d mirrored of 400, want both common", plain, mirrored)
	}
}

func TestMaxReuseCapsSamples(t *testing.T) {
	b := open(t, t.TempDir(), Config{Window: 100, MaxReuse: 2}, "w")
	b.Write(examples(b.game, 10, 5))
	if got := b.Available(); got != 20 {
		t.Fatalf("Available = %d, want 20", got)
	}
	batch := b.NewBatch(8)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 2; i++ {
		if err := b.Sample(rng, batch); err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
	}
	if err := b.Sample(rng, batch); !errors.Is(err, ErrNotEnough) {
		t.Fatalf("third batch: %v, want ErrNotEnough", err)
	}
	b.Write(examples(b.game, 10, 6))
	if err := b.Sample(rng, batch); err != nil {
		t.Fatalf("after new data: %v", err)
	}
	empty := open(t, t.TempDir(), Config{Window: 10}, "w")
	if err := empty.Sample(rng, batch); !errors.Is(err, ErrNotEnough) {
		t.Fatalf("empty buffer: %v", err)
	}
}

func TestSampleAllocatesNothing(t *testing.T) {
	b := open(t, t.TempDir(), Config{Window: 100, Augment: true}, "w")
	b.Write(examples(b.game, 100, 7))
	batch := b.NewBatch(32)
	rng := rand.New(rand.NewPCG(1, 1))
	if n := testing.AllocsPerRun(50, func() { b.Sample(rng, batch) }); n != 0 {
		t.Fatalf("Sample allocates %v times per call", n)
	}
}

func TestCorruptChunksAreMovedAsideAndTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	b := open(t, dir, Config{Window: 100}, "w")
	p1, _ := b.Write(examples(b.game, 5, 8))
	p2, _ := b.Write(examples(b.game, 7, 9))
	data, _ := os.ReadFile(p1)
	data[len(data)/2] ^= 0x10
	os.WriteFile(p1, data, 0o644)
	tmp := filepath.Join(dir, ".chunk-x.tbr.123.tmp")
	os.WriteFile(tmp, []byte("half a chunk"), 0o644)
	old := time.Now().Add(-2 * atomicfile.StaleAge) // abandoned long ago
	os.Chtimes(tmp, old, old)

	b2 := open(t, dir, Config{Window: 100}, "w2")
	if b2.Len() != 7 {
		t.Fatalf("Len = %d, want the 7 examples of the good chunk", b2.Len())
	}
	if _, err := os.Stat(p1 + CorruptSuffix); err != nil {
		t.Fatalf("corrupt chunk not moved aside: %v", err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("temp file left behind: %v", err)
	}
	if _, err := os.Stat(p2); err != nil {
		t.Fatal(err)
	}
}

// TestChunkFailingOnlyItsExamplesIsMovedAside writes a chunk whose
// checksums and header are sound but one of whose examples is not (a value
// of 5): the header passes, decoding fails, and the chunk is moved aside
// while the others load.
func TestChunkFailingOnlyItsExamplesIsMovedAside(t *testing.T) {
	dir := t.TempDir()
	b := open(t, dir, Config{Window: 100}, "w")
	if _, err := b.Write(examples(b.game, 5, 8)); err != nil {
		t.Fatal(err)
	}
	p, h, w := b.game.ObservationShape()
	inner, err := encodeChunk(b.game.Name(), p*h*w, b.game.NumActions(), h*w, examples(b.game, 6, 9))
	if err != nil {
		t.Fatal(err)
	}
	hdr, n, err := readHeader(inner)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(inner[n+hdr.recordLen()-4:], math.Float32bits(5)) // example 0's value
	body := inner[:len(inner)-4]
	binary.LittleEndian.PutUint32(inner[len(inner)-4:], crc32.Checksum(body, castagnoli))
	bad := filepath.Join(dir, fmt.Sprintf("chunk-%020d-x-000001%s", time.Now().UnixNano(), ChunkSuffix))
	if err := os.WriteFile(bad, compressChunk(inner), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := peekHeader(compressChunk(inner)); err != nil {
		t.Fatalf("the header does not read: %v", err)
	}
	if _, err := b.Write(examples(b.game, 7, 10)); err != nil {
		t.Fatal(err)
	}
	b2 := open(t, dir, Config{Window: 100}, "w2")
	if b2.Len() != 12 {
		t.Fatalf("Len = %d, want the 12 examples of the good chunks", b2.Len())
	}
	if _, err := os.Stat(bad + CorruptSuffix); err != nil {
		t.Fatalf("corrupt chunk not moved aside: %v", err)
	}
}

// TestPeekHeader reads the header of raw and compressed chunks without
// decoding them, as decoding reads it, and fails on a damaged file.
func TestPeekHeader(t *testing.T) {
	g := connect4(t)
	p, h, w := g.ObservationShape()
	inner, err := encodeChunk(g.Name(), p*h*w, g.NumActions(), h*w, examples(g, 9, 3))
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := decodeChunk(inner)
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{inner, compressChunk(inner)} {
		got, err := peekHeader(data)
		if err != nil || got != want || got.count != 9 {
			t.Fatalf("peekHeader = %+v, %v; want %+v", got, err, want)
		}
		bad := slices.Clone(data)
		bad[len(bad)/2] ^= 1
		if _, err := peekHeader(bad); !errors.Is(err, errCorrupt) {
			t.Fatalf("peekHeader of a damaged chunk: %v, want a corrupt-chunk error", err)
		}
	}
}

func TestRefreshPicksUpOtherWriters(t *testing.T) {
	dir := t.TempDir()
	trainer := open(t, dir, Config{Window: 100}, "trainer")
	worker := open(t, dir, Config{Window: 100}, "worker")
	worker.Write(examples(worker.game, 6, 10))
	n, err := trainer.Refresh()
	if err != nil || n != 6 || trainer.Len() != 6 {
		t.Fatalf("Refresh = %d, %v; Len %d; want 6", n, err, trainer.Len())
	}
	if n, _ := trainer.Refresh(); n != 0 {
		t.Fatalf("second Refresh loaded %d again", n)
	}
}

func TestWriteRejectsBadExamples(t *testing.T) {
	b := open(t, t.TempDir(), Config{Window: 10}, "w")
	good := examples(b.game, 1, 11)[0]
	cases := map[string]func(e *Example){
		"observation entry": func(e *Example) { e.Obs[3] = float32(math.NaN()) },
		"illegal action":    func(e *Example) { e.Legal = make([]bool, len(e.Legal)) },
		"sums to":           func(e *Example) { e.Policy[0] += 0.5 },
		"value":             func(e *Example) { e.Value = 2 },
		"sizes":             func(e *Example) { e.Policy = e.Policy[:3] },
	}
	for want, mutate := range cases {
		e := Example{Obs: slices.Clone(good.Obs), Policy: slices.Clone(good.Policy), Legal: slices.Clone(good.Legal), Value: good.Value}
		mutate(&e)
		if _, err := b.Write([]Example{good, e}); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "example 1") {
			t.Errorf("bad example (%s): error %v", want, err)
		}
	}
	if b.Len() != 0 {
		t.Fatalf("a refused write added %d examples", b.Len())
	}
	if _, err := Open(t.TempDir(), b.game, Config{Window: 0}, "w", quiet); err == nil || !strings.Contains(err.Error(), "replay.window") {
		t.Errorf("window 0: %v", err)
	}
	if _, err := Open(t.TempDir(), b.game, Config{Window: 5}, "a/b", quiet); err == nil {
		t.Error("writer id with a slash accepted")
	}
}

func TestChunkNeverLoadsTruncatedOrFlipped(t *testing.T) {
	g := connect4(t)
	p, h, w := g.ObservationShape()
	data, err := encodeChunk(g.Name(), p*h*w, g.NumActions(), h*w, examples(g, 3, 12))
	if err != nil {
		t.Fatal(err)
	}
	if _, ex, err := decodeChunk(data); err != nil || len(ex) != 3 {
		t.Fatalf("round trip: %d examples, %v", len(ex), err)
	}
	damagedBytesFail(t, data, 1)
}

func TestConcurrentWriteAndSample(t *testing.T) {
	b := open(t, t.TempDir(), Config{Window: 50, Augment: true}, "w")
	ex := examples(b.game, 40, 13)
	b.Write(ex[:10])
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				if _, err := b.Write(ex[i*6 : i*6+6]); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for s := 0; s < 2; s++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 0))
			batch := b.NewBatch(16)
			for i := 0; i < 20; i++ {
				b.Sample(rng, batch)
			}
		}(uint64(s))
	}
	wg.Wait()
	if b.Added() != 100 {
		t.Fatalf("Added = %d, want 100", b.Added())
	}
}

// innerVersion returns the format version of the chunk inside the
// compressed chunk file at path, failing unless the file is compressed
// (version 4).
func innerVersion(t *testing.T, path string) uint32 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != chunkZstd {
		t.Fatalf("%s: format version %d on disk, want %d (compressed)", path, v, chunkZstd)
	}
	inner, err := inflateChunk(data)
	if err != nil {
		t.Fatal(err)
	}
	return binary.LittleEndian.Uint32(inner[4:])
}

// Chunk files are compressed (version 4) and read back exactly; damage to
// the compressed file, anywhere, is caught; and the envelope cannot nest.
func TestCompressedChunk(t *testing.T) {
	dir := t.TempDir()
	b := open(t, dir, Config{Window: 100}, "w")
	ex := examples(b.game, 40, 21)
	path, err := b.Write(ex)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, h, w := b.game.ObservationShape()
	raw, err := encodeChunk(b.game.Name(), p*h*w, b.game.NumActions(), h*w, ex)
	if err != nil {
		t.Fatal(err)
	}
	if innerVersion(t, path) != chunkVersion || len(data) >= len(raw) {
		t.Fatalf("chunk file of %d bytes for %d uncompressed", len(data), len(raw))
	}
	_, back, err := ReadChunkFile(path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Decode(b.game, raw)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ex {
		for _, got := range [][]Example{back, again} {
			if !slices.Equal(got[i].Obs, ex[i].Obs) || !slices.Equal(got[i].Policy, ex[i].Policy) ||
				!slices.Equal(got[i].Legal, ex[i].Legal) || got[i].Value != ex[i].Value {
				t.Fatalf("example %d changed through the compressed chunk", i)
			}
		}
	}
	damagedBytesFail(t, data, 1)
	if _, _, err := decodeChunk(compressChunk(data)); err == nil || !errors.Is(err, errCorrupt) {
		t.Fatalf("a compressed chunk inside a compressed chunk: %v", err)
	}
}

func FuzzDecodeChunk(f *testing.F) {
	g, err := games.New("connect4")
	if err != nil {
		f.Fatal(err)
	}
	p, h, w := g.ObservationShape()
	data, _ := encodeChunk(g.Name(), p*h*w, g.NumActions(), h*w, examples(g, 2, 14))
	f.Add(data)
	f.Add(compressChunk(data))
	f.Add([]byte("TBRC"))
	f.Fuzz(func(t *testing.T, data []byte) {
		hdr, ex, err := decodeChunk(data)
		if err == nil && len(ex) != hdr.count {
			t.Fatalf("decoded %d examples, header says %d", len(ex), hdr.count)
		}
	})
}

// TestFloatObservations checks observations that are not binary (as
// backgammon's checker counts): the chunk keeps them exactly (version 2),
// the window switches to float storage keeping the binary examples already
// in it, and sampling and reopening return them unchanged.
func TestFloatObservations(t *testing.T) {
	dir := t.TempDir()
	b := open(t, dir, Config{Window: 100}, "w")
	bin := examples(b.game, 20, 5)
	if _, err := b.Write(bin); err != nil {
		t.Fatal(err)
	}
	fl := examples(b.game, 20, 6)
	for i := range fl {
		fl[i].Value = 0.505 + float32(i)/100 // distinct from bin's values (tenths)
		fl[i].Obs[i] = 0.5 + float32(i)
		fl[i].Obs[len(fl[i].Obs)-1] = -1.0 / 3
	}
	path, err := b.Write(fl)
	if err != nil {
		t.Fatal(err)
	}
	if v := innerVersion(t, path); v != chunkFloats {
		t.Fatalf("chunk of float observations: version %v, want %v", v, chunkFloats)
	}
	_, back, err := ReadChunkFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fl {
		if !slices.Equal(back[i].Obs, fl[i].Obs) {
			t.Fatalf("example %d: observation changed through the chunk", i)
		}
	}
	all := append(slices.Clone(bin), fl...)
	check := func(b *Buffer) {
		t.Helper()
		batch := b.NewBatch(200)
		if err := b.Sample(rand.New(rand.NewPCG(1, 1)), batch); err != nil {
			t.Fatal(err)
		}
		for k, v := range batch.Value {
			i := slices.IndexFunc(all, func(e Example) bool { return e.Value == v })
			if i < 0 || !slices.Equal(batch.Obs[k*b.obsLen:(k+1)*b.obsLen], all[i].Obs) {
				t.Fatalf("sample %d (value %v, example %d) does not match what was written", k, v, i)
			}
		}
	}
	check(b)
	if b.Len() != 40 {
		t.Fatalf("window holds %d examples, want 40", b.Len())
	}
	check(open(t, dir, Config{Window: 100}, "r"))
}

func boolTo32(v bool) float32 {
	if v {
		return 1
	}
	return 0
}
