package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// Chunk file format, version 1 or 2, little-endian:
//
//	magic "TBRC" | version u32 | game name: u16 length + bytes |
//	obs length u32 | actions u32 | count u32 |
//	count records of: observation |
//	                  legal bits (ceil(actions/8) bytes) |
//	                  policy float32 x actions | value float32 |
//	CRC-32C (Castagnoli) of every byte before it, u32
//
// The observation is stored as bits (ceil(obs/8) bytes, LSB first) in
// version 1, which is written whenever every observation of the chunk is
// binary (the board games' input planes), and as obs float32 values in
// version 2, written for games whose planes hold other values (backgammon's
// checker counts). Readers take both.
const (
	chunkMagic   = "TBRC"
	chunkVersion = 1       // binary observations
	chunkFloats  = 2       // float32 observations
	maxChunkLen  = 1 << 20 // examples per chunk, a sanity bound for readers
	maxNameLen   = 256
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// chunkHeader describes the examples of one chunk.
type chunkHeader struct {
	game    string
	obsLen  int
	actions int
	count   int
	floats  bool // observations stored as float32 (version 2)
}

func (h chunkHeader) obsBytes() int {
	if h.floats {
		return 4 * h.obsLen
	}
	return (h.obsLen + 7) / 8
}

func (h chunkHeader) recordLen() int {
	return h.obsBytes() + (h.actions+7)/8 + 4*h.actions + 4
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

// encodeChunk serialises examples. It returns an error naming the example
// and field when one is out of range.
func encodeChunk(game string, obsLen, actions int, examples []Example) ([]byte, error) {
	h := chunkHeader{game, obsLen, actions, len(examples), !binaryObs(examples)}
	var buf bytes.Buffer
	buf.Grow(32 + len(game) + len(examples)*h.recordLen())
	buf.WriteString(chunkMagic)
	le := binary.LittleEndian
	version := uint32(chunkVersion)
	if h.floats {
		version = chunkFloats
	}
	buf.Write(le.AppendUint32(nil, version))
	buf.Write(le.AppendUint16(nil, uint16(len(game))))
	buf.WriteString(game)
	for _, v := range []int{obsLen, actions, len(examples)} {
		buf.Write(le.AppendUint32(nil, uint32(v)))
	}
	rec := make([]byte, h.recordLen())
	for i, e := range examples {
		if err := e.check(obsLen, actions); err != nil {
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
		buf.Write(rec)
	}
	buf.Write(le.AppendUint32(nil, crc32.Checksum(buf.Bytes(), castagnoli)))
	return buf.Bytes(), nil
}

// errCorrupt is wrapped by every decoding error.
var errCorrupt = errors.New("corrupt replay chunk")

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
	body, sum := data[:len(data)-4], le.Uint32(data[len(data)-4:])
	v := le.Uint32(data[4:])
	if v != chunkVersion && v != chunkFloats {
		return fail("format version %d, this program reads versions %d and %d", v, chunkVersion, chunkFloats)
	}
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return fail("checksum %08x does not match the stored %08x (truncated or damaged file)", got, sum)
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
	h = chunkHeader{string(name), int(dims[0]), int(dims[1]), int(dims[2]), v == chunkFloats}
	if h.obsLen < 1 || h.obsLen > 1<<16 || h.actions < 1 || h.actions > 1<<16 || h.count > maxChunkLen {
		return fail("header sizes obs=%d actions=%d count=%d out of range", h.obsLen, h.actions, h.count)
	}
	if r.Len() != h.count*h.recordLen() {
		return fail("%d bytes of records, want %d for %d examples", r.Len(), h.count*h.recordLen(), h.count)
	}
	recs := body[len(body)-r.Len():]
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
		if err := e.check(h.obsLen, h.actions); err != nil {
			return fail("example %d: %v", i, err)
		}
		examples[i] = e
	}
	return h, examples, nil
}
