package nn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"sort"

	"tabula/games"
	"tabula/internal/atomicfile"
)

// CheckpointVersion is the newest format version: SaveCheckpoint writes it
// for a network with auxiliary heads or global pooling (Config.HasAux) and
// version 1, the format from before they existed, for any other, so that
// older programs still read those. LoadCheckpoint reads both.
const CheckpointVersion = 2

// checkpointVersionPlain is the format of networks without auxiliary parts.
const checkpointVersionPlain = 1

// Bits of the version 2 config flags.
const (
	ckOwnership = 1 << iota
	ckScore
	ckGlobalPooling
	ckOpponentPolicy
	ckWDL
	ckSqueezeExcite
)

// checkpointMagic opens every checkpoint file.
var checkpointMagic = [8]byte{'T', 'A', 'B', 'U', 'L', 'A', 'N', 'N'}

// Limits that keep a corrupt or hostile file from asking for absurd sizes.
const (
	maxCheckpointBody = 1 << 34 // 16 GiB
	maxDim            = 1 << 16 // planes, height, width, actions
	maxNameLen        = 1 << 12
	maxMetaValueLen   = 1 << 20
	maxCount          = 1 << 20 // tensors, scalars, metadata entries
	maxTensorDims     = 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crcChecksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// OptimizerState is an optimiser's state, opaque to this package: its kind,
// named scalars (e.g. "step") and named arrays (e.g. momentum buffers).
type OptimizerState struct {
	Kind    string
	Scalars map[string]float64
	Arrays  []Tensor
}

// Checkpoint is everything needed to resume training or to play: the game,
// the network and, optionally, the optimiser's state.
type Checkpoint struct {
	Game      string // game spec, e.g. "othello:size=6"
	Step      int64  // training steps taken
	Weights   *Weights
	Optimizer *OptimizerState // nil when not saved
	Meta      map[string]string
}

// CheckGame returns an error unless the checkpoint was made for g: the same
// canonical game name, or names that differ only in adjudication parameters
// (games.Adjudicated: chess:maxplies=200 plays chess), and the observation
// and action shape g produces.
func (c *Checkpoint) CheckGame(g games.Game) error {
	if c.Game != g.Name() && !sameRules(c.Game, g) {
		return fmt.Errorf("checkpoint is for game %q, not %q", c.Game, g.Name())
	}
	p, h, w := g.ObservationShape()
	want := Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}
	if c.Weights == nil {
		return errors.New("checkpoint has no weights")
	}
	if c.Weights.Shape != want {
		mine, theirs := c.Weights.Shape.Diff(want)
		return fmt.Errorf("checkpoint network does not match game %q: it has %s, the game needs %s", g.Name(), mine, theirs)
	}
	return nil
}

// SaveCheckpoint writes c to path atomically: a temporary file in the same
// directory is written, synced and renamed over path, and the directory is
// synced.
func SaveCheckpoint(path string, c *Checkpoint) error {
	var buf bytes.Buffer
	if err := WriteCheckpoint(&buf, c); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err := atomicfile.Write(path, buf.Bytes()); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// LoadCheckpoint reads and fully checks the checkpoint at path.
func LoadCheckpoint(path string) (*Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	defer f.Close()
	c, err := ReadCheckpoint(f)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return c, nil
}

// File layout, little-endian:
//
//	magic [8]byte "TABULANN"
//	version uint32
//	body length uint64
//	body
//	CRC-32C (Castagnoli) of everything above, uint32
//
// body:
//
//	game string (uint32 length + bytes)
//	config: filters, blocks, policy_filters, value_filters, value_hidden (uint32 each)
//	version 2 only: flags uint32 (bit 0 ownership, bit 1 score, bit 2
//	  global_pooling, bit 3 opponent_policy), pool_channels uint32
//	shape: planes, height, width, actions (uint32 each)
//	step int64
//	tensors: uint32 count, then each tensor (below), in Weights.Tensors order
//	optimizer: uint8 0 (absent) or 1, then kind string, uint32 count of
//	  (name string, float64) scalars sorted by name, uint32 count of tensors
//	metadata: uint32 count of (key string, value string) sorted by key
//
// tensor: name string, uint32 rank, rank uint32 dims, then the float32 values.

// WriteCheckpoint encodes c to out.
func WriteCheckpoint(out io.Writer, c *Checkpoint) error {
	if c == nil || c.Weights == nil {
		return errors.New("nil checkpoint or weights")
	}
	w := c.Weights
	if err := w.Config.Validate(); err != nil {
		return err
	}
	if err := w.Shape.Validate(); err != nil {
		return err
	}
	var e encoder
	e.str(c.Game)
	cf := w.Config
	for _, v := range []int{cf.Filters, cf.Blocks, cf.PolicyFilters, cf.ValueFilters, cf.ValueHidden} {
		e.u32(uint32(v))
	}
	version := uint32(checkpointVersionPlain)
	if cf.HasAux() {
		version = CheckpointVersion
		var flags uint32
		for bit, on := range map[uint32]bool{ckOwnership: cf.Ownership, ckScore: cf.Score, ckGlobalPooling: cf.GlobalPooling,
			ckOpponentPolicy: cf.OpponentPolicy, ckWDL: cf.WDL, ckSqueezeExcite: cf.SqueezeExcite} {
			if on {
				flags |= bit
			}
		}
		e.u32(flags)
		e.u32(uint32(cf.PoolChannels))
	}
	for _, v := range []int{w.Shape.Planes, w.Shape.Height, w.Shape.Width, w.Shape.Actions} {
		e.u32(uint32(v))
	}
	e.u64(uint64(c.Step))
	ts := w.Tensors()
	e.u32(uint32(len(ts)))
	for _, t := range ts {
		e.tensor(t)
	}
	if o := c.Optimizer; o != nil {
		e.buf = append(e.buf, 1)
		e.str(o.Kind)
		keys := sortedKeys(o.Scalars)
		e.u32(uint32(len(keys)))
		for _, k := range keys {
			e.str(k)
			e.u64(math.Float64bits(o.Scalars[k]))
		}
		e.u32(uint32(len(o.Arrays)))
		for _, t := range o.Arrays {
			n := 1
			for _, d := range t.Shape {
				n *= d
			}
			if n != len(t.Data) {
				return fmt.Errorf("optimizer array %q: shape %v holds %d values, data has %d", t.Name, t.Shape, n, len(t.Data))
			}
			e.tensor(t)
		}
	} else {
		e.buf = append(e.buf, 0)
	}
	keys := sortedKeys(c.Meta)
	e.u32(uint32(len(keys)))
	for _, k := range keys {
		e.str(k)
		e.str(c.Meta[k])
	}
	head := make([]byte, 0, 20)
	head = append(head, checkpointMagic[:]...)
	head = binary.LittleEndian.AppendUint32(head, version)
	head = binary.LittleEndian.AppendUint64(head, uint64(len(e.buf)))
	sum := crc32.Update(crcChecksum(head), castagnoli, e.buf)
	for _, b := range [][]byte{head, e.buf, binary.LittleEndian.AppendUint32(nil, sum)} {
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

type encoder struct{ buf []byte }

func (e *encoder) u32(v uint32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, v) }
func (e *encoder) u64(v uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, v) }
func (e *encoder) str(s string) { e.u32(uint32(len(s))); e.buf = append(e.buf, s...) }
func (e *encoder) tensor(t Tensor) {
	e.str(t.Name)
	e.u32(uint32(len(t.Shape)))
	for _, d := range t.Shape {
		e.u32(uint32(d))
	}
	for _, x := range t.Data {
		e.u32(math.Float32bits(x))
	}
}

// ReadCheckpoint decodes and checks a checkpoint: magic, version, length,
// checksum, then every field against the configuration. Its allocations are
// bounded by the bytes actually read.
func ReadCheckpoint(r io.Reader) (*Checkpoint, error) {
	var head [20]byte
	if n, err := io.ReadFull(r, head[:]); err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return nil, errors.New("not a tabula checkpoint: the file is empty")
		}
		if (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) && !bytes.HasPrefix(checkpointMagic[:], head[:min(n, 8)]) {
			return nil, fmt.Errorf("not a tabula checkpoint: %d bytes that do not begin with %q", n, checkpointMagic[:])
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("not a whole tabula checkpoint: %d bytes, shorter than the %d-byte header", n, len(head))
		}
		return nil, fmt.Errorf("header: %w", err)
	}
	if !bytes.Equal(head[:8], checkpointMagic[:]) {
		return nil, fmt.Errorf("not a tabula checkpoint: it begins with %q, not %q", head[:8], checkpointMagic[:])
	}
	version := binary.LittleEndian.Uint32(head[8:])
	if version != checkpointVersionPlain && version != CheckpointVersion {
		return nil, fmt.Errorf("format version %d, want %d or %d", version, checkpointVersionPlain, CheckpointVersion)
	}
	n := binary.LittleEndian.Uint64(head[12:])
	if n > maxCheckpointBody {
		return nil, fmt.Errorf("body length %d exceeds %d", n, uint64(maxCheckpointBody))
	}
	// ReadAll grows with the data really present, so a huge declared length
	// costs nothing unless the bytes are there.
	rest, err := io.ReadAll(io.LimitReader(r, int64(n)+5))
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	if uint64(len(rest)) < n+4 {
		return nil, fmt.Errorf("truncated: body and checksum need %d bytes, file has %d", n+4, len(rest))
	}
	if uint64(len(rest)) > n+4 {
		return nil, fmt.Errorf("trailing data after checksum")
	}
	body := rest[:n]
	want := binary.LittleEndian.Uint32(rest[n:])
	if got := crc32.Update(crcChecksum(head[:]), castagnoli, body); got != want {
		return nil, fmt.Errorf("checksum %08x, stored %08x: file is corrupt", got, want)
	}
	return decodeBody(body, version)
}

// decoder reads the body; the first error sticks and later reads return
// zeros.
type decoder struct {
	buf []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("offset %d: %s", d.off+20, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.buf)-d.off {
		d.fail("%s needs %d bytes, %d left", what, n, len(d.buf)-d.off)
		return nil
	}
	b := d.buf[d.off : d.off+n]
	d.off += n
	return b
}

func (d *decoder) u8(what string) byte {
	if b := d.take(1, what); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) u32(what string) uint32 {
	if b := d.take(4, what); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64(what string) uint64 {
	if b := d.take(8, what); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) str(what string, limit int) string {
	n := d.u32(what + " length")
	if d.err == nil && n > uint32(limit) {
		d.fail("%s length %d exceeds %d", what, n, limit)
	}
	return string(d.take(int(n), what))
}

func (d *decoder) count(what string) int {
	n := d.u32(what)
	if d.err == nil && n > maxCount {
		d.fail("%s %d exceeds %d", what, n, maxCount)
		return 0
	}
	return int(n)
}

func (d *decoder) tensor(what string) Tensor {
	var t Tensor
	t.Name = d.str(what+" name", maxNameLen)
	rank := d.u32(what + " rank")
	if d.err == nil && rank > maxTensorDims {
		d.fail("%s %q rank %d exceeds %d", what, t.Name, rank, maxTensorDims)
	}
	size := 1
	for i := 0; i < int(rank) && d.err == nil; i++ {
		dim := d.u32(what + " dimension")
		// Every value takes 4 bytes, so a size beyond the remaining bytes
		// is truncation or corruption; checking as we go also prevents
		// overflow.
		if d.err == nil && (dim == 0 || uint64(size)*uint64(dim) > uint64(len(d.buf)-d.off)/4) {
			d.fail("%s %q dimension %d = %d: size exceeds the %d bytes left", what, t.Name, i, dim, len(d.buf)-d.off)
		}
		size *= int(dim)
		t.Shape = append(t.Shape, int(dim))
	}
	raw := d.take(4*size, what+" "+t.Name+" data")
	if d.err != nil {
		return Tensor{}
	}
	t.Data = make([]float32, size)
	for i := range t.Data {
		t.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return t
}

// expectedFloats is the number of values in all tensors of a network of the
// given size, computed without allocating it.
func expectedFloats(c Config, s Shape) int64 {
	f, hw := int64(c.Filters), int64(s.Height)*int64(s.Width)
	bn := func(ch int64) int64 { return 4 * ch }
	pf, vf, vh := int64(c.PolicyFilters), int64(c.ValueFilters), int64(c.ValueHidden)
	n := f*int64(s.Planes)*9 + bn(f)
	n += int64(c.Blocks) * 2 * (f*f*9 + bn(f))
	n += pf*f + bn(pf) + int64(s.Actions)*pf*hw + int64(s.Actions)
	vo := int64(c.ValueOutputs())
	n += vf*f + bn(vf) + vh*vf*hw + vh + vo*vh + vo
	for i := 0; i < c.Blocks; i++ {
		if c.PoolBlock(i) {
			n += f*2*int64(c.Pooled()) + f
		}
	}
	if r := int64(c.SEHidden()); r > 0 {
		n += int64(c.Blocks) * (r*f + r + 2*f*r + 2*f)
	}
	if c.Ownership {
		n += f
	}
	if c.Score {
		n += vh + 1
	}
	if c.OpponentPolicy {
		n += int64(s.Actions)*pf*hw + int64(s.Actions)
	}
	return n
}

func decodeBody(body []byte, version uint32) (*Checkpoint, error) {
	d := &decoder{buf: body}
	c := &Checkpoint{}
	c.Game = d.str("game", maxNameLen)
	var v [9]int
	fields := [9]string{"config.filters", "config.blocks", "config.policy_filters", "config.value_filters",
		"config.value_hidden", "shape.planes", "shape.height", "shape.width", "shape.actions"}
	var flags, poolChannels uint32
	for i := range v {
		if i == 5 && version >= 2 {
			flags = d.u32("config.flags")
			poolChannels = d.u32("config.pool_channels")
			if d.err == nil && flags&^(ckOwnership|ckScore|ckGlobalPooling|ckOpponentPolicy|ckWDL|ckSqueezeExcite) != 0 {
				d.fail("config.flags = %#x: unknown bits", flags)
			}
			if d.err == nil && poolChannels > maxDim {
				d.fail("config.pool_channels = %d exceeds %d", poolChannels, maxDim)
			}
		}
		v[i] = int(d.u32(fields[i]))
		if d.err == nil && i >= 5 && v[i] > maxDim {
			d.fail("%s = %d exceeds %d", fields[i], v[i], maxDim)
		}
	}
	c.Step = int64(d.u64("step"))
	if d.err != nil {
		return nil, d.err
	}
	cfg := Config{Filters: v[0], Blocks: v[1], PolicyFilters: v[2], ValueFilters: v[3], ValueHidden: v[4],
		Ownership: flags&ckOwnership != 0, Score: flags&ckScore != 0, GlobalPooling: flags&ckGlobalPooling != 0,
		OpponentPolicy: flags&ckOpponentPolicy != 0, WDL: flags&ckWDL != 0, PoolChannels: int(poolChannels),
		SqueezeExcite: flags&ckSqueezeExcite != 0}
	if version >= 2 && !cfg.HasAux() {
		return nil, errors.New("format version 2 without auxiliary heads, global pooling, squeeze-and-excitation or a win/draw/loss value head, which is written as version 1")
	}
	shape := Shape{Planes: v[5], Height: v[6], Width: v[7], Actions: v[8]}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := shape.Validate(); err != nil {
		return nil, fmt.Errorf("shape: %w", err)
	}
	if c.Step < 0 {
		return nil, fmt.Errorf("step = %d, want >= 0", c.Step)
	}
	nt := d.count("tensor count")
	var ts []Tensor
	var total int64
	for i := 0; i < nt && d.err == nil; i++ {
		t := d.tensor(fmt.Sprintf("tensor %d", i))
		total += int64(len(t.Data))
		ts = append(ts, t)
	}
	if d.err != nil {
		return nil, d.err
	}
	if want := expectedFloats(cfg, shape); total != want {
		return nil, fmt.Errorf("tensors hold %d values, config %+v and shape %+v need %d", total, cfg, shape, want)
	}
	w := allocate(cfg, shape)
	wt := w.Tensors()
	if len(ts) != len(wt) {
		return nil, fmt.Errorf("%d tensors, config %+v needs %d", len(ts), cfg, len(wt))
	}
	for i, t := range ts {
		if t.Name != wt[i].Name {
			return nil, fmt.Errorf("tensor %d is %q, want %q", i, t.Name, wt[i].Name)
		}
		if !equalInts(t.Shape, wt[i].Shape) {
			return nil, fmt.Errorf("tensor %q: shape %v, want %v", t.Name, t.Shape, wt[i].Shape)
		}
		copy(wt[i].Data, t.Data)
	}
	c.Weights = w

	switch present := d.u8("optimizer flag"); {
	case d.err != nil:
		return nil, d.err
	case present == 1:
		o := &OptimizerState{Scalars: map[string]float64{}}
		o.Kind = d.str("optimizer kind", maxNameLen)
		ns := d.count("optimizer scalar count")
		prev := ""
		for i := 0; i < ns && d.err == nil; i++ {
			k := d.str("optimizer scalar name", maxNameLen)
			x := math.Float64frombits(d.u64("optimizer scalar " + k))
			if d.err == nil && i > 0 && k <= prev {
				d.fail("optimizer scalar %q out of order or repeated", k)
			}
			prev = k
			o.Scalars[k] = x
		}
		na := d.count("optimizer array count")
		for i := 0; i < na && d.err == nil; i++ {
			o.Arrays = append(o.Arrays, d.tensor(fmt.Sprintf("optimizer array %d", i)))
		}
		c.Optimizer = o
	case present != 0:
		return nil, fmt.Errorf("optimizer flag = %d, want 0 or 1", present)
	}
	nm := d.count("metadata count")
	if nm > 0 {
		c.Meta = make(map[string]string, min(nm, 64))
	}
	prev := ""
	for i := 0; i < nm && d.err == nil; i++ {
		k := d.str("metadata key", maxNameLen)
		val := d.str("metadata "+k, maxMetaValueLen)
		if d.err == nil && i > 0 && k <= prev {
			d.fail("metadata key %q out of order or repeated", k)
		}
		prev = k
		c.Meta[k] = val
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.off != len(body) {
		return nil, fmt.Errorf("%d unread bytes at the end of the body", len(body)-d.off)
	}
	return c, nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameRules reports whether the game named spec is played by the same rules
// as g, apart from adjudication parameters. A spec whose game is not
// registered in this program is not.
func sameRules(spec string, g games.Game) bool {
	cg, err := games.New(spec)
	return err == nil && games.RulesName(cg) == games.RulesName(g)
}
