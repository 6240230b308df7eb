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
//	version    uint16  the game's index layout: IndexVersion (chess.go),
//	                   C4IndexVersion (connect4.go)
//	game       uint8 length + bytes ("chess", "connect4")
//	name       uint8 length + bytes: the material ("KBNK") or the board ("5x4")
//	count      uint64  number of indices
//	payload    uint64 length + the values, one byte each, DEFLATE-compressed
//	checksum   uint32  CRC-32 (IEEE) of every byte before it
//
// Load refuses a file whose magic, version, game, name, count or checksum
// is wrong, or whose payload does not inflate to count values.

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
	return marshalFrame("chess", t.Material, IndexVersion, t.vals)
}

// marshalFrame encodes one table of a game: its layout version, its name
// within the game (a material, a board) and its values.
func marshalFrame(game, name string, version uint16, values []Value) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(magic)
	binary.Write(&b, binary.LittleEndian, version)
	for _, s := range []string{game, name} {
		b.WriteByte(byte(len(s)))
		b.WriteString(s)
	}
	binary.Write(&b, binary.LittleEndian, uint64(len(values)))
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	vals := make([]byte, len(values))
	for i, v := range values {
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

// frame is a table file's header, checked against its checksum, and its
// compressed values.
type frame struct {
	version    uint16
	game, name string
	count      uint64
	payload    *bytes.Reader
}

// badFile wraps ErrCorrupt with what is wrong.
func badFile(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, a...)...)
}

// readFrame checks the magic and checksum of a table file and reads its
// header.
func readFrame(data []byte) (*frame, error) {
	if len(data) < len(magic)+2+4 || string(data[:len(magic)]) != magic {
		return nil, badFile("not a table file (no %q header)", magic)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if got := crc32.ChecksumIEEE(body); got != sum {
		return nil, badFile("checksum %08x, the file says %08x", got, sum)
	}
	r := bytes.NewReader(body[len(magic):])
	f := &frame{}
	if err := binary.Read(r, binary.LittleEndian, &f.version); err != nil {
		return nil, badFile("header: %v", err)
	}
	var strs [2]string
	for k := range strs {
		n, err := r.ReadByte()
		if err != nil {
			return nil, badFile("header: %v", err)
		}
		s := make([]byte, n)
		if _, err := io.ReadFull(r, s); err != nil {
			return nil, badFile("header: %v", err)
		}
		strs[k] = string(s)
	}
	f.game, f.name = strs[0], strs[1]
	if err := binary.Read(r, binary.LittleEndian, &f.count); err != nil {
		return nil, badFile("header: %v", err)
	}
	var zlen uint64
	if err := binary.Read(r, binary.LittleEndian, &zlen); err != nil || zlen != uint64(r.Len()) {
		return nil, badFile("payload length %d, %d bytes left", zlen, r.Len())
	}
	f.payload = r
	return f, nil
}

// values inflates the frame's payload into exactly count values.
func (f *frame) values() ([]Value, error) {
	buf := make([]byte, f.count)
	fr := flate.NewReader(f.payload)
	if _, err := io.ReadFull(fr, buf); err != nil {
		return nil, badFile("payload: %v", err)
	}
	if n, _ := fr.Read(make([]byte, 1)); n != 0 {
		return nil, badFile("payload longer than %d values", f.count)
	}
	vals := make([]Value, f.count)
	for i, b := range buf {
		vals[i] = Value(b)
	}
	return vals, nil
}

// Unmarshal decodes a chess table from the file format.
func Unmarshal(data []byte) (*Table, error) {
	f, err := readFrame(data)
	if err != nil {
		return nil, err
	}
	if f.game != "chess" {
		return nil, fmt.Errorf("retro: table file for game %q, want chess", f.game)
	}
	if f.version != IndexVersion {
		return nil, fmt.Errorf("retro: table file of index version %d, this build reads %d", f.version, IndexVersion)
	}
	ps, err := ParseMaterial(f.name)
	if err != nil {
		return nil, badFile("%v", err)
	}
	ix := newIndexer(ps)
	if f.count != uint64(ix.size) {
		return nil, badFile("%s has %d indices, the file says %d", f.name, ix.size, f.count)
	}
	vals, err := f.values()
	if err != nil {
		return nil, err
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

// LoadDir reads every chess table file (*.rtb) of a folder into a Tables
// set, passing over Connect Four tables (connect4-*.rtb).
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
		if strings.HasPrefix(filepath.Base(n), "connect4-") {
			continue
		}
		t, err := Load(n)
		if err != nil {
			return nil, err
		}
		if want := t.Material + Ext; !strings.EqualFold(filepath.Base(n), want) {
			return nil, fmt.Errorf("retro: %s holds %s, want the name %s", n, t.Material, want)
		}
		ts.Add(t)
	}
	if len(ts.bySig) == 0 {
		return nil, fmt.Errorf("retro: no chess table files (*%s) in %s", Ext, dir)
	}
	return ts, nil
}
