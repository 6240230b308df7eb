package othello

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// naiveFlips walks the eight directions square by square.
func naiveFlips(sq int, p, o uint64) uint64 {
	if (p|o)&(1<<uint(sq)) != 0 {
		return 0
	}
	var f uint64
	for _, d := range [8][2]int{{0, 1}, {1, -1}, {1, 0}, {1, 1}, {0, -1}, {-1, 1}, {-1, 0}, {-1, -1}} {
		var run uint64
		r, c := sq/8+d[0], sq%8+d[1]
		for ; r >= 0 && r < 8 && c >= 0 && c < 8 && o&(1<<uint(r*8+c)) != 0; r, c = r+d[0], c+d[1] {
			run |= 1 << uint(r*8+c)
		}
		if r >= 0 && r < 8 && c >= 0 && c < 8 && p&(1<<uint(r*8+c)) != 0 {
			f |= run
		}
	}
	return f
}

// randomBoards returns disjoint random boards with varied densities.
func randomBoards(rng *rand.Rand) (p, o uint64) {
	occ := rng.Uint64() | rng.Uint64()
	if rng.IntN(2) == 0 {
		occ |= rng.Uint64()
	}
	mix := rng.Uint64()
	return occ & mix, occ &^ mix
}

func TestFlipsAndMovesAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 20000; i++ {
		p, o := randomBoards(rng)
		var want uint64
		for sq := 0; sq < 64; sq++ {
			nf := naiveFlips(sq, p, o)
			if nf != 0 {
				want |= 1 << uint(sq)
			}
			if (p|o)&(1<<uint(sq)) == 0 {
				if got := Flips(sq, p, o); got != nf {
					t.Fatalf("Flips(%d, %#x, %#x) = %#x, want %#x", sq, p, o, got, nf)
				}
			}
		}
		if got := Moves(p, o); got != want {
			t.Fatalf("Moves(%#x, %#x) = %#x, want %#x", p, o, got, want)
		}
	}
}

func BenchmarkFlips(b *testing.B) { benchFlips(b, Flips) }

// BenchmarkFlipsGeneric measures the portable Flips (Flips itself is the
// AVX-512 one where the CPU has it).
func BenchmarkFlipsGeneric(b *testing.B) { benchFlips(b, flipsGeneric) }

// benchFlips times flips on the first legal move of 1,024 random boards.
func benchFlips(b *testing.B, flips func(sq int, p, o uint64) uint64) {
	rng := rand.New(rand.NewPCG(8, 8))
	type pos struct {
		p, o uint64
		sq   int
	}
	var ps []pos
	for len(ps) < 1024 {
		p, o := randomBoards(rng)
		if m := Moves(p, o); m != 0 {
			ps = append(ps, pos{p, o, bits.TrailingZeros64(m)})
		}
	}
	var sink uint64
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := &ps[i&1023]
		sink += flips(q.sq, q.p, q.o)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "flips/s")
	_ = sink
}

// TestFlipsGenericAndAsm checks the portable Flips against the naive walk
// on machines whose Flips is the AVX-512 one, and the AVX-512 one against
// the portable one on every square, empty or not.
func TestFlipsGenericAndAsm(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 20000; i++ {
		p, o := randomBoards(rng)
		for sq := 0; sq < 64; sq++ {
			g := flipsGeneric(sq, p, o)
			if (p|o)&(1<<uint(sq)) == 0 {
				if nf := naiveFlips(sq, p, o); g != nf {
					t.Fatalf("flipsGeneric(%d, %#x, %#x) = %#x, want %#x", sq, p, o, g, nf)
				}
			}
			if flipsAsm {
				if a := flipsAVX512(sq, p, o); a != g {
					t.Fatalf("flipsAVX512(%d, %#x, %#x) = %#x, flipsGeneric %#x", sq, p, o, a, g)
				}
			}
		}
	}
	if !flipsAsm {
		t.Log("no AVX-512 on this machine: the portable Flips only")
	}
}
