package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"tabula/games"
)

// denseRef is the window as it was stored before the sparse records: every
// policy, legal mask and opponent policy dense over all actions, every
// observation as float32. Its sample draws from rng exactly as
// Buffer.Sample does, so that the two must fill identical batches.
type denseRef struct {
	obsLen, na, points, window int
	sym                        games.Symmetric
	perm                       [][]int32
	next, size                 int
	obs, policy, value, opp    []float32
	legal, hasAux, hasOpp      []bool
	own                        []int8
	score                      []float32
}

func newDenseRef(b *Buffer) *denseRef {
	w := b.cfg.Window
	return &denseRef{obsLen: b.obsLen, na: b.na, points: b.points, window: w, sym: b.sym, perm: b.perm,
		obs: make([]float32, w*b.obsLen), policy: make([]float32, w*b.na), legal: make([]bool, w*b.na),
		value: make([]float32, w), hasAux: make([]bool, w), own: make([]int8, w*b.points), score: make([]float32, w),
		hasOpp: make([]bool, w), opp: make([]float32, w*b.na)}
}

func (d *denseRef) add(examples []Example) {
	for _, e := range examples {
		i := d.next
		copy(d.obs[i*d.obsLen:], e.Obs)
		copy(d.policy[i*d.na:], e.Policy)
		copy(d.legal[i*d.na:], e.Legal)
		d.value[i] = e.Value
		d.hasAux[i] = e.Ownership != nil
		o := d.own[i*d.points : (i+1)*d.points]
		clear(o)
		for j, x := range e.Ownership {
			o[j] = int8(math.Round(float64(x) * 127))
		}
		d.score[i] = e.Score
		d.hasOpp[i] = e.OppPolicy != nil
		p := d.opp[i*d.na : (i+1)*d.na]
		clear(p)
		copy(p, e.OppPolicy)
		d.next = (d.next + 1) % d.window
		d.size = min(d.size+1, d.window)
	}
}

func (d *denseRef) sample(rng *rand.Rand, batch *Batch) {
	for k := range batch.Value {
		i := rng.IntN(d.size)
		sym := 0
		if d.sym != nil {
			sym = rng.IntN(d.sym.NumSymmetries())
		}
		d.fill(batch, k, i, sym)
	}
}

func (d *denseRef) fill(batch *Batch, k, i, sym int) {
	obs := batch.Obs[k*d.obsLen : (k+1)*d.obsLen]
	src := d.obs[i*d.obsLen : (i+1)*d.obsLen]
	if sym == 0 {
		copy(obs, src)
	} else {
		d.sym.TransformObservation(sym, obs, src)
	}
	for a := 0; a < d.na; a++ {
		t := a
		if sym != 0 {
			t = d.sym.TransformAction(sym, a)
		}
		batch.Policy[k*d.na+t] = d.policy[i*d.na+a]
		batch.Legal[k*d.na+t] = boolTo32(d.legal[i*d.na+a])
		opp := float32(0)
		if d.hasOpp[i] {
			opp = d.opp[i*d.na+a]
		}
		batch.OppPolicy[k*d.na+t] = opp
	}
	batch.Value[k] = d.value[i]
	own := batch.Ownership[k*d.points : (k+1)*d.points]
	batch.Score[k], batch.AuxWeight[k] = 0, 0
	clear(own)
	if d.hasAux[i] {
		for j := range own {
			from := j
			if sym != 0 {
				from = int(d.perm[sym][j])
			}
			own[j] = float32(d.own[i*d.points+from]) / 127
		}
		batch.Score[k], batch.AuxWeight[k] = d.score[i], 1
	}
}

// sameBits fails unless two batches hold the same bits in every field.
func sameBits(t *testing.T, what string, got, want *Batch) {
	t.Helper()
	for _, f := range []struct {
		name      string
		got, want []float32
	}{{"obs", got.Obs, want.Obs}, {"policy", got.Policy, want.Policy}, {"legal", got.Legal, want.Legal},
		{"value", got.Value, want.Value}, {"ownership", got.Ownership, want.Ownership}, {"score", got.Score, want.Score},
		{"aux weight", got.AuxWeight, want.AuxWeight}, {"opponent policy", got.OppPolicy, want.OppPolicy}} {
		for j := range f.want {
			if math.Float32bits(f.got[j]) != math.Float32bits(f.want[j]) {
				t.Fatalf("%s: %s entry %d = %v, the dense layout gives %v", what, f.name, j, f.got[j], f.want[j])
			}
		}
	}
}

// sameWindow fails unless every example of the window, through every
// symmetry, comes out of b as of the dense reference.
func sameWindow(t *testing.T, what string, b *Buffer, ref *denseRef) {
	t.Helper()
	syms := 1
	if b.sym != nil {
		syms = b.sym.NumSymmetries()
	}
	got, want := b.NewBatch(b.size), b.NewBatch(b.size)
	for sym := 0; sym < syms; sym++ {
		for i := 0; i < b.size; i++ {
			b.fill(got, i, i, sym)
			ref.fill(want, i, i, sym)
		}
		sameBits(t, fmt.Sprintf("%s, the whole window through symmetry %d", what, sym), got, want)
	}
}

// sameBatchCases are the games the sparse window is checked on against the
// dense one.
var sameBatchCases = append(memCases[:len(memCases):len(memCases)],
	// Backgammon with an opponent policy (the support of a 1,352-action
	// game's policy is stored as a list of actions).
	memCase{"backgammon-opp", false, func(tb testing.TB, n int) (games.Game, []Example) {
		g, ex := chanceExamples(tb, n+1)
		for i := 0; i < n; i++ {
			if i%5 != 4 { // every fifth without one
				ex[i].OppPolicy = ex[i+1].Policy
			}
		}
		return g, ex[:n]
	}},
	// Go 5x5 with ownership on every other example and a two-action
	// opponent policy on every third.
	memCase{"go5", true, func(tb testing.TB, n int) (games.Game, []Example) {
		g, err := games.New("go:size=5")
		if err != nil {
			tb.Fatal(err)
		}
		return g, oppExamples(tb, g, n)
	}},
)

// TestSampleMatchesDenseLayout feeds the same examples, in chunks of random
// sizes, to a window of 61 and to the dense reference, wrapping around the
// window about 25 times, and after every chunk draws a batch from both on
// the same seed: they must be identical bit for bit, and the whole window
// through every symmetry too. Sampling must not allocate.
func TestSampleMatchesDenseLayout(t *testing.T) {
	const window, n = 61, 1500
	for _, c := range sameBatchCases {
		t.Run(c.name, func(t *testing.T) {
			g, ex := c.build(t, n)
			b, err := Open(t.TempDir(), g, Config{Window: window, Augment: c.augment}, "w", quiet)
			if err != nil {
				t.Fatal(err)
			}
			if c.augment && b.sym == nil {
				t.Fatalf("%s: no symmetries to augment with", g.Name())
			}
			ref := newDenseRef(b)
			got, want := b.NewBatch(16), b.NewBatch(16)
			chunks := rand.New(rand.NewPCG(3, 4))
			for i, round := 0, 0; i < n; round++ {
				m := min(1+chunks.IntN(40), n-i)
				b.mu.Lock()
				b.addLocked(ex[i : i+m])
				b.mu.Unlock()
				ref.add(ex[i : i+m])
				i += m
				seed := uint64(round)
				if err := b.Sample(rand.New(rand.NewPCG(seed, 7)), got); err != nil {
					t.Fatal(err)
				}
				ref.sample(rand.New(rand.NewPCG(seed, 7)), want)
				sameBits(t, fmt.Sprintf("round %d (%d examples added)", round, i), got, want)
				sameWindow(t, fmt.Sprintf("round %d (%d examples added)", round, i), b, ref)
			}
			rng := rand.New(rand.NewPCG(1, 1))
			if allocs := testing.AllocsPerRun(20, func() { b.Sample(rng, got) }); allocs != 0 {
				t.Errorf("Sample allocates %v times a call", allocs)
			}
			// The records take about what the live ones need, however
			// often the ring wrapped.
			live := 0
			for s := 0; s < window; s++ {
				live += recordLen(b.recs.buf[b.recs.off[s]:], b.na)
			}
			if len(b.recs.buf) > 2*live+8192 {
				t.Errorf("the records' ring holds %d bytes for %d bytes of live records", len(b.recs.buf), live)
			}
		})
	}
}

// TestSampleMatchesDenseLayoutWithoutOpp checks a window none of whose
// examples has an opponent policy: the batch's opponent policy is zeros.
func TestSampleMatchesDenseLayoutWithoutOpp(t *testing.T) {
	g, ex := chanceExamples(t, 200)
	b, err := Open(t.TempDir(), g, Config{Window: 50}, "w", quiet)
	if err != nil {
		t.Fatal(err)
	}
	ref := newDenseRef(b)
	b.mu.Lock()
	b.addLocked(ex)
	b.mu.Unlock()
	ref.add(ex)
	got, want := b.NewBatch(32), b.NewBatch(32)
	for j := range got.OppPolicy { // the sample must overwrite these
		got.OppPolicy[j], got.Policy[j%len(got.Policy)] = 1, 1
	}
	if err := b.Sample(rand.New(rand.NewPCG(1, 1)), got); err != nil {
		t.Fatal(err)
	}
	ref.sample(rand.New(rand.NewPCG(1, 1)), want)
	sameBits(t, "no opponent policy", got, want)
}

// TestObservationsBeyondThePalette adds binary observations, then ones with
// a few hundred distinct values (more than a byte codes): the window turns
// to float32 observations and every one, stored before or after, samples as
// it was added.
func TestObservationsBeyondThePalette(t *testing.T) {
	g := connect4(t)
	ex := examples(g, 120, 5)
	for i := 40; i < 120; i++ {
		for j := range ex[i].Obs {
			if j%3 == 0 {
				ex[i].Obs[j] = float32(i*len(ex[i].Obs)+j) / 1024
			}
		}
	}
	b, err := Open(t.TempDir(), g, Config{Window: 100, Augment: true}, "w", quiet)
	if err != nil {
		t.Fatal(err)
	}
	ref := newDenseRef(b)
	got, want := b.NewBatch(64), b.NewBatch(64)
	for i := 0; i < len(ex); i += 20 {
		b.mu.Lock()
		b.addLocked(ex[i : i+20])
		b.mu.Unlock()
		ref.add(ex[i : i+20])
		if err := b.Sample(rand.New(rand.NewPCG(uint64(i), 1)), got); err != nil {
			t.Fatal(err)
		}
		ref.sample(rand.New(rand.NewPCG(uint64(i), 1)), want)
		sameBits(t, fmt.Sprintf("after %d examples", i+20), got, want)
	}
	if b.obsF == nil {
		t.Fatal("the window still codes observations through the palette")
	}
}
