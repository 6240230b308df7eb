package search

import (
	"math"
	"sync/atomic"
)

// Bound kinds stored in the transposition table.
const (
	boundExact uint8 = 1 + iota // the value is the node's value
	boundLower                  // the value is a lower bound (a beta cutoff)
	boundUpper                  // the value is an upper bound (no move raised alpha)
)

// flagHorizon marks an entry whose subtree reached the horizon (used a
// heuristic score), so its value is not proven.
const flagHorizon uint8 = 0x80

// entry is one transposition-table result, as probe returns it.
type entry struct {
	key   uint64
	value float64
	move  int32
	depth int16
	flags uint8 // bound kind | flagHorizon
	gen   uint8 // the search that wrote it
}

// pack returns the entry's value and its other fields as two words.
func (e entry) pack() (value, meta uint64) {
	meta = uint64(uint32(e.move)) | uint64(uint16(e.depth))<<32 | uint64(e.flags)<<48 | uint64(e.gen)<<56
	return math.Float64bits(e.value), meta
}

func unpack(key, value, meta uint64) entry {
	return entry{key: key, value: math.Float64frombits(value), move: int32(uint32(meta)),
		depth: int16(uint16(meta >> 32)), flags: uint8(meta >> 48), gen: uint8(meta >> 56)}
}

// slotWords is the size of a slot in words: the key xor the other two, the
// value, and move, depth, flags and generation.
const slotWords = 3

// bucket is two slots in a 64-byte cache line (the last two words unused).
type bucket [8]atomic.Uint64

// table is a transposition table of 2^bits buckets keyed by State.Hash. Each
// bucket has two slots. Replacement policy: slot 0 is depth-preferred (it is
// overwritten by the same position, by an equal or deeper search, or when it
// was written by an earlier Search call); otherwise the entry goes to slot 1,
// which is always replaced. Lookups check both slots.
//
// Several searchers may share a table (Lazy SMP) without locks: every word
// is read and written atomically, and a slot keeps its key xor its two data
// words, so a slot whose words come from two different writes fails the key
// check and reads as empty (Hyatt and Mann's lockless hashing).
type table struct {
	buckets []bucket
	mask    uint64
	gen     uint8 // written only while no search runs
}

func newTable(bits int) *table {
	n := 1 << bits
	return &table{buckets: make([]bucket, n), mask: uint64(n - 1)}
}

// load returns slot i of bucket b; ok is false for an empty or torn slot.
func (b *bucket) load(i int) (entry, bool) {
	w := b[i*slotWords:]
	check, value, meta := w[0].Load(), w[1].Load(), w[2].Load()
	if meta == 0 {
		return entry{}, false
	}
	return unpack(check^value^meta, value, meta), true
}

// set writes e into slot i of bucket b.
func (b *bucket) set(i int, e entry) {
	w := b[i*slotWords:]
	value, meta := e.pack()
	w[1].Store(value)
	w[2].Store(meta)
	w[0].Store(e.key ^ value ^ meta)
}

// probe returns the entry for key, if any.
func (t *table) probe(key uint64) (entry, bool) {
	b := &t.buckets[key&t.mask]
	for i := range 2 {
		if e, ok := b.load(i); ok && e.key == key && e.flags != 0 {
			return e, true
		}
	}
	return entry{}, false
}

// store records a search result under the replacement policy.
func (t *table) store(key uint64, value float64, move, depth int, flags uint8) {
	b := &t.buckets[key&t.mask]
	e := entry{key: key, value: value, move: int32(move), depth: int16(depth), flags: flags, gen: t.gen}
	s0, ok0 := b.load(0)
	if !ok0 || s0.key == key || depth >= int(s0.depth) || s0.gen != t.gen {
		if ok0 && s0.key != key && s0.gen == t.gen {
			b.set(1, s0) // keep the displaced entry in the always-replace slot
		}
		b.set(0, e)
		return
	}
	b.set(1, e)
}

// clear empties the table; no search may be using it.
func (t *table) clear() {
	clear(t.buckets)
	t.gen = 0
}
