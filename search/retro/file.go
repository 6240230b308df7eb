package retro

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"tabula/internal/atomicfile"
)

// A table file is, all integers little-endian:
//
//	magic      8 bytes "TABRETRO"
//	version    uint16  IndexVersion: the index layout described in chess.go
//	game       uint8 length + bytes ("chess")
//	material   uint8 length + bytes ("KBNK")
//	count      uint64  number of indices
//	payload    uint64 length + the values, one byte each, DEFLATE-compressed
//	checksum   uint32  CRC-32 (IEEE) of every byte before it
//
// Load refuses a file whose magic, version, game, material, count or
// checksum is wrong, or whose payload does not inflate to count values.

const (
	magic = "TABRETRO"
	// IndexVersion numbers the index layout; files of another layout are
	// refused.
	IndexVersion = 1
	// Ext is the extension of table files.
	Ext = ".rtb"
)

// ErrCorrupt is wrapped by Load's errors for a damaged file.
var ErrCorrupt = errors.New("damaged table file")

// Marshal encodes t in the file format.
func (t *Table) Marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(magic)
	binary.Write(&b, binary.LittleEndian, uint16(IndexVersion))
	for _, s := range []string{"chess", t.Material} {
		b.WriteByte(byte(len(s)))
		b.WriteString(s)
	}
	binary.Write(&b, binary.LittleEndian, uint64(len(t.vals)))
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	vals := make([]byte, len(t.vals))
	for i, v := range t.vals {
		vals[i] = byte(v)
	}
	if _, err := w.Write(vals); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	binary.Write(&b, binary.LittleEndian, uint64(z.Len()))
	b.Write(z.Bytes())
	binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(b.Bytes()))
	return b.Bytes(), nil
}

// Save writes t to path atomically.
func (t *Table) Save(path string) error {
	data, err := t.Marshal()
	if err != nil {
		return fmt.Errorf("retro: save %s: %w", path, err)
	}
	return atomicfile.Write(path, data)
}

// Unmarshal decodes a table from the file format.
func Unmarshal(data []byte) (*Table, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, a...)...)
	}
	if len(data) < len(magic)+2+4 || string(data[:len(magic)]) != magic {
		return nil, bad("not a table file (no %q header)", magic)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if got := crc32.ChecksumIEEE(body); got != sum {
		return nil, bad("checksum %08x, the file says %08x", got, sum)
	}
	r := bytes.NewReader(body[len(magic):])
	var version uint16
	if err := binary.Read(r, binary.LittleEndian, &version); err != nil {
		return nil, bad("header: %v", err)
	}
	if version != IndexVersion {
		return nil, fmt.Errorf("retro: table file of index version %d, this build reads %d", version, IndexVersion)
	}
	var strs [2]string
	for k := range strs {
		n, err := r.ReadByte()
		if err != nil {
			return nil, bad("header: %v", err)
		}
		s := make([]byte, n)
		if _, err := io.ReadFull(r, s); err != nil {
			return nil, bad("header: %v", err)
		}
		strs[k] = string(s)
	}
	if strs[0] != "chess" {
		return nil, fmt.Errorf("retro: table file for game %q, want chess", strs[0])
	}
	ps, err := ParseMaterial(strs[1])
	if err != nil {
		return nil, bad("%v", err)
	}
	var count, zlen uint64
	if err := binary.Read(r, binary.LittleEndian, &count); err != nil {
		return nil, bad("header: %v", err)
	}
	ix := newIndexer(ps)
	if count != uint64(ix.size) {
		return nil, bad("%s has %d indices, the file says %d", strs[1], ix.size, count)
	}
	if err := binary.Read(r, binary.LittleEndian, &zlen); err != nil || zlen != uint64(r.Len()) {
		return nil, bad("payload length %d, %d bytes left", zlen, r.Len())
	}
	vals := make([]Value, count)
	buf := make([]byte, count)
	fr := flate.NewReader(r)
	if _, err := io.ReadFull(fr, buf); err != nil {
		return nil, bad("payload: %v", err)
	}
	if n, _ := fr.Read(make([]byte, 1)); n != 0 {
		return nil, bad("payload longer than %d values", count)
	}
	for i, b := range buf {
		vals[i] = Value(b)
	}
	return &Table{Material: Signature(ps), Stats: Count(vals), ix: ix, vals: vals}, nil
}

// Load reads a table file.
func Load(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("retro: %w", err)
	}
	t, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("retro: load %s: %w", path, err)
	}
	return t, nil
}

// LoadDir reads every table file (*.rtb) of a folder into a Tables set.
func LoadDir(dir string) (*Tables, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*"+Ext))
	if err != nil {
		return nil, fmt.Errorf("retro: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("retro: no table files (*%s) in %s", Ext, dir)
	}
	sort.Strings(names)
	ts := NewTables()
	for _, n := range names {
		t, err := Load(n)
		if err != nil {
			return nil, err
		}
		if want := t.Material + Ext; !strings.EqualFold(filepath.Base(n), want) {
			return nil, fmt.Errorf("retro: %s holds %s, want the name %s", n, t.Material, want)
		}
		ts.Add(t)
	}
	return ts, nil
}
