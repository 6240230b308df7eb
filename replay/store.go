package replay

import (
	"encoding/binary"
	"math"
	"math/bits"

	"tabula/games"
)

// The window stores each example's policy, legal moves and opponent policy
// sparsely, as one variable-length record in a byte ring (sparseRing), and
// its observation as one byte an entry through a palette of the distinct
// values seen (obsPalette). Sampling writes them out densely, bit for bit
// what the examples held (but for a -0 policy entry on an illegal action,
// which comes back as 0).
//
// A record, little-endian, unaligned:
//
//	flags u8 (recSetMask: the legal set is a bitmask; recOpp: an opponent
//	         policy follows; recOppMask: its support is a bitmask) |
//	legal count u32 | opponent-policy count u32 (0 without one) |
//	legal set | policy float32 x legal count, in action order |
//	with recOpp: support set | opponent policy float32 x count
//
// A set of k actions out of na is stored as k uint16 action numbers in
// increasing order, or as a bitmask of ceil(na/8) bytes (LSB first) where
// that is smaller: backgammon's ~13 legal turns of 1,352 take 26 bytes, Go
// 9x9's ~40 of 82 points an 11-byte mask. The opponent policy's support is
// its entries that are not +0, so an absent action costs nothing and the
// sampled target is exactly the stored one.
const (
	recSetMask = 1 << 0
	recOpp     = 1 << 1
	recOppMask = 1 << 2
	recHeader  = 9
)

// setBytes is the size of a set of k actions out of na, and whether it is
// stored as a bitmask.
func setBytes(k, na int) (int, bool) {
	if m := (na + 7) / 8; m < 2*k {
		return m, true
	}
	return 2 * k, false
}

// recordLen is the length of the record that starts rec.
func recordLen(rec []byte, na int) int {
	le := binary.LittleEndian
	np, no := int(le.Uint32(rec[1:])), int(le.Uint32(rec[5:]))
	s, _ := setBytes(np, na)
	n := recHeader + s + 4*np
	if rec[0]&recOpp != 0 {
		s, _ := setBytes(no, na)
		n += s + 4*no
	}
	return n
}

// appendRecord appends the record of policy, legal and opp (nil for none)
// to dst.
func appendRecord(dst []byte, policy []float32, legal []bool, opp []float32) []byte {
	le := binary.LittleEndian
	na := len(legal)
	np := 0
	for _, l := range legal {
		if l {
			np++
		}
	}
	no := 0
	for _, p := range opp {
		if math.Float32bits(p) != 0 {
			no++
		}
	}
	var flags byte
	sp, maskP := setBytes(np, na)
	if maskP {
		flags |= recSetMask
	}
	so, maskO := setBytes(no, na)
	if opp != nil {
		flags |= recOpp
		if maskO {
			flags |= recOppMask
		}
	}
	dst = append(dst, flags)
	dst = le.AppendUint32(dst, uint32(np))
	dst = le.AppendUint32(dst, uint32(no))
	dst = appendSet(dst, sp, maskP, func(a int) bool { return legal[a] }, na)
	for a, l := range legal {
		if l {
			dst = le.AppendUint32(dst, math.Float32bits(policy[a]))
		}
	}
	if opp != nil {
		dst = appendSet(dst, so, maskO, func(a int) bool { return math.Float32bits(opp[a]) != 0 }, na)
		for _, p := range opp {
			if b := math.Float32bits(p); b != 0 {
				dst = le.AppendUint32(dst, b)
			}
		}
	}
	return dst
}

// appendSet appends the set of actions a < na with in(a), of size bytes,
// as a bitmask or a list.
func appendSet(dst []byte, size int, mask bool, in func(int) bool, na int) []byte {
	if mask {
		start := len(dst)
		dst = append(dst, make([]byte, size)...)
		for a := 0; a < na; a++ {
			if in(a) {
				dst[start+a/8] |= 1 << (a % 8)
			}
		}
		return dst
	}
	for a := 0; a < na; a++ {
		if in(a) {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(a))
		}
	}
	return dst
}

// scatter writes the set of k actions at rec[p:] and the values after it
// into vals (and 1 into legal, where not nil) at each action, mapped
// through symmetry s of sym where sym is not nil, and returns the offset
// after the values. vals and legal must have been cleared.
func scatter(rec []byte, p, k, na int, mask bool, vals, legal []float32, sym games.Symmetric, s int) int {
	le := binary.LittleEndian
	size, _ := setBytes(k, na)
	set := rec[p : p+size]
	v := rec[p+size : p+size+4*k]
	if mask {
		j := 0
		for i, w := range set {
			for w != 0 {
				a := 8*i + bits.TrailingZeros8(w)
				w &= w - 1
				if sym != nil {
					a = sym.TransformAction(s, a)
				}
				vals[a] = math.Float32frombits(le.Uint32(v[4*j:]))
				if legal != nil {
					legal[a] = 1
				}
				j++
			}
		}
	} else {
		for j := 0; j < k; j++ {
			a := int(le.Uint16(set[2*j:]))
			if sym != nil {
				a = sym.TransformAction(s, a)
			}
			vals[a] = math.Float32frombits(le.Uint32(v[4*j:]))
			if legal != nil {
				legal[a] = 1
			}
		}
	}
	return p + size + 4*k
}

// sparseRing keeps the records of the window's examples in one byte
// buffer, in the order the examples were added: the live records occupy
// one stretch of it, from the oldest example's (tail) to head, wrapping
// around the end (a record never straddles it; the few bytes a record did
// not fit into are skipped). Overwriting the oldest example frees its
// record's bytes for the next. When a record does not fit in the free
// stretch, or the live records take less than half the buffer, they are
// copied, oldest first, into a new buffer of 5/4 of their size (plus 4 KiB):
// the buffer stays within about 2x the live records, however their sizes
// drift.
type sparseRing struct {
	buf  []byte
	head int   // where the next record goes
	used int   // bytes of the live records
	off  []int // per window slot, the offset of its record in buf
	// tight resizes the buffer to exactly the bytes needed, no more: the
	// ring is then full nearly always (tests set it to reach every case
	// of put).
	tight bool
}

// put stores rec as the record of slot i, which holds the newest example
// once put returns; live is the number of other slots that hold records,
// and first the oldest of them (the others follow it around the window of
// len(off) slots); evict says slot i held a record before.
func (r *sparseRing) put(i int, rec []byte, first, live int, evict bool, na int) {
	if evict {
		r.used -= recordLen(r.buf[r.off[i]:], na)
	}
	L := len(rec)
	pos, ok := -1, false
	switch {
	case live == 0:
		pos, ok = 0, L <= len(r.buf)
	case r.head > r.off[first]: // the live stretch does not wrap
		if r.head+L <= len(r.buf) {
			pos, ok = r.head, true
		} else if L <= r.off[first] {
			pos, ok = 0, true
		}
	default: // it wraps: the free stretch is [head, tail)
		pos, ok = r.head, r.head+L <= r.off[first]
	}
	if !ok || len(r.buf) > 2*r.size(r.used+L) {
		pos = r.resize(first, live, L, na)
	}
	copy(r.buf[pos:], rec)
	r.off[i] = pos
	r.head = pos + L
	r.used += L
}

// size is the buffer a resize makes for n bytes of records.
func (r *sparseRing) size(n int) int {
	if r.tight {
		return n
	}
	return n*5/4 + 4096
}

// resize moves the live records into a new buffer with room for extra more
// bytes and returns where they end.
func (r *sparseRing) resize(first, live, extra, na int) int {
	w := len(r.off)
	buf := make([]byte, r.size(r.used+extra))
	pos := 0
	for k := 0; k < live; k++ {
		s := (first + k) % w
		n := recordLen(r.buf[r.off[s]:], na)
		copy(buf[pos:], r.buf[r.off[s]:r.off[s]+n])
		r.off[s] = pos
		pos += n
	}
	r.buf = buf
	return pos
}

// obsPalette codes observation entries as bytes: the index of the entry's
// value (bit for bit) among the distinct values seen, at most 256 of them.
// Code 0 is +0 and code 1 is 1, so binary planes code as themselves.
type obsPalette struct {
	vals  [256]float32
	n     int
	codes map[uint32]uint8
}

func newObsPalette() *obsPalette {
	p := &obsPalette{n: 2, codes: map[uint32]uint8{0: 0, math.Float32bits(1): 1}}
	p.vals[1] = 1
	return p
}

// encode writes the codes of src into dst and reports whether it could:
// false when src holds a 257th distinct value (dst is then partly
// written; the palette keeps the values it took).
func (p *obsPalette) encode(dst []uint8, src []float32) bool {
	for j, x := range src {
		b := math.Float32bits(x)
		switch b {
		case 0:
			dst[j] = 0
			continue
		case 0x3f800000: // 1
			dst[j] = 1
			continue
		}
		c, ok := p.codes[b]
		if !ok {
			if p.n == len(p.vals) {
				return false
			}
			c = uint8(p.n)
			p.vals[c] = x
			p.codes[b] = c
			p.n++
		}
		dst[j] = c
	}
	return true
}
