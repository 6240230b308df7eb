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

// Chunk file format, version 1, little-endian:
//
//	magic "TBRC" | version u32 | game name: u16 length + bytes |
//	obs length u32 | actions u32 | count u32 |
//	count records of: obs bits (ceil(obs/8) bytes, LSB first) |
//	                  legal bits (ceil(actions/8) bytes) |
//	                  policy float32 x actions | value float32 |
//	CRC-32C (Castagnoli) of every byte before it, u32
//
// Observations are stored as bits: every game here has binary input planes,
// and Add refuses anything else.
const (
	chunkMagic   = "TBRC"
	chunkVersion = 1
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
}

func (h chunkHeader) recordLen() int {
	return (h.obsLen+7)/8 + (h.actions+7)/8 + 4*h.actions + 4
}

// encodeChunk serialises examples. It returns an error naming the example
// and field when one is out of range.
func encodeChunk(game string, obsLen, actions int, examples []Example) ([]byte, error) {
	h := chunkHeader{game, obsLen, actions, len(examples)}
	var buf bytes.Buffer
	buf.Grow(32 + len(game) + len(examples)*h.recordLen())
	buf.WriteString(chunkMagic)
	le := binary.LittleEndian
	buf.Write(le.AppendUint32(nil, chunkVersion))
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
			if x == 1 {
				rec[off+j/8] |= 1 << (j % 8)
			}
		}
		off += (obsLen + 7) / 8
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
	if v := le.Uint32(data[4:]); v != chunkVersion {
		return fail("format version %d, this program reads version %d", v, chunkVersion)
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
	h = chunkHeader{string(name), int(dims[0]), int(dims[1]), int(dims[2])}
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
			e.Obs[j] = float32(rec[j/8] >> (j % 8) & 1)
		}
		off := (h.obsLen + 7) / 8
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
