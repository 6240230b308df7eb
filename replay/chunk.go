package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"
)

// Chunk file format, version 1, 2 or 3, little-endian:
//
//	magic "TBRC" | version u32 | game name: u16 length + bytes |
//	obs length u32 | actions u32 | count u32 |
//	version 3 only: flags u32 (bit 0: float observations, bit 1: auxiliary
//	                targets, bit 2: opponent-policy targets) |
//	                points u32 (length of an ownership map) |
//	count records of: observation |
//	                  legal bits (ceil(actions/8) bytes) |
//	                  policy float32 x actions | value float32 |
//	                  with bit 1 only: present u8 (0 or 1) |
//	                                   ownership int8 x points (x/127) |
//	                                   score float32 |
//	                  with bit 2 only: present u8 (0 or 1) |
//	                                   opponent policy float32 x actions
//	CRC-32C (Castagnoli) of every byte before it, u32
//
// The observation is stored as bits (ceil(obs/8) bytes, LSB first) in
// version 1, which is written whenever every observation of the chunk is
// binary (the board games' input planes), and as obs float32 values in
// version 2, written for games whose planes hold other values (backgammon's
// checker counts). Version 3 is written only when an example of the chunk
// carries auxiliary targets (Example.Ownership): its flags say how the
// observations are stored, and every record says whether its targets are
// present (a resigned game has none) and holds them (zeros when absent);
// likewise for the opponent-policy targets (Example.OppPolicy), flag bit 2.
// Readers take all three versions, so replay folders written before the
// auxiliary targets existed still load.
//
// Version 4 is an envelope: a chunk of version 1, 2 or 3, compressed with
// zstd, as chunk files are written to disk (Buffer.Write):
//
//	magic "TBRC" | version u32 = 4 | inner length u32 | zstd frame |
//	CRC-32C of every byte before it, u32
//
// The records store every policy densely over all actions, mostly zeros
// (backgammon: 1,352 float32 a position for ~13 legal turns), and
// backgammon's observations as float32: compressed, its chunks take ~1/50 of
// the space. Encode (the bus, which compresses on its own) writes the inner
// format.
const (
	chunkMagic   = "TBRC"
	chunkVersion = 1       // binary observations
	chunkFloats  = 2       // float32 observations
	chunkFlagged = 3       // flags and optional auxiliary targets
	chunkZstd    = 4       // a zstd-compressed chunk of version 1-3
	maxInflated  = 1 << 30 // bytes of a compressed chunk's inner chunk, a sanity bound
	maxChunkLen  = 1 << 20 // examples per chunk, a sanity bound for readers
	maxNameLen   = 256

	flagFloats = 1 << 0
	flagAux    = 1 << 1
	flagOpp    = 1 << 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// The zstd codec of version 4, safe for concurrent use (EncodeAll and
// DecodeAll keep no state between calls).
var (
	zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	zstdDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxInflated))
)

// compressChunk wraps an encoded chunk of version 1-3 in the version-4
// envelope.
func compressChunk(inner []byte) []byte {
	le := binary.LittleEndian
	out := make([]byte, 0, 16+len(inner)/8)
	out = append(out, chunkMagic...)
	out = le.AppendUint32(out, chunkZstd)
	out = le.AppendUint32(out, uint32(len(inner)))
	out = zstdEncoder.EncodeAll(inner, out)
	return le.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

// inflateChunk opens a version-4 envelope (magic and version checked by the
// caller) and returns the chunk inside it.
func inflateChunk(data []byte) ([]byte, error) {
	le := binary.LittleEndian
	if len(data) < 16 {
		return nil, fmt.Errorf("%w: compressed chunk of %d bytes is shorter than its header", errCorrupt, len(data))
	}
	body, sum := data[:len(data)-4], le.Uint32(data[len(data)-4:])
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return nil, fmt.Errorf("%w: checksum %08x does not match the stored %08x (truncated or damaged file)", errCorrupt, got, sum)
	}
	n := le.Uint32(body[8:])
	if n > maxInflated {
		return nil, fmt.Errorf("%w: compressed chunk claims %d bytes, more than %d", errCorrupt, n, maxInflated)
	}
	inner, err := zstdDecoder.DecodeAll(body[12:], make([]byte, 0, n))
	if err != nil {
		return nil, fmt.Errorf("%w: decompressing: %v", errCorrupt, err)
	}
	if len(inner) != int(n) {
		return nil, fmt.Errorf("%w: decompressed to %d bytes, the header says %d", errCorrupt, len(inner), n)
	}
	if len(inner) >= 8 && string(inner[:4]) == chunkMagic && le.Uint32(inner[4:]) == chunkZstd {
		return nil, fmt.Errorf("%w: a compressed chunk inside a compressed chunk", errCorrupt)
	}
	return inner, nil
}

// chunkHeader describes the examples of one chunk.
type chunkHeader struct {
	game    string
	obsLen  int
	actions int
	count   int
	floats  bool // observations stored as float32 (version 2, or 3 with flagFloats)
	aux     bool // records carry auxiliary targets (version 3 with flagAux)
	opp     bool // records carry opponent-policy targets (version 3 with flagOpp)
	points  int  // length of an ownership map (version 3)
}

func (h chunkHeader) obsBytes() int {
	if h.floats {
		return 4 * h.obsLen
	}
	return (h.obsLen + 7) / 8
}

func (h chunkHeader) recordLen() int {
	n := h.obsBytes() + (h.actions+7)/8 + 4*h.actions + 4
	if h.aux {
		n += 1 + h.points + 4
	}
	if h.opp {
		n += 1 + 4*h.actions
	}
	return n
}

// anyAux reports whether an example carries auxiliary targets.
func anyAux(examples []Example) bool {
	for _, e := range examples {
		if e.Ownership != nil {
			return true
		}
	}
	return false
}

// anyOpp reports whether an example carries an opponent-policy target.
func anyOpp(examples []Example) bool {
	for _, e := range examples {
		if e.OppPolicy != nil {
			return true
		}
	}
	return false
}

// binaryObs reports whether every observation entry of examples is 0 or 1.
func binaryObs(examples []Example) bool {
	for _, e := range examples {
		for _, x := range e.Obs {
			if x != 0 && x != 1 {
				return false
			}
		}
	}
	return true
}

// encodeChunk serialises examples, whose ownership maps (where present)
// have points entries. It returns an error naming the example and field
// when one is out of range.
func encodeChunk(game string, obsLen, actions, points int, examples []Example) ([]byte, error) {
	h := chunkHeader{game: game, obsLen: obsLen, actions: actions, count: len(examples),
		floats: !binaryObs(examples), aux: anyAux(examples), opp: anyOpp(examples), points: points}
	var buf bytes.Buffer
	buf.Grow(32 + len(game) + len(examples)*h.recordLen())
	buf.WriteString(chunkMagic)
	le := binary.LittleEndian
	version := uint32(chunkVersion)
	switch {
	case h.aux || h.opp:
		version = chunkFlagged
	case h.floats:
		version = chunkFloats
	}
	buf.Write(le.AppendUint32(nil, version))
	buf.Write(le.AppendUint16(nil, uint16(len(game))))
	buf.WriteString(game)
	for _, v := range []int{obsLen, actions, len(examples)} {
		buf.Write(le.AppendUint32(nil, uint32(v)))
	}
	if version == chunkFlagged {
		var flags uint32
		if h.aux {
			flags |= flagAux
		}
		if h.opp {
			flags |= flagOpp
		}
		if h.floats {
			flags |= flagFloats
		}
		buf.Write(le.AppendUint32(nil, flags))
		buf.Write(le.AppendUint32(nil, uint32(points)))
	}
	rec := make([]byte, h.recordLen())
	for i, e := range examples {
		if err := e.check(obsLen, actions, points); err != nil {
			return nil, fmt.Errorf("example %d: %w", i, err)
		}
		clear(rec)
		off := 0
		for j, x := range e.Obs {
			if h.floats {
				le.PutUint32(rec[4*j:], math.Float32bits(x))
			} else if x == 1 {
				rec[j/8] |= 1 << (j % 8)
			}
		}
		off += h.obsBytes()
		for a, legal := range e.Legal {
			if legal {
				rec[off+a/8] |= 1 << (a % 8)
			}
		}
		off += (actions + 7) / 8
		for _, p := range e.Policy {
			le.PutUint32(rec[off:], math.Float32bits(p))
			off += 4
		}
		le.PutUint32(rec[off:], math.Float32bits(e.Value))
		off += 4
		if h.aux && e.Ownership != nil {
			rec[off] = 1
			for j, o := range e.Ownership {
				rec[off+1+j] = byte(int8(math.Round(float64(o) * 127)))
			}
			le.PutUint32(rec[off+1+points:], math.Float32bits(e.Score))
		}
		if h.aux {
			off += 1 + points + 4
		}
		if h.opp && e.OppPolicy != nil {
			rec[off] = 1
			for a, p := range e.OppPolicy {
				le.PutUint32(rec[off+1+4*a:], math.Float32bits(p))
			}
		}
		buf.Write(rec)
	}
	buf.Write(le.AppendUint32(nil, crc32.Checksum(buf.Bytes(), castagnoli)))
	return buf.Bytes(), nil
}

// errCorrupt is wrapped by every decoding error.
var errCorrupt = errors.New("corrupt replay chunk")

// maxHeaderLen bounds the bytes of a chunk's header (readHeader).
const maxHeaderLen = 4 + 4 + 2 + maxNameLen + 12 + 8

// readHeader parses the header at the start of the bytes of an inner chunk
// (versions 1-3; body may be cut short after the header) and returns it
// with its length. It checks the header's fields, not the checksum.
func readHeader(body []byte) (chunkHeader, int, error) {
	var h chunkHeader
	fail := func(format string, args ...any) (chunkHeader, int, error) {
		return h, 0, fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
	}
	le := binary.LittleEndian
	if len(body) < 8 || string(body[:4]) != chunkMagic {
		return fail("no chunk header")
	}
	v := le.Uint32(body[4:])
	if v != chunkVersion && v != chunkFloats && v != chunkFlagged {
		return fail("format version %d, this program reads versions %d to %d", v, chunkVersion, chunkZstd)
	}
	r := bytes.NewReader(body[8:])
	var nameLen uint16
	binary.Read(r, le, &nameLen)
	if nameLen > maxNameLen || int(nameLen) > r.Len() {
		return fail("game name length %d out of range", nameLen)
	}
	name := make([]byte, nameLen)
	io.ReadFull(r, name)
	var dims [3]uint32
	if err := binary.Read(r, le, &dims); err != nil {
		return fail("header cut short")
	}
	h = chunkHeader{game: string(name), obsLen: int(dims[0]), actions: int(dims[1]), count: int(dims[2]), floats: v == chunkFloats}
	if h.obsLen < 1 || h.obsLen > 1<<16 || h.actions < 1 || h.actions > 1<<16 || h.count > maxChunkLen {
		return fail("header sizes obs=%d actions=%d count=%d out of range", h.obsLen, h.actions, h.count)
	}
	if v == chunkFlagged {
		var fl [2]uint32
		if err := binary.Read(r, le, &fl); err != nil {
			return fail("version 3 header cut short")
		}
		if fl[0]&^(flagFloats|flagAux|flagOpp) != 0 {
			return fail("unknown flags %#x", fl[0])
		}
		h.floats, h.aux, h.opp, h.points = fl[0]&flagFloats != 0, fl[0]&flagAux != 0, fl[0]&flagOpp != 0, int(fl[1])
		if h.points < 1 || h.points > h.obsLen {
			return fail("ownership map of %d points, want 1..%d (the observation's length)", h.points, h.obsLen)
		}
	}
	return h, len(body) - r.Len(), nil
}

// peekHeader verifies a chunk file's checksum (the outer one of a
// compressed chunk) and returns its header, decompressing only the first
// bytes of a compressed chunk: what a reader needs to know how many
// examples the file holds before it decodes them.
func peekHeader(data []byte) (chunkHeader, error) {
	le := binary.LittleEndian
	if len(data) < 4+4+2+12+4 || string(data[:4]) != chunkMagic {
		return chunkHeader{}, fmt.Errorf("%w: %d bytes without a chunk header", errCorrupt, len(data))
	}
	body, sum := data[:len(data)-4], le.Uint32(data[len(data)-4:])
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return chunkHeader{}, fmt.Errorf("%w: checksum %08x does not match the stored %08x (truncated or damaged file)", errCorrupt, got, sum)
	}
	if le.Uint32(data[4:]) != chunkZstd {
		h, _, err := readHeader(body)
		return h, err
	}
	if len(data) < 16 {
		return chunkHeader{}, fmt.Errorf("%w: compressed chunk of %d bytes is shorter than its header", errCorrupt, len(data))
	}
	dec, err := zstd.NewReader(bytes.NewReader(body[12:]), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxInflated))
	if err != nil {
		return chunkHeader{}, fmt.Errorf("%w: decompressing: %v", errCorrupt, err)
	}
	defer dec.Close()
	head := make([]byte, min(maxHeaderLen, int(le.Uint32(body[8:]))))
	if _, err := io.ReadFull(dec, head); err != nil {
		return chunkHeader{}, fmt.Errorf("%w: decompressing the header: %v", errCorrupt, err)
	}
	h, _, err := readHeader(head)
	return h, err
}

// decodeChunk parses and verifies a whole chunk file.
func decodeChunk(data []byte) (chunkHeader, []Example, error) {
	var h chunkHeader
	fail := func(format string, args ...any) (chunkHeader, []Example, error) {
		return h, nil, fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
	}
	if len(data) < 4+4+2+12+4 {
		return fail("%d bytes is shorter than any chunk", len(data))
	}
	if string(data[:4]) != chunkMagic {
		return fail("bad magic %q, want %q", data[:4], chunkMagic)
	}
	le := binary.LittleEndian
	v := le.Uint32(data[4:])
	if v == chunkZstd {
		inner, err := inflateChunk(data)
		if err != nil {
			return h, nil, err
		}
		return decodeChunk(inner)
	}
	body, sum := data[:len(data)-4], le.Uint32(data[len(data)-4:])
	if v != chunkVersion && v != chunkFloats && v != chunkFlagged {
		return fail("format version %d, this program reads versions %d to %d", v, chunkVersion, chunkZstd)
	}
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return fail("checksum %08x does not match the stored %08x (truncated or damaged file)", got, sum)
	}
	h, n, err := readHeader(body)
	if err != nil {
		return h, nil, err
	}
	if len(body)-n != h.count*h.recordLen() {
		return fail("%d bytes of records, want %d for %d examples", len(body)-n, h.count*h.recordLen(), h.count)
	}
	recs := body[n:]
	examples := make([]Example, h.count)
	for i := range examples {
		rec := recs[i*h.recordLen():]
		e := Example{Obs: make([]float32, h.obsLen), Legal: make([]bool, h.actions), Policy: make([]float32, h.actions)}
		for j := range e.Obs {
			if h.floats {
				e.Obs[j] = math.Float32frombits(le.Uint32(rec[4*j:]))
			} else {
				e.Obs[j] = float32(rec[j/8] >> (j % 8) & 1)
			}
		}
		off := h.obsBytes()
		for a := range e.Legal {
			e.Legal[a] = rec[off+a/8]>>(a%8)&1 == 1
		}
		off += (h.actions + 7) / 8
		for a := range e.Policy {
			e.Policy[a] = math.Float32frombits(le.Uint32(rec[off:]))
			off += 4
		}
		e.Value = math.Float32frombits(le.Uint32(rec[off:]))
		off += 4
		if h.aux {
			switch rec[off] {
			case 0:
			case 1:
				e.Ownership = make([]float32, h.points)
				for j := range e.Ownership {
					e.Ownership[j] = float32(int8(rec[off+1+j])) / 127
				}
				e.Score = math.Float32frombits(le.Uint32(rec[off+1+h.points:]))
			default:
				return fail("example %d: auxiliary flag %d, want 0 or 1", i, rec[off])
			}
			off += 1 + h.points + 4
		}
		if h.opp {
			switch rec[off] {
			case 0:
			case 1:
				e.OppPolicy = make([]float32, h.actions)
				for a := range e.OppPolicy {
					e.OppPolicy[a] = math.Float32frombits(le.Uint32(rec[off+1+4*a:]))
				}
			default:
				return fail("example %d: opponent-policy flag %d, want 0 or 1", i, rec[off])
			}
		}
		if err := e.check(h.obsLen, h.actions, h.points); err != nil {
			return fail("example %d: %v", i, err)
		}
		examples[i] = e
	}
	return h, examples, nil
}
