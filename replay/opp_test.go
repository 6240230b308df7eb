package replay

import (
	"math/rand/v2"
	"slices"
	"testing"

	"tabula/games"
)

// oppExamples returns auxExamples whose examples 0, 3, 6, ... carry an
// opponent-policy target: 0.7 on one action and 0.3 on another, both
// depending on the example's index, so that the sampled target tells the
// symmetry it went through.
func oppExamples(t testing.TB, g games.Game, n int) []Example {
	ex := auxExamples(t, g, n)
	for i := range ex {
		if i%3 != 0 {
			continue
		}
		ex[i].OppPolicy = make([]float32, g.NumActions())
		ex[i].OppPolicy[(i+1)%g.NumActions()] = 0.7
		ex[i].OppPolicy[(3*i+7)%g.NumActions()] += 0.3
	}
	return ex
}

// TestOppRoundTrip writes examples with and without opponent-policy
// targets (beside ownership targets on others), reads them back from the
// chunk and from a reopened window, and samples them with augmentation:
// every target must come back mapped through the symmetry of its
// observation, and an example without one gives a row of zeros.
func TestOppRoundTrip(t *testing.T) {
	g := goGame(t)
	sym := g.(games.Symmetric)
	ex := oppExamples(t, g, 12)
	dir, b, _, back := writeBack(t, g, ex)
	for i := range ex {
		if !slices.Equal(back[i].OppPolicy, ex[i].OppPolicy) || !slices.Equal(back[i].Ownership, ex[i].Ownership) ||
			!slices.Equal(back[i].Policy, ex[i].Policy) || back[i].Value != ex[i].Value {
			t.Fatalf("example %d changed through the chunk: %+v\nwant %+v", i, back[i], ex[i])
		}
	}
	// Opponent-policy targets alone make a version 3 chunk too.
	only := oppExamples(t, g, 1)
	only[0].Ownership = nil
	path, err := b.Write(only)
	if err != nil {
		t.Fatal(err)
	}
	if v := innerVersion(t, path); v != chunkFlagged {
		t.Fatalf("chunk with opponent-policy targets only: version %v, want %v", v, chunkFlagged)
	}
	if _, back, err := ReadChunkFile(path); err != nil || !slices.Equal(back[0].OppPolicy, only[0].OppPolicy) || back[0].Ownership != nil {
		t.Fatalf("opponent-policy-only chunk read back as %+v, %v", back, err)
	}

	p, h, w := g.ObservationShape()
	n, A := p*h*w, g.NumActions()
	for _, buf := range []*Buffer{b, open2(t, dir, g)} {
		batch := buf.NewBatch(400)
		if err := buf.Sample(rand.New(rand.NewPCG(3, 3)), batch); err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for k, v := range batch.Value {
			i := slices.IndexFunc(ex, func(e Example) bool { return e.Value == v })
			if i < 0 {
				continue // the one-example chunk
			}
			opp := batch.OppPolicy[k*A : (k+1)*A]
			if ex[i].OppPolicy == nil {
				if slices.ContainsFunc(opp, func(x float32) bool { return x != 0 }) {
					t.Fatalf("sample %d: example %d has no opponent-policy target, batch row %v", k, i, opp)
				}
				continue
			}
			obs := batch.Obs[k*n : (k+1)*n]
			found := -1
			tmp, want := make([]float32, n), make([]float32, A)
			for s := 0; s < sym.NumSymmetries() && found < 0; s++ {
				sym.TransformObservation(s, tmp, ex[i].Obs)
				clear(want)
				for a, x := range ex[i].OppPolicy {
					want[sym.TransformAction(s, a)] = x
				}
				if slices.Equal(tmp, obs) && slices.Equal(want, opp) {
					found = s
				}
			}
			if found < 0 {
				t.Fatalf("sample %d (example %d): no symmetry maps both the observation and the opponent policy %v", k, i, opp)
			}
			seen[found] = true
		}
		if len(seen) < 4 {
			t.Errorf("samples went through only %d symmetries", len(seen))
		}
	}
}

func TestOppChecks(t *testing.T) {
	g := goGame(t)
	p, h, w := g.ObservationShape()
	for name, mod := range map[string]func(e *Example){
		"short opponent policy":    func(e *Example) { e.OppPolicy = e.OppPolicy[:3] },
		"opponent policy sums 0.7": func(e *Example) { e.OppPolicy[(3*3+7)%g.NumActions()] = 0 },
		"negative entry":           func(e *Example) { e.OppPolicy[0] = -0.1 },
	} {
		ex := oppExamples(t, g, 4)
		mod(&ex[3])
		if _, err := encodeChunk(g.Name(), p*h*w, g.NumActions(), h*w, ex); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
	damagedChunksFail(t, g, oppExamples(t, g, 4), 5)
}
