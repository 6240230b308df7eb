package book

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"sort"

	"tabula/games"
	"tabula/internal/atomicfile"
)

// A game book is an opening book for any deterministic game of perfect
// information (Othello first): positions keyed by their games.State hash,
// each with moves valued by negamax over a tree of played games (see
// Learn). Positions that are the same up to a symmetry of the board
// (games.Symmetric: Othello's 8) share one entry: the key is the smallest
// hash among the position's images, and moves are stored as they are in
// that image.
//
// File format (all integers little-endian):
//
//	magic   "TABBOOK1" (8 bytes)
//	name    uint16 length, then the game's spec (games.Game.Name())
//	count   uint32, the number of entries
//	entries count x 24 bytes, sorted by key then action:
//	        key uint64, action uint32, count uint32, value float32,
//	        flags uint32 (bit 0: a deviation, a move valued by a search
//	        rather than played in the games; bit 1: an exact value, from
//	        a solver)
//	crc     uint32, CRC-32C (Castagnoli) of every byte before it
//
// Files are written atomically (internal/atomicfile).

// gameBookMagic starts every game book file.
const gameBookMagic = "TABBOOK1"

// gameEntrySize is the size of one entry of a game book file.
const gameEntrySize = 24

// FlagDeviation marks a GameEntry whose move was not played in the games
// but found by a search: the best move outside the tree (Buro's
// deviation).
const FlagDeviation = 1

// FlagExact marks a GameEntry whose value is the move's exact
// game-theoretic value, from a solver (scripts/makebook -solve for Connect
// Four), not an estimate backed up from games.
const FlagExact = 2

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// GameEntry is one move of one position of a game book: Key is the
// position's canonical key (CanonicalKey), Action the move in the
// canonical image, Count how many games played it (0 for a deviation),
// Value its backed-up negamax value for the player to move, in [-1, 1].
type GameEntry struct {
	Key    uint64
	Action uint32
	Count  uint32
	Value  float32
	Flags  uint32
}

// CanonicalKey returns the key of s in a game book and the symmetry k of
// g that maps s to its canonical image: the image with the smallest hash
// among s's images under g's symmetries (k = 0 and s's own hash when g is
// not games.Symmetric). An action a of s is stored as
// TransformAction(k, a).
func CanonicalKey(g games.Game, s games.State) (key uint64, k int) {
	key = s.Hash()
	sym, ok := g.(games.Symmetric)
	if !ok {
		return key, 0
	}
	for j := 1; j < sym.NumSymmetries(); j++ {
		if h := sym.TransformState(j, s).Hash(); h < key {
			key, k = h, j
		}
	}
	return key, k
}

// canonicalAction maps action a of a position through symmetry k.
func canonicalAction(g games.Game, k, a int) int {
	if k == 0 {
		return a
	}
	return g.(games.Symmetric).TransformAction(k, a)
}

// actualAction maps a canonical action back through the inverse of k.
func actualAction(g games.Game, k, a int) int {
	if k == 0 {
		return a
	}
	sym := g.(games.Symmetric)
	return sym.TransformAction(sym.Inverse(k), a)
}

// GameBook is a game book held in memory for one game.
type GameBook struct {
	game    string
	entries []GameEntry
}

// NewGameBook returns a book of game g holding entries (sorted here; the
// slice is not modified).
func NewGameBook(g games.Game, entries []GameEntry) *GameBook {
	sorted := append([]GameEntry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Key != sorted[j].Key {
			return sorted[i].Key < sorted[j].Key
		}
		return sorted[i].Action < sorted[j].Action
	})
	return &GameBook{game: g.Name(), entries: sorted}
}

// Game returns the spec of the book's game.
func (b *GameBook) Game() string { return b.game }

// Len returns the number of entries.
func (b *GameBook) Len() int { return len(b.entries) }

// Entries returns the entries sorted by key and action; the slice is the
// book's.
func (b *GameBook) Entries() []GameEntry { return b.entries }

// Lookup returns the entries of key; the slice is the book's.
func (b *GameBook) Lookup(key uint64) []GameEntry {
	lo := sort.Search(len(b.entries), func(i int) bool { return b.entries[i].Key >= key })
	hi := lo
	for hi < len(b.entries) && b.entries[hi].Key == key {
		hi++
	}
	return b.entries[lo:hi]
}

// BookMove is a move of a position in the book, in that position's own
// coordinates.
type BookMove struct {
	Action    int
	Value     float64
	Count     int
	Deviation bool
	Exact     bool
}

// Moves returns the book's moves of s (a state of game g, the book's
// game) in s's own coordinates, leaving out any that is not legal in s (a
// hash collision). nil means s is not in the book.
func (b *GameBook) Moves(g games.Game, s games.State) []BookMove {
	if s.IsTerminal() {
		return nil
	}
	key, k := CanonicalKey(g, s)
	var out []BookMove
	for _, e := range b.Lookup(key) {
		a := actualAction(g, k, int(e.Action))
		if a < 0 || a >= g.NumActions() || !s.IsLegal(a) {
			continue
		}
		out = append(out, BookMove{Action: a, Value: float64(e.Value), Count: int(e.Count), Deviation: e.Flags&FlagDeviation != 0, Exact: e.Flags&FlagExact != 0})
	}
	return out
}

// Choose returns the move to play in s from the book: among the moves
// whose backed-up value is within margin of the best, one drawn uniformly
// with rng (margin 0: the best, ties drawn at random; rng nil: the first
// in action order among them), and its value. ok is false when s is not in
// the book.
func (b *GameBook) Choose(g games.Game, s games.State, margin float64, rng *rand.Rand) (action int, value float64, ok bool) {
	moves := b.Moves(g, s)
	if len(moves) == 0 {
		return 0, 0, false
	}
	best := math.Inf(-1)
	for _, m := range moves {
		best = max(best, m.Value)
	}
	var cand []BookMove
	for _, m := range moves {
		if m.Value >= best-margin-1e-9 {
			cand = append(cand, m)
		}
	}
	sort.Slice(cand, func(i, j int) bool { return cand[i].Action < cand[j].Action })
	m := cand[0]
	if rng != nil && len(cand) > 1 {
		m = cand[rng.IntN(len(cand))]
	}
	return m.Action, m.Value, true
}

// Marshal returns the bytes of the book's file.
func (b *GameBook) Marshal() []byte {
	var buf bytes.Buffer
	buf.WriteString(gameBookMagic)
	le := binary.LittleEndian
	var tmp [gameEntrySize]byte
	le.PutUint16(tmp[:2], uint16(len(b.game)))
	buf.Write(tmp[:2])
	buf.WriteString(b.game)
	le.PutUint32(tmp[:4], uint32(len(b.entries)))
	buf.Write(tmp[:4])
	for _, e := range b.entries {
		le.PutUint64(tmp[0:], e.Key)
		le.PutUint32(tmp[8:], e.Action)
		le.PutUint32(tmp[12:], e.Count)
		le.PutUint32(tmp[16:], math.Float32bits(e.Value))
		le.PutUint32(tmp[20:], e.Flags)
		buf.Write(tmp[:])
	}
	out := buf.Bytes()
	return le.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

// WriteFile writes the book to path atomically.
func (b *GameBook) WriteFile(path string) error {
	if len(b.game) > math.MaxUint16 {
		return fmt.Errorf("book %s: game name of %d bytes is too long", path, len(b.game))
	}
	if err := atomicfile.Write(path, b.Marshal()); err != nil {
		return fmt.Errorf("book %s: %w", path, err)
	}
	return nil
}

// ErrNotGameBook is returned (wrapped) for data that does not start with
// a game book's magic.
var ErrNotGameBook = errors.New("not a tabula game book (no TABBOOK1 header)")

// IsGameBook reports whether data starts as a game book file does.
func IsGameBook(data []byte) bool { return bytes.HasPrefix(data, []byte(gameBookMagic)) }

// ParseGameBook reads a game book from the bytes of its file, checking the
// magic, the checksum, the size and the order of the entries.
func ParseGameBook(data []byte) (*GameBook, error) {
	if !IsGameBook(data) {
		return nil, fmt.Errorf("book: %w", ErrNotGameBook)
	}
	le := binary.LittleEndian
	const minSize = len(gameBookMagic) + 2 + 4 + 4
	if len(data) < minSize {
		return nil, fmt.Errorf("book: %d bytes, too short for a game book (cut short?)", len(data))
	}
	body, sum := data[:len(data)-4], le.Uint32(data[len(data)-4:])
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return nil, fmt.Errorf("book: checksum %08x, the file's bytes give %08x (corrupt or cut short)", sum, got)
	}
	p := body[len(gameBookMagic):]
	n := int(le.Uint16(p))
	p = p[2:]
	if len(p) < n+4 {
		return nil, fmt.Errorf("book: game name of %d bytes runs past the end", n)
	}
	b := &GameBook{game: string(p[:n])}
	p = p[n:]
	count := int(le.Uint32(p))
	p = p[4:]
	if len(p) != count*gameEntrySize {
		return nil, fmt.Errorf("book: %d entries need %d bytes, the file has %d", count, count*gameEntrySize, len(p))
	}
	b.entries = make([]GameEntry, count)
	for i := range b.entries {
		d := p[i*gameEntrySize:]
		e := GameEntry{Key: le.Uint64(d), Action: le.Uint32(d[8:]), Count: le.Uint32(d[12:]),
			Value: math.Float32frombits(le.Uint32(d[16:])), Flags: le.Uint32(d[20:])}
		if v := float64(e.Value); !(v >= -1 && v <= 1) {
			return nil, fmt.Errorf("book: entry %d has value %v, want in [-1, 1]", i, v)
		}
		if i > 0 {
			q := b.entries[i-1]
			if e.Key < q.Key || e.Key == q.Key && e.Action <= q.Action {
				return nil, fmt.Errorf("book: entry %d (key %016x action %d) is out of order", i, e.Key, e.Action)
			}
		}
		b.entries[i] = e
	}
	return b, nil
}

// LoadGameBook reads the game book in path and checks that it is a book
// of game g.
func LoadGameBook(path string, g games.Game) (*GameBook, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("book: %w", err)
	}
	b, err := ParseGameBook(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if b.game != g.Name() {
		return nil, fmt.Errorf("%s: a book of %s, not of %s", path, b.game, g.Name())
	}
	return b, nil
}
