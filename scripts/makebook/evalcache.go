package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"slices"

	"tabula/games"
	"tabula/internal/atomicfile"
	"tabula/search/book"
)

// The loop's search cache keeps the -eval player's values of positions
// between runs, so that a resumed or extended loop does not search the
// book's deviations again. File format (little-endian):
//
//	magic  "TABEVAL1"
//	game   uint16 length, then the game's spec
//	eval   uint16 length, then the -eval spec
//	count  uint32
//	pairs  count x 16 bytes sorted by key: key uint64 (book.CanonicalKey),
//	       value float64 (as searched, so that a resumed loop learns the
//	       book it would have learnt without stopping)
//	crc    uint32, CRC-32C of every byte before it
const evalCacheMagic = "TABEVAL1"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// evalMemo remembers an Eval's values by canonical key (a position's
// symmetric images share a value) and counts the searches it made.
type evalMemo struct {
	game     games.Game
	spec     string
	eval     book.Eval
	seen     map[uint64]float64
	searches int
}

// newEvalMemo returns a memo of eval, the Eval of spec; eval nil: none.
func newEvalMemo(g games.Game, spec string, eval book.Eval) *evalMemo {
	return &evalMemo{game: g, spec: spec, eval: eval, seen: map[uint64]float64{}}
}

// Eval is the memo's book.Eval: nil when it has no eval.
func (m *evalMemo) Eval() book.Eval {
	if m.eval == nil {
		return nil
	}
	return func(s games.State) (float64, error) {
		key, _ := book.CanonicalKey(m.game, s)
		if v, ok := m.seen[key]; ok {
			return v, nil
		}
		m.searches++
		v, err := m.eval(s)
		if err != nil {
			return 0, err
		}
		if math.IsNaN(v) {
			return 0, fmt.Errorf("-eval %s: value NaN", m.spec)
		}
		v = max(-1, min(1, v)) // as Learn takes it
		m.seen[key] = v
		return v, nil
	}
}

// marshal returns the bytes of the memo's cache file.
func (m *evalMemo) marshal() []byte {
	var buf bytes.Buffer
	le := binary.LittleEndian
	buf.WriteString(evalCacheMagic)
	for _, s := range []string{m.game.Name(), m.spec} {
		buf.Write(le.AppendUint16(nil, uint16(len(s))))
		buf.WriteString(s)
	}
	keys := make([]uint64, 0, len(m.seen))
	for k := range m.seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf.Write(le.AppendUint32(nil, uint32(len(keys))))
	var pair [16]byte
	for _, k := range keys {
		le.PutUint64(pair[:], k)
		le.PutUint64(pair[8:], math.Float64bits(m.seen[k]))
		buf.Write(pair[:])
	}
	out := buf.Bytes()
	return le.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

// save writes the memo's cache to path atomically (nothing without an
// eval).
func (m *evalMemo) save(path string) error {
	if m.eval == nil {
		return nil
	}
	if err := atomicfile.Write(path, m.marshal()); err != nil {
		return fmt.Errorf("search cache %s: %w", path, err)
	}
	return nil
}

// load reads the cache at path into the memo: values of another game or
// -eval spec are not taken (reused reports false, why says why); a missing
// file is no error; a damaged one is.
func (m *evalMemo) load(path string) (reused bool, why string, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, "none yet", nil
	}
	if err != nil {
		return false, "", err
	}
	le := binary.LittleEndian
	bad := func(what string) (bool, string, error) {
		return false, "", fmt.Errorf("search cache %s: %s (remove it to search again)", path, what)
	}
	if !bytes.HasPrefix(data, []byte(evalCacheMagic)) {
		return bad("not a search cache (no " + evalCacheMagic + " header)")
	}
	if len(data) < len(evalCacheMagic)+4+4+4 {
		return bad("cut short")
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != le.Uint32(data[len(data)-4:]) {
		return bad("checksum mismatch (corrupt or cut short)")
	}
	p := body[len(evalCacheMagic):]
	var names [2]string
	for i := range names {
		if len(p) < 2 || len(p) < 2+int(le.Uint16(p)) {
			return bad("header runs past the end")
		}
		n := int(le.Uint16(p))
		names[i], p = string(p[2:2+n]), p[2+n:]
	}
	if len(p) < 4 {
		return bad("cut short")
	}
	count := int(le.Uint32(p))
	p = p[4:]
	if len(p) != 16*count {
		return bad(fmt.Sprintf("%d values need %d bytes, it has %d", count, 16*count, len(p)))
	}
	if names[0] != m.game.Name() || names[1] != m.spec {
		return false, fmt.Sprintf("of %s -eval %s, not %s -eval %s: searching again", names[0], names[1], m.game.Name(), m.spec), nil
	}
	for i := range count {
		v := math.Float64frombits(le.Uint64(p[16*i+8:]))
		if !(v >= -1 && v <= 1) {
			return bad(fmt.Sprintf("value %d is %v, want in [-1, 1]", i, v))
		}
		m.seen[le.Uint64(p[16*i:])] = v
	}
	return true, fmt.Sprintf("%d values", count), nil
}
