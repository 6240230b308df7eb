package search

// Bound kinds stored in the transposition table.
const (
	boundExact uint8 = 1 + iota // the value is the node's value
	boundLower                  // the value is a lower bound (a beta cutoff)
	boundUpper                  // the value is an upper bound (no move raised alpha)
)

// flagHorizon marks an entry whose subtree reached the horizon (used a
// heuristic score), so its value is not proven.
const flagHorizon uint8 = 0x80

// entry is one transposition-table slot (32 bytes; a bucket of two fills a
// 64-byte cache line).
type entry struct {
	key   uint64
	value float64
	move  int32
	depth int16
	flags uint8 // bound kind | flagHorizon
	gen   uint8 // the search that wrote it
}

// table is a transposition table of 2^bits buckets keyed by State.Hash. Each
// bucket has two slots. Replacement policy: slot 0 is depth-preferred (it is
// overwritten by the same position, by an equal or deeper search, or when it
// was written by an earlier Search call); otherwise the entry goes to slot 1,
// which is always replaced. Lookups check both slots.
type table struct {
	buckets []([2]entry)
	mask    uint64
	gen     uint8
}

func newTable(bits int) *table {
	n := 1 << bits
	return &table{buckets: make([][2]entry, n), mask: uint64(n - 1)}
}

// probe returns the entry for key, if any.
func (t *table) probe(key uint64) (entry, bool) {
	b := &t.buckets[key&t.mask]
	if b[0].flags != 0 && b[0].key == key {
		return b[0], true
	}
	if b[1].flags != 0 && b[1].key == key {
		return b[1], true
	}
	return entry{}, false
}

// store records a search result under the replacement policy.
func (t *table) store(key uint64, value float64, move, depth int, flags uint8) {
	b := &t.buckets[key&t.mask]
	e := entry{key: key, value: value, move: int32(move), depth: int16(depth), flags: flags, gen: t.gen}
	s0 := &b[0]
	if s0.flags == 0 || s0.key == key || depth >= int(s0.depth) || s0.gen != t.gen {
		if s0.key != key && s0.flags != 0 && s0.gen == t.gen {
			b[1] = *s0 // keep the displaced entry in the always-replace slot
		}
		*s0 = e
		return
	}
	b[1] = e
}

// clear empties the table.
func (t *table) clear() {
	clear(t.buckets)
	t.gen = 0
}
