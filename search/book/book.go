package book

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"

	"tabula/games/chess"
	"tabula/internal/atomicfile"
)

// EntrySize is the size of one entry in a .bin file.
const EntrySize = 16

// Entry is one entry of a book: the key of a position, a move there in
// Polyglot's encoding (EncodeMove), its weight (the chance of playing it is
// proportional) and the learn field (0 from Polyglot's make-book).
type Entry struct {
	Key    uint64
	Move   uint16
	Weight uint16
	Learn  uint32
}

// less orders entries as Polyglot's make-book writes them: by key, then by
// weight from the highest.
func less(a, b Entry) bool {
	if a.Key != b.Key {
		return a.Key < b.Key
	}
	return a.Weight > b.Weight
}

// Book is an opening book held in memory, its entries sorted by key.
type Book struct {
	entries []Entry
}

// Parse reads a book from the bytes of a .bin file. It refuses a size that
// is not a multiple of 16 and entries out of key order (binary search needs
// them sorted).
func Parse(data []byte) (*Book, error) {
	if len(data)%EntrySize != 0 {
		return nil, fmt.Errorf("book: %d bytes is not a whole number of %d-byte entries", len(data), EntrySize)
	}
	b := &Book{entries: make([]Entry, len(data)/EntrySize)}
	for i := range b.entries {
		d := data[i*EntrySize:]
		e := Entry{
			Key:    binary.BigEndian.Uint64(d),
			Move:   binary.BigEndian.Uint16(d[8:]),
			Weight: binary.BigEndian.Uint16(d[10:]),
			Learn:  binary.BigEndian.Uint32(d[12:]),
		}
		if i > 0 && e.Key < b.entries[i-1].Key {
			return nil, fmt.Errorf("book: entry %d (key %016x) is out of order after key %016x", i, e.Key, b.entries[i-1].Key)
		}
		b.entries[i] = e
	}
	return b, nil
}

// Read reads a whole book from r.
func Read(r io.Reader) (*Book, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("book: %w", err)
	}
	return Parse(data)
}

// Load reads the book in file path.
func Load(path string) (*Book, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("book: %w", err)
	}
	b, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// Len returns the number of entries.
func (b *Book) Len() int { return len(b.entries) }

// Entries returns the entries in file order; the slice is the book's.
func (b *Book) Entries() []Entry { return b.entries }

// Lookup returns the entries of key, found by binary search, in file
// order; the slice is the book's.
func (b *Book) Lookup(key uint64) []Entry {
	lo := sort.Search(len(b.entries), func(i int) bool { return b.entries[i].Key >= key })
	hi := lo
	for hi < len(b.entries) && b.entries[hi].Key == key {
		hi++
	}
	return b.entries[lo:hi]
}

// Move is a book move of a position: the move and its entry's weight and
// learn field.
type Move struct {
	Move   chess.Move
	Weight uint16
	Learn  uint32
}

// Moves returns the book's moves for p in file order, leaving out entries
// whose move is not legal in p (a key collision or a broken entry). Where
// p's own key has no entries it tries the keys the format gives p after a
// double push beside a pawn that may not take (see Key).
func (b *Book) Moves(p *chess.Position) []Move {
	var out []Move
	for _, k := range probeKeys(p) {
		for _, e := range b.Lookup(k) {
			if m, ok := DecodeMove(p, e.Move); ok {
				out = append(out, Move{Move: m, Weight: e.Weight, Learn: e.Learn})
			}
		}
		if len(out) > 0 {
			break
		}
	}
	return out
}

// Best returns the book move of p with the highest weight (the first in
// file order among equals), or false when p has no move of positive weight.
func (b *Book) Best(p *chess.Position) (chess.Move, bool) {
	var best Move
	for _, m := range b.Moves(p) {
		if m.Weight > best.Weight {
			best = m
		}
	}
	return best.Move, best.Weight > 0
}

// Pick returns a book move of p chosen with probability weight / (sum of
// the weights), as Polyglot plays its books; moves of weight 0 are never
// chosen. It returns false when p has no move of positive weight.
func (b *Book) Pick(p *chess.Position, rng *rand.Rand) (chess.Move, bool) {
	moves := b.Moves(p)
	total := 0
	for _, m := range moves {
		total += int(m.Weight)
	}
	if total == 0 {
		return 0, false
	}
	r := rng.IntN(total)
	for _, m := range moves {
		if r < int(m.Weight) {
			return m.Move, true
		}
		r -= int(m.Weight)
	}
	panic("unreachable")
}

// Marshal returns the bytes of a .bin file holding entries, sorted by key,
// then by weight from the highest; entries equal in both keep their order
// in entries (a stable sort, as make-book's qsort is with GNU libc up to
// 2.36). entries is not modified.
func Marshal(entries []Entry) []byte {
	sorted := append([]Entry(nil), entries...)
	sort.SliceStable(sorted, func(i, j int) bool { return less(sorted[i], sorted[j]) })
	data := make([]byte, len(sorted)*EntrySize)
	for i, e := range sorted {
		d := data[i*EntrySize:]
		binary.BigEndian.PutUint64(d, e.Key)
		binary.BigEndian.PutUint16(d[8:], e.Move)
		binary.BigEndian.PutUint16(d[10:], e.Weight)
		binary.BigEndian.PutUint32(d[12:], e.Learn)
	}
	return data
}

// Write writes entries to w as a .bin file (see Marshal).
func Write(w io.Writer, entries []Entry) error {
	_, err := w.Write(Marshal(entries))
	return err
}

// WriteFile writes entries to path as a .bin file (see Marshal), atomically:
// readers see the old file or the whole new one.
func WriteFile(path string, entries []Entry) error {
	if err := atomicfile.Write(path, Marshal(entries)); err != nil {
		return fmt.Errorf("book %s: %w", path, err)
	}
	return nil
}
