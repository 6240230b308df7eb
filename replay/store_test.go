package replay

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestSparseRingKeepsLiveRecords puts records of varying lengths (a
// policy over 1 to 20 legal actions of 20, and an opponent policy over 1 to
// 20 or none: 15 to 175 bytes, every length in between common) into a ring
// of 50 slots, oldest evicted first, and after every put checks that every
// live slot still holds its record byte for byte: the new record must
// never land on a live one, wherever the free stretch is (before the end,
// at the start, between head and tail) and however often the ring is
// resized. The tight ring, resized to exactly what it needs, is full nearly
// always, so that records fill the free stretch to the byte.
func TestSparseRingKeepsLiveRecords(t *testing.T) {
	for _, tight := range []bool{false, true} {
		ringPuts(t, tight)
	}
}

// ringPuts is TestSparseRingKeepsLiveRecords with a tight ring or not.
func ringPuts(t *testing.T, tight bool) {
	const window, na, puts = 50, 20, 20000
	rng := rand.New(rand.NewPCG(1, 2))
	r := sparseRing{off: make([]int, window), tight: tight}
	want := make([][]byte, window)
	next, size, resized := 0, 0, 0
	for n := 0; n < puts; n++ {
		// Mostly short records, and stretches of long ones, after which
		// the ring shrinks back.
		most := 4
		if n%2000 > 1800 {
			most = na
		}
		legal, policy := make([]bool, na), make([]float32, na)
		for range 1 + rng.IntN(most) {
			a := rng.IntN(na)
			legal[a] = true
			policy[a] = float32(n) // tells the records apart
		}
		var opp []float32
		if rng.IntN(2) == 0 {
			opp = make([]float32, na)
			for range 1 + rng.IntN(most) {
				opp[rng.IntN(na)] = float32(n)
			}
		}
		rec := appendRecord(nil, policy, legal, opp)
		i := next
		first, live := (i-size+window)%window, size
		if size == window {
			first, live = (i+1)%window, window-1
		}
		before := len(r.buf)
		r.put(i, rec, first, live, size == window, na)
		if len(r.buf) != before {
			resized++
		}
		want[i] = rec
		next, size = (next+1)%window, min(size+1, window)
		for s := 0; s < size; s++ {
			if got := r.buf[r.off[s] : r.off[s]+len(want[s])]; !bytes.Equal(got, want[s]) {
				t.Fatalf("put %d: slot %d's record was overwritten", n, s)
			}
		}
		if l := recordLen(r.buf[r.off[i]:], na); l != len(rec) {
			t.Fatalf("put %d: record of %d bytes reads as %d", n, len(rec), l)
		}
		if used := liveBytes(want[:size]); r.used != used {
			t.Fatalf("put %d: the ring counts %d bytes of live records, they take %d", n, r.used, used)
		}
	}
	live := liveBytes(want)
	t.Logf("tight %v: %d puts, the ring was resized %d times, to %d bytes for %d of live records", tight, puts, resized, len(r.buf), live)
	if !tight && len(r.buf) > 2*live+8192 {
		t.Errorf("the ring holds %d bytes for %d of live records", len(r.buf), live)
	}
}

func liveBytes(recs [][]byte) int {
	n := 0
	for _, rec := range recs {
		n += len(rec)
	}
	return n
}
