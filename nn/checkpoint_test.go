package nn

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
)

func smallCheckpoint(t testing.TB, seed uint64) *Checkpoint {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	w, err := NewWeights(Config{Filters: 2, Blocks: 1, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 2},
		Shape{Planes: 2, Height: 2, Width: 3, Actions: 3}, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range w.Tensors() { // every array non-trivial, running stats included
		for i := range ts.Data {
			ts.Data[i] = float32(rng.NormFloat64())
		}
	}
	w.Stem.W[0] = float32(math.NaN()) // bit patterns survive, NaN included
	w.Stem.W[1] = float32(math.Inf(-1))
	return &Checkpoint{
		Game:    "tiny:size=3",
		Step:    12345,
		Weights: w,
		Optimizer: &OptimizerState{
			Kind:    "adam",
			Scalars: map[string]float64{"step": 12345, "beta1": 0.9},
			Arrays:  []Tensor{{Name: "m/stem.w", Shape: []int{2, 3}, Data: []float32{1, 2, 3, 4, 5, -6}}},
		},
		Meta: map[string]string{"run": "test", "note": "x"},
	}
}

func encode(t testing.TB, c *Checkpoint) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteCheckpoint(&buf, c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

func TestCheckpointRoundTrip(t *testing.T) {
	for _, withOpt := range []bool{true, false} {
		c := smallCheckpoint(t, 1)
		if !withOpt {
			c.Optimizer, c.Meta = nil, nil
		}
		path := filepath.Join(t.TempDir(), "net.tbn")
		if err := SaveCheckpoint(path, c); err != nil {
			t.Fatal(err)
		}
		got, err := LoadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Game != c.Game || got.Step != c.Step || got.Weights.Config != c.Weights.Config || got.Weights.Shape != c.Weights.Shape {
			t.Fatalf("header fields differ: got %q %d %+v %+v", got.Game, got.Step, got.Weights.Config, got.Weights.Shape)
		}
		want, have := c.Weights.Tensors(), got.Weights.Tensors()
		for i := range want {
			if !sameBits(want[i].Data, have[i].Data) {
				t.Errorf("tensor %s differs", want[i].Name)
			}
		}
		if len(got.Meta) != len(c.Meta) || got.Meta["run"] != c.Meta["run"] {
			t.Errorf("meta %v, want %v", got.Meta, c.Meta)
		}
		if (got.Optimizer == nil) != (c.Optimizer == nil) {
			t.Fatalf("optimizer present = %v, want %v", got.Optimizer != nil, c.Optimizer != nil)
		}
		if o := got.Optimizer; o != nil {
			if o.Kind != "adam" || o.Scalars["step"] != 12345 || o.Scalars["beta1"] != 0.9 || len(o.Arrays) != 1 ||
				o.Arrays[0].Name != "m/stem.w" || !equalInts(o.Arrays[0].Shape, []int{2, 3}) ||
				!sameBits(o.Arrays[0].Data, c.Optimizer.Arrays[0].Data) {
				t.Errorf("optimizer state %+v, want %+v", o, c.Optimizer)
			}
		}
		// Writing the loaded checkpoint again gives the same bytes.
		if !bytes.Equal(encode(t, got), encode(t, c)) {
			t.Error("re-encoding the loaded checkpoint changes its bytes")
		}
		entries, _ := os.ReadDir(filepath.Dir(path))
		if len(entries) != 1 {
			t.Errorf("directory holds %d entries after save, want 1 (no temp files left)", len(entries))
		}
	}
}

func TestExpectedFloatsMatchesTensors(t *testing.T) {
	for _, tc := range []struct {
		cfg   Config
		shape Shape
	}{
		{DefaultConfig(), Shape{2, 6, 7, 7}},
		{Config{Filters: 3, Blocks: 0, PolicyFilters: 1, ValueFilters: 2, ValueHidden: 5}, Shape{1, 1, 1, 1}},
		{Config{Filters: 16, Blocks: 3, PolicyFilters: 4, ValueFilters: 3, ValueHidden: 32}, Shape{17, 9, 9, 82}},
		{Config{Filters: 16, Blocks: 5, PolicyFilters: 4, ValueFilters: 3, ValueHidden: 32, Ownership: true, Score: true,
			GlobalPooling: true, PoolChannels: 5}, Shape{17, 9, 9, 82}},
		{Config{Filters: 12, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8, GlobalPooling: true}, Shape{3, 6, 6, 37}},
		{Config{Filters: 12, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8, Score: true}, Shape{3, 6, 6, 37}},
		{Config{Filters: 12, Blocks: 2, PolicyFilters: 3, ValueFilters: 1, ValueHidden: 8, OpponentPolicy: true}, Shape{3, 6, 6, 37}},
		{Config{Filters: 12, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8, WDL: true}, Shape{2, 6, 7, 7}},
	} {
		w := allocate(tc.cfg, tc.shape)
		var n int64
		for _, ts := range w.Tensors() {
			n += int64(len(ts.Data))
		}
		if got := expectedFloats(tc.cfg, tc.shape); got != n {
			t.Errorf("expectedFloats(%+v, %+v) = %d, tensors hold %d", tc.cfg, tc.shape, got, n)
		}
	}
}

func TestCheckpointTruncatedNeverLoads(t *testing.T) {
	data := encode(t, smallCheckpoint(t, 2))
	for n := range len(data) {
		if _, err := ReadCheckpoint(bytes.NewReader(data[:n])); err == nil {
			t.Fatalf("checkpoint truncated to %d of %d bytes loaded", n, len(data))
		}
	}
	if _, err := ReadCheckpoint(bytes.NewReader(append(data, 0))); err == nil {
		t.Fatal("checkpoint with a trailing byte loaded")
	}
}

func TestCheckpointBitFlipsNeverLoad(t *testing.T) {
	data := encode(t, smallCheckpoint(t, 3))
	if _, err := ReadCheckpoint(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	flipped := make([]byte, len(data))
	for bit := range 8 * len(data) {
		copy(flipped, data)
		flipped[bit/8] ^= 1 << (bit % 8)
		if _, err := ReadCheckpoint(bytes.NewReader(flipped)); err == nil {
			t.Fatalf("checkpoint with bit %d flipped loaded", bit)
		}
	}
}

func TestCheckpointErrorMessages(t *testing.T) {
	data := encode(t, smallCheckpoint(t, 4))
	corrupt := func(f func(b []byte)) []byte {
		b := append([]byte(nil), data...)
		f(b)
		return b
	}
	// refresh recomputes the checksum so that the structural checks behind
	// it are reached.
	refresh := func(b []byte) []byte {
		n := len(b) - 4
		binary.LittleEndian.PutUint32(b[n:], crcOf(b[:n]))
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"magic", corrupt(func(b []byte) { copy(b, "NOTANNET") }), "not a tabula checkpoint"},
		{"version", corrupt(func(b []byte) { binary.LittleEndian.PutUint32(b[8:], 7) }), "format version 7, want 1"},
		{"absurd length", corrupt(func(b []byte) { binary.LittleEndian.PutUint64(b[12:], 1<<62) }), "body length"},
		{"checksum", corrupt(func(b []byte) { b[30] ^= 4 }), "checksum"},
		{"filters", refresh(corrupt(func(b []byte) {
			off := 20 + 4 + len("tiny:size=3")
			binary.LittleEndian.PutUint32(b[off:], 4096)
		})), "filters = 4096"},
		{"tensor size vs config", refresh(corrupt(func(b []byte) {
			off := 20 + 4 + len("tiny:size=3")
			binary.LittleEndian.PutUint32(b[off+4:], 0) // blocks 1 -> 0
		})), "tensors hold"},
		{"empty", nil, "not a tabula checkpoint: the file is empty"},
		{"short text", []byte("hello\n"), "not a tabula checkpoint: 6 bytes"},
		{"short checkpoint", data[:12], "not a whole tabula checkpoint: 12 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCheckpoint(bytes.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "bad.tbn")
	if err := os.WriteFile(path, data[:40], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCheckpoint(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("LoadCheckpoint error %v, want one naming %s", err, path)
	}
}

func crcOf(b []byte) uint32 {
	return crcChecksum(b)
}

// fakeGame is the minimum of games.Game that CheckGame reads.
type fakeGame struct {
	games.Game
	name                           string
	planes, height, width, actions int
}

func (g fakeGame) Name() string                      { return g.name }
func (g fakeGame) NumActions() int                   { return g.actions }
func (g fakeGame) ObservationShape() (int, int, int) { return g.planes, g.height, g.width }

func TestCheckGame(t *testing.T) {
	c := smallCheckpoint(t, 5)
	for _, tc := range []struct {
		g    fakeGame
		want string // "" = accepted
	}{
		{fakeGame{name: "tiny:size=3", planes: 2, height: 2, width: 3, actions: 3}, ""},
		{fakeGame{name: "othello:size=6", planes: 2, height: 2, width: 3, actions: 3}, `for game "tiny:size=3", not "othello:size=6"`},
		{fakeGame{name: "tiny:size=3", planes: 2, height: 2, width: 3, actions: 4}, "does not match"},
	} {
		err := c.CheckGame(tc.g)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckGame(%s): %v, want %q", tc.g.name, err, tc.want)
		}
	}
}

func FuzzReadCheckpoint(f *testing.F) {
	data := encode(f, smallCheckpoint(f, 6))
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte("TABULANN\x01\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ReadCheckpoint(bytes.NewReader(b))
		if err != nil {
			return
		}
		// Whatever loads must encode back to the same bytes.
		if !bytes.Equal(encode(t, c), b) {
			t.Fatal("a loaded checkpoint re-encodes differently")
		}
	})
}

// FuzzDecodeCheckpointBody reaches past the checksum, which random inputs
// almost never pass, to the structural checks behind it.
func FuzzDecodeCheckpointBody(f *testing.F) {
	data := encode(f, smallCheckpoint(f, 7))
	f.Add(data[20:len(data)-4], false)
	c := smallCheckpoint(f, 8)
	c.Optimizer, c.Meta = nil, nil
	data = encode(f, c)
	f.Add(data[20:len(data)-4], false)
	w, err := NewWeights(Config{Filters: 2, Blocks: 2, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 2,
		Ownership: true, Score: true, GlobalPooling: true}, Shape{Planes: 2, Height: 2, Width: 3, Actions: 3}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		f.Fatal(err)
	}
	data = encode(f, &Checkpoint{Game: "tiny", Weights: w})
	f.Add(data[20:len(data)-4], true)
	f.Fuzz(func(t *testing.T, body []byte, v2 bool) {
		version := uint32(1)
		if v2 {
			version = 2
		}
		c, err := decodeBody(body, version)
		if err != nil {
			return
		}
		if got := encode(t, c); !bytes.Equal(got[20:len(got)-4], body) {
			t.Fatal("a decoded body re-encodes differently")
		}
	})
}

// capGame is a registered game whose "cap" parameter only adjudicates
// (games.Adjudicated), for TestCheckGameAdjudicated.
type capGame struct{ fakeGame }

func (g capGame) RulesName() string { return "nntest-capped" }

func init() {
	games.Register("nntest-capped", "a test game of nn's checkpoint tests", []games.Param{{Name: "cap", Default: "0"}},
		func(p games.Params) (games.Game, error) {
			name := "nntest-capped"
			if c := p.String("cap"); c != "0" {
				name += ":cap=" + c
			}
			return capGame{fakeGame{name: name, planes: 2, height: 2, width: 3, actions: 3}}, nil
		})
}

// TestCheckGameAdjudicated checks that a checkpoint made under one
// adjudication setting is accepted for the same game under another, and not
// for another game or one that is not registered.
func TestCheckGameAdjudicated(t *testing.T) {
	c := smallCheckpoint(t, 5)
	c.Game = "nntest-capped:cap=60"
	other, err := games.New("nntest-capped")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckGame(other); err != nil {
		t.Errorf("CheckGame(%s) of a %s checkpoint: %v, want accepted", other.Name(), c.Game, err)
	}
	plain := fakeGame{name: "tiny:size=3", planes: 2, height: 2, width: 3, actions: 3}
	if err := c.CheckGame(plain); err == nil {
		t.Errorf("CheckGame(%s) accepted a checkpoint named %s", plain.name, c.Game)
	}
	c.Game = "nntest-other:cap=60"
	if err := c.CheckGame(other); err == nil || !strings.Contains(err.Error(), "not") {
		t.Errorf("CheckGame of an unregistered game's checkpoint: %v, want a refusal", err)
	}
}
