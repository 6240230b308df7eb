package book

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"tabula/games/chess"
)

// TestRoundTrip writes entries out of order with WriteFile and reads them
// back: sorted by key then weight, 16 big-endian bytes each, Lookup finding
// every entry of a key by binary search.
func TestRoundTrip(t *testing.T) {
	in := []Entry{
		{Key: 9, Move: 1, Weight: 1, Learn: 7},
		{Key: 3, Move: 2, Weight: 5},
		{Key: 9, Move: 3, Weight: 4},
		{Key: 1, Move: 4, Weight: 2},
		{Key: 3, Move: 5, Weight: 6},
	}
	path := filepath.Join(t.TempDir(), "book.bin")
	if err := WriteFile(path, in); err != nil {
		t.Fatal(err)
	}
	b, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{in[3], in[4], in[1], in[2], in[0]}
	if !slices.Equal(b.Entries(), want) {
		t.Errorf("entries %+v, want %+v", b.Entries(), want)
	}
	data := Marshal(in)
	if !bytes.Equal(data[:16], []byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 4, 0, 2, 0, 0, 0, 0}) {
		t.Errorf("first entry bytes %x", data[:16])
	}
	if got := b.Lookup(9); !slices.Equal(got, []Entry{in[2], in[0]}) {
		t.Errorf("Lookup(9) = %+v", got)
	}
	for _, k := range []uint64{0, 2, 10} {
		if got := b.Lookup(k); len(got) != 0 {
			t.Errorf("Lookup(%d) = %+v, want none", k, got)
		}
	}
	if _, err := Parse(make([]byte, 17)); err == nil {
		t.Error("Parse accepted 17 bytes")
	}
	bad := append(Marshal(in[:1]), Marshal(in[3:4])...)
	if _, err := Parse(bad); err == nil {
		t.Error("Parse accepted entries out of key order")
	}
}

// TestPickFollowsWeights checks Best and Pick on the start position: Best
// takes the heaviest move, Pick draws in proportion to the weights and never
// a move of weight 0 or an illegal one.
func TestPickFollowsWeights(t *testing.T) {
	p := chess.StartPosition()
	k := Key(&p)
	e4, d4, c4 := mustMove(t, "e2e4"), mustMove(t, "d2d4"), mustMove(t, "c2c4")
	b := Must(Parse(Marshal([]Entry{
		{Key: k, Move: EncodeMove(&p, e4), Weight: 3},
		{Key: k, Move: EncodeMove(&p, d4), Weight: 1},
		{Key: k, Move: EncodeMove(&p, c4), Weight: 0},
		{Key: k, Move: 12<<6 | 36, Weight: 100}, // e2e5: illegal
	})))
	if m, ok := b.Best(&p); !ok || m != e4 {
		t.Errorf("Best = %v %v, want e2e4", m, ok)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	count := map[chess.Move]int{}
	for range 4000 {
		m, ok := b.Pick(&p, rng)
		if !ok {
			t.Fatal("Pick found nothing")
		}
		count[m]++
	}
	if count[c4] != 0 || count[e4]+count[d4] != 4000 || count[e4] < 2850 || count[e4] > 3150 {
		t.Errorf("Pick counts %v, want about 3000 e2e4, 1000 d2d4, no c2c4", count)
	}
	empty := Must(Parse(nil))
	if _, ok := empty.Pick(&p, rng); ok {
		t.Error("Pick in an empty book found a move")
	}
}

func mustMove(t *testing.T, uci string) chess.Move {
	t.Helper()
	m, err := chess.ParseUCI(uci)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Must returns b, panicking on err; for tests.
func Must(b *Book, err error) *Book {
	if err != nil {
		panic(err)
	}
	return b
}
