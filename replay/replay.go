// Package replay stores (s, pi, z) training examples: durably, in
// checksummed chunk files written atomically under a run's folder, and in
// memory as a sliding window over the most recent positions, sampled
// uniformly with random symmetry augmentation.
//
// Several processes may write chunks into one folder (extra self-play
// workers); the trainer's Buffer picks them up with Refresh. Memory is bounded
// by the window, not by the length of the run.
package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"tabula/games"
	"tabula/internal/atomicfile"
)

// Example is one training example: the observation of a position from the
// mover's point of view, the search's visit distribution, the legal moves
// (for the masked softmax), and the final result z for the mover; and,
// optionally, auxiliary targets read off the end of the game (see
// games.Outcomer), also from the mover's point of view.
type Example struct {
	Obs    []float32 // planes*height*width, finite, within [-maxObs, maxObs]
	Policy []float32 // one per action, non-negative, summing to 1
	Legal  []bool    // one per action
	Value  float32   // z in [-1, 1]

	// Ownership is nil when the example has no auxiliary targets (a game
	// without them, or one that ended by resignation); else height*width
	// entries in [-1, 1], row-major: +1 the mover owns the point at the end
	// of the game, -1 the opponent does, 0 neither. It is stored to 1/127.
	Ownership []float32
	// Score is the final margin for the mover, in the game's unit (points,
	// komi included, in Go; discs in Othello); meaningful only with
	// Ownership.
	Score float32
	// OppPolicy is the opponent-policy target: the distribution of the
	// opponent's reply (the search policy of the next move, or the move
	// played where that had no full search), one per action, non-negative,
	// summing to 1; nil when there is none (the game's last move, a chance
	// event or the same player next).
	OppPolicy []float32
}

// maxScore bounds the magnitude of a score target.
const maxScore = 1e6

// maxObs bounds the magnitude of an observation entry: input planes hold
// 0/1 or small counts (backgammon: at most 7.5), never more.
const maxObs = 1e6

func (e Example) check(obsLen, actions, points int) error {
	if len(e.Obs) != obsLen || len(e.Policy) != actions || len(e.Legal) != actions {
		return fmt.Errorf("sizes obs=%d policy=%d legal=%d, want %d, %d, %d",
			len(e.Obs), len(e.Policy), len(e.Legal), obsLen, actions, actions)
	}
	for i, x := range e.Obs {
		if !(x >= -maxObs && x <= maxObs) {
			return fmt.Errorf("observation entry %d = %v, want a finite value within +-%v", i, x, maxObs)
		}
	}
	sum := 0.0
	for a, p := range e.Policy {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("policy entry %d = %v, want a probability", a, p)
		}
		if p > 0 && !e.Legal[a] {
			return fmt.Errorf("policy puts %v on illegal action %d", p, a)
		}
		sum += float64(p)
	}
	if math.Abs(sum-1) > 1e-3 {
		return fmt.Errorf("policy sums to %v, want 1", sum)
	}
	if !(e.Value >= -1 && e.Value <= 1) {
		return fmt.Errorf("value %v outside [-1, 1]", e.Value)
	}
	if e.Ownership != nil {
		if len(e.Ownership) != points {
			return fmt.Errorf("ownership of %d points, want %d", len(e.Ownership), points)
		}
		for i, o := range e.Ownership {
			if !(o >= -1 && o <= 1) {
				return fmt.Errorf("ownership entry %d = %v, want [-1, 1]", i, o)
			}
		}
		if !(e.Score >= -maxScore && e.Score <= maxScore) {
			return fmt.Errorf("score %v, want a finite value within +-%v", e.Score, maxScore)
		}
	}
	if e.OppPolicy != nil {
		if len(e.OppPolicy) != actions {
			return fmt.Errorf("opponent policy of %d actions, want %d", len(e.OppPolicy), actions)
		}
		sum := 0.0
		for a, p := range e.OppPolicy {
			if !(p >= 0 && p <= 1) {
				return fmt.Errorf("opponent policy entry %d = %v, want a probability", a, p)
			}
			sum += float64(p)
		}
		if math.Abs(sum-1) > 1e-3 {
			return fmt.Errorf("opponent policy sums to %v, want 1", sum)
		}
	}
	return nil
}

// Config tunes a Buffer.
type Config struct {
	// Window is how many of the most recent examples are kept and sampled.
	Window int `yaml:"window"`
	// MaxReuse caps training: at most MaxReuse samples are drawn per
	// example ever added (e.g. 4 means each position is seen about four
	// times on average). 0 means no cap.
	MaxReuse float64 `yaml:"max_reuse"`
	// Augment applies a random symmetry of the game to every sample, where
	// the game has symmetries.
	Augment bool `yaml:"augment"`
}

// DefaultConfig keeps 200,000 positions, trains on each about 4 times, and
// augments.
func DefaultConfig() Config { return Config{Window: 200_000, MaxReuse: 4, Augment: true} }

// Validate names the first field out of range.
func (c Config) Validate() error {
	if c.Window < 1 || c.Window > 50_000_000 {
		return fmt.Errorf("replay.window = %d, want 1..50000000", c.Window)
	}
	if !(c.MaxReuse >= 0 && c.MaxReuse <= 1000) {
		return fmt.Errorf("replay.max_reuse = %v, want 0..1000 (0 = no cap)", c.MaxReuse)
	}
	return nil
}

// ChunkSuffix ends every chunk file's name.
const ChunkSuffix = ".tbr"

// CorruptSuffix is appended to a chunk that fails its checks: it is moved
// aside, never deleted, and the run goes on without it.
const CorruptSuffix = ".corrupt"

// Buffer is the replay window of one run. It is safe for concurrent use.
type Buffer struct {
	dir    string
	game   games.Game
	cfg    Config
	log    *slog.Logger
	obsLen int
	na     int
	points int             // height*width: the length of an ownership map
	sym    games.Symmetric // nil when the game has none or Augment is off
	perm   [][]int32       // per symmetry, the source point of every point (auxiliary targets)
	writer string          // unique per process, part of chunk names
	seq    atomic.Uint64

	mu     sync.Mutex
	loaded map[string]bool // chunk files already in the window
	// ends maps each chunk file in loaded to the count of examples added
	// (added) once its last example was: when added-size reaches it, every
	// example of the chunk has left the window. 0 for a chunk never read.
	ends map[string]int64
	// counts maps each chunk file in loaded to its number of examples, 0
	// for a chunk never read.
	counts  map[string]int
	next    int   // ring position of the next example
	size    int   // examples in the window
	added   int64 // examples ever added (this process's view of the run)
	sampled int64 // samples drawn
	// The observations: Window x obsLen codes of pal while the game's
	// observations hold at most 256 distinct values (every game's do:
	// binary planes, backgammon's counts and fractions), else obsF.
	obs     []uint8
	pal     *obsPalette
	obsF    []float32 // Window x obsLen, in place of obs
	value   []float32 // Window
	scratch []float32 // one observation, for augmentation
	// The policy, legal moves and opponent policy of every example, a
	// sparse record each (store.go), and the scratch a record is built in.
	recs   sparseRing
	recBuf []byte
	// Auxiliary targets, allocated when the first example with them
	// arrives: whether each example has them, its ownership map (x127)
	// and score.
	hasAux []bool
	own    []int8
	score  []float32
}

// Open opens (creating if needed) the replay folder dir for game g, removes
// temporary files that an interrupted write of a dead process left (never
// those of a live process sharing the folder), and loads the most recent
// chunks into the window. A chunk that fails its checks is renamed with
// CorruptSuffix and reported in the log; nothing is deleted. writerID makes
// this process's chunk names unique among processes sharing dir.
func Open(dir string, g games.Game, cfg Config, writerID string, log *slog.Logger) (*Buffer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if writerID == "" || strings.ContainsAny(writerID, "/\\. ") {
		return nil, fmt.Errorf("replay: writer id %q must be non-empty without '/', '.' or spaces", writerID)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if _, err := atomicfile.RemoveStaleTemps(dir); err != nil {
		return nil, fmt.Errorf("replay: cleaning %s: %w", dir, err)
	}
	p, h, w := g.ObservationShape()
	b := &Buffer{
		dir: dir, game: g, cfg: cfg, log: log, obsLen: p * h * w, na: g.NumActions(), points: h * w, writer: writerID,
		loaded: map[string]bool{}, ends: map[string]int64{}, counts: map[string]int{},
		obs:   make([]uint8, cfg.Window*p*h*w),
		pal:   newObsPalette(),
		value: make([]float32, cfg.Window),
		recs:  sparseRing{off: make([]int, cfg.Window)},
	}
	if s, ok := g.(games.Symmetric); ok && cfg.Augment {
		b.sym = s
		b.perm = pointPerms(s, b.obsLen, b.points)
	}
	if _, err := b.Refresh(); err != nil {
		return nil, err
	}
	return b, nil
}

// Write stores examples as one new chunk file (atomically, compressed:
// format version 4) and adds them to the window. It returns the chunk's
// path.
func (b *Buffer) Write(examples []Example) (string, error) {
	return b.WriteWith(examples, nil)
}

// WriteWith is Write with a hook: before(name) runs once the chunk is
// encoded and named (the file name, without folder) and before the file
// is created; an error from it cancels the write. A caller keeps a ledger
// of what each chunk holds this way: an entry written by before whose chunk
// never appeared names a write that failed or was cut short.
func (b *Buffer) WriteWith(examples []Example, before func(name string) error) (string, error) {
	if len(examples) == 0 {
		return "", nil
	}
	data, err := encodeChunk(b.game.Name(), b.obsLen, b.na, b.points, examples)
	if err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	data = compressChunk(data)
	name := fmt.Sprintf("chunk-%020d-%s-%06d%s", time.Now().UnixNano(), b.writer, b.seq.Add(1), ChunkSuffix)
	if before != nil {
		if err := before(name); err != nil {
			return "", err
		}
	}
	path := filepath.Join(b.dir, name)
	if err := atomicfile.Write(path, data); err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.loaded[name] = true
	b.addLocked(examples)
	b.ends[name] = b.added
	b.counts[name] = len(examples)
	return path, nil
}

// Refresh loads chunk files that appeared in the folder since the last call
// (written by other processes, or present at Open), oldest first, and
// returns how many examples it added. Only the newest chunks that can still
// be in the window are read.
func (b *Buffer) Refresh() (int, error) {
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		return 0, fmt.Errorf("replay: %w", err)
	}
	var names []string
	b.mu.Lock()
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, ChunkSuffix) && strings.HasPrefix(n, "chunk-") && !b.loaded[n] {
			names = append(names, n)
		}
	}
	b.mu.Unlock()
	sort.Strings(names) // names start with a timestamp: oldest first
	// Newest first, read each chunk's header until the window is full;
	// older ones are only marked as seen. Then decode the chosen ones and
	// add them, oldest first, one chunk at a time: never more than one
	// chunk's examples are held decoded beside the window.
	var chosen []string
	total := 0
	for i := len(names) - 1; i >= 0; i-- {
		if total >= b.cfg.Window {
			b.markLoaded(names[i])
			continue
		}
		path := filepath.Join(b.dir, names[i])
		data, err := os.ReadFile(path)
		if err != nil {
			return 0, fmt.Errorf("replay: %w", err)
		}
		h, err := peekHeader(data)
		if err == nil {
			err = b.checkHeader(h)
		}
		if err != nil {
			if err := b.moveAside(path, err); err != nil {
				return 0, err
			}
			continue
		}
		chosen = append(chosen, names[i])
		total += h.count
	}
	added := 0
	for i := len(chosen) - 1; i >= 0; i-- {
		path := filepath.Join(b.dir, chosen[i])
		ex, err := b.readChunk(path)
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				return added, err
			}
			if err := b.moveAside(path, err); err != nil {
				return added, err
			}
			continue
		}
		if chunkDecoded != nil {
			chunkDecoded()
		}
		b.mu.Lock()
		b.loaded[chosen[i]] = true
		b.addLocked(ex)
		b.ends[chosen[i]] = b.added
		b.counts[chosen[i]] = len(ex)
		b.mu.Unlock()
		added += len(ex)
	}
	return added, nil
}

// chunkDecoded, when set (by tests), is called by Refresh each time it
// holds one chunk decoded and not yet added to the window: the moment its
// heap is largest.
var chunkDecoded func()

// moveAside renames a chunk that failed its checks (err) with
// CorruptSuffix and logs it.
func (b *Buffer) moveAside(path string, err error) error {
	b.log.Error("replay chunk failed its checks; moved aside, the run goes on without it", "file", path, "err", err)
	if rerr := os.Rename(path, path+CorruptSuffix); rerr != nil {
		return fmt.Errorf("replay: moving aside %s: %w", path, rerr)
	}
	return nil
}

func (b *Buffer) markLoaded(name string) {
	b.mu.Lock()
	b.loaded[name] = true
	b.ends[name] = 0
	b.mu.Unlock()
}

// Expired returns the names (without folder) of the chunk files this buffer
// has taken whose examples have all left the window and that the folder
// holds a full window of newer examples beside, sorted: files that a
// restart would not load either, so that removing them loses nothing the
// run trains on. Newer means later in name order (the names start with the
// time of writing), counting only chunks this buffer has read: a chunk
// another process wrote since the last Refresh counts for nothing yet.
func (b *Buffer) Expired() []string {
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasPrefix(n, "chunk-") && strings.HasSuffix(n, ChunkSuffix) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	newer := 0
	for i := len(names) - 1; i >= 0; i-- {
		name := names[i]
		if newer < b.cfg.Window {
			newer += b.counts[name]
			continue
		}
		if end, ok := b.ends[name]; ok && end <= b.added-int64(b.size) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Remove deletes chunk files of the folder by name (as Expired returns
// them) and forgets them. A file already gone is no error.
func (b *Buffer) Remove(names []string) error {
	var errs []error
	for _, name := range names {
		if !strings.HasPrefix(name, "chunk-") || !strings.HasSuffix(name, ChunkSuffix) || strings.ContainsAny(name, "/\\") {
			errs = append(errs, fmt.Errorf("replay: %q is not a chunk file name", name))
			continue
		}
		if err := os.Remove(filepath.Join(b.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("replay: %w", err))
			continue
		}
		b.mu.Lock()
		delete(b.loaded, name)
		delete(b.ends, name)
		delete(b.counts, name)
		b.mu.Unlock()
	}
	return errors.Join(errs...)
}

// readChunk reads and verifies one chunk file against this buffer's game.
func (b *Buffer) readChunk(path string) ([]Example, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	h, ex, err := decodeChunk(data)
	if err == nil {
		err = b.checkHeader(h)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ex, nil
}

// checkHeader fails unless a chunk's header is of this buffer's game.
func (b *Buffer) checkHeader(h chunkHeader) error {
	if h.game != b.game.Name() || h.obsLen != b.obsLen || h.actions != b.na || (h.aux && h.points != b.points) {
		return fmt.Errorf("%w: written for game %q (obs %d, actions %d), this run plays %q (obs %d, actions %d)",
			errCorrupt, h.game, h.obsLen, h.actions, b.game.Name(), b.obsLen, b.na)
	}
	return nil
}

// Encode serialises the examples of g as the bytes of one chunk file
// (checksummed), for sending them elsewhere; Decode reads them back.
func Encode(g games.Game, examples []Example) ([]byte, error) {
	p, h, w := g.ObservationShape()
	data, err := encodeChunk(g.Name(), p*h*w, g.NumActions(), h*w, examples)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return data, nil
}

// Decode verifies the bytes of a chunk (as Encode writes them) and returns
// its examples; it fails when they are damaged or of another game than g.
func Decode(g games.Game, data []byte) ([]Example, error) {
	h, ex, err := decodeChunk(data)
	if err != nil {
		return nil, err
	}
	p, hh, w := g.ObservationShape()
	if h.game != g.Name() || h.obsLen != p*hh*w || h.actions != g.NumActions() || (h.aux && h.points != hh*w) {
		return nil, fmt.Errorf("%w: written for game %q (obs %d, actions %d), want %q (obs %d, actions %d)",
			errCorrupt, h.game, h.obsLen, h.actions, g.Name(), p*hh*w, g.NumActions())
	}
	return ex, nil
}

// ReadChunkFile reads and verifies one chunk file, for tools and tests.
func ReadChunkFile(path string) (game string, examples []Example, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	h, ex, err := decodeChunk(data)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return h.game, ex, nil
}

// addLocked copies examples into the ring, evicting the oldest.
func (b *Buffer) addLocked(examples []Example) {
	w := b.cfg.Window
	for _, e := range examples {
		i := b.next
		if b.obsF == nil && !b.pal.encode(b.obs[i*b.obsLen:(i+1)*b.obsLen], e.Obs) {
			// A 257th distinct value: keep float32 observations from now
			// on, the ones stored so far included.
			b.obsF = make([]float32, len(b.obs))
			for j, c := range b.obs {
				b.obsF[j] = b.pal.vals[c]
			}
			b.obs, b.pal = nil, nil
		}
		if b.obsF != nil {
			copy(b.obsF[i*b.obsLen:(i+1)*b.obsLen], e.Obs)
		}
		first, live := (i-b.size+w)%w, b.size // the oldest stored example, and how many
		if b.size == w {
			first, live = (i+1)%w, w-1 // slot i's example leaves the window
		}
		b.recBuf = appendRecord(b.recBuf[:0], e.Policy, e.Legal, e.OppPolicy)
		b.recs.put(i, b.recBuf, first, live, b.size == w, b.na)
		b.value[i] = e.Value
		if e.Ownership != nil && b.hasAux == nil {
			b.hasAux = make([]bool, b.cfg.Window)
			b.own = make([]int8, b.cfg.Window*b.points)
			b.score = make([]float32, b.cfg.Window)
		}
		if b.hasAux != nil {
			b.hasAux[i] = e.Ownership != nil
			o := b.own[i*b.points : (i+1)*b.points]
			clear(o)
			for j, x := range e.Ownership {
				o[j] = int8(math.Round(float64(x) * 127))
			}
			b.score[i] = e.Score
		}
		b.next = (b.next + 1) % w
		if b.size < b.cfg.Window {
			b.size++
		}
	}
	b.added += int64(len(examples))
}

// Len is the number of examples in the window.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size
}

// Added is the number of examples added since Open (those loaded at Open
// included).
func (b *Buffer) Added() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.added
}

// Available is how many more samples MaxReuse allows now; with no cap it is
// math.MaxInt64.
func (b *Buffer) Available() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.availableLocked()
}

func (b *Buffer) availableLocked() int64 {
	if b.cfg.MaxReuse == 0 {
		return math.MaxInt64
	}
	return int64(b.cfg.MaxReuse*float64(b.added)) - b.sampled
}

// Batch is a minibatch laid out as the trainer wants it.
type Batch struct {
	Obs    []float32 // n x obsLen
	Policy []float32 // n x actions
	Legal  []float32 // n x actions, 1 legal, 0 illegal
	Value  []float32 // n

	// The auxiliary targets: AuxWeight is 1 for an example that has them
	// and 0 for one that does not (whose Ownership and Score are zeros).
	Ownership []float32 // n x height*width, from the mover's point of view
	Score     []float32 // n, the final margin for the mover
	AuxWeight []float32 // n
	// OppPolicy is the opponent's reply, a row of zeros for an example
	// without one.
	OppPolicy []float32 // n x actions
}

// NewBatch allocates a Batch of n examples for this buffer's game.
func (b *Buffer) NewBatch(n int) *Batch {
	return &Batch{
		Obs:       make([]float32, n*b.obsLen),
		Policy:    make([]float32, n*b.na),
		Legal:     make([]float32, n*b.na),
		Value:     make([]float32, n),
		Ownership: make([]float32, n*b.points),
		Score:     make([]float32, n),
		AuxWeight: make([]float32, n),
		OppPolicy: make([]float32, n*b.na),
	}
}

// ErrNotEnough is returned by Sample when the window is empty or the reuse
// cap allows fewer samples than asked for.
var ErrNotEnough = errors.New("replay: not enough new data for another batch")

// Sample fills batch with examples drawn uniformly from the window, each
// through a random symmetry when augmenting. It draws from rng and allocates
// nothing.
func (b *Buffer) Sample(rng *rand.Rand, batch *Batch) error {
	n := len(batch.Value)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.size == 0 || b.availableLocked() < int64(n) {
		return ErrNotEnough
	}
	b.sampled += int64(n)
	for k := 0; k < n; k++ {
		i := rng.IntN(b.size)
		sym := 0
		if b.sym != nil {
			sym = rng.IntN(b.sym.NumSymmetries())
		}
		b.fill(batch, k, i, sym)
	}
	return nil
}

// fill writes example i of the window, mapped through symmetry sym, as
// example k of batch.
func (b *Buffer) fill(batch *Batch, k, i, sym int) {
	obs := batch.Obs[k*b.obsLen : (k+1)*b.obsLen]
	pol := batch.Policy[k*b.na : (k+1)*b.na]
	leg := batch.Legal[k*b.na : (k+1)*b.na]
	var move games.Symmetric // nil for the identity
	if sym == 0 {
		b.obsAt(i, obs)
	} else {
		b.symObs(sym, obs, i)
		move = b.sym
	}
	rec := b.recs.buf[b.recs.off[i]:]
	clear(pol)
	clear(leg)
	p := scatter(rec, recHeader, int(binary.LittleEndian.Uint32(rec[1:])), b.na, rec[0]&recSetMask != 0, pol, leg, move, sym)
	batch.Value[k] = b.value[i]
	if batch.AuxWeight != nil {
		b.auxAt(i, sym, batch.Ownership[k*b.points:(k+1)*b.points], &batch.Score[k], &batch.AuxWeight[k])
	}
	if batch.OppPolicy != nil {
		// The reply is a move of the position after the example's, which
		// the same symmetry maps alike.
		opp := batch.OppPolicy[k*b.na : (k+1)*b.na]
		clear(opp)
		if rec[0]&recOpp != 0 {
			scatter(rec, p, int(binary.LittleEndian.Uint32(rec[5:])), b.na, rec[0]&recOppMask != 0, opp, nil, move, sym)
		}
	}
}

// auxAt writes the auxiliary targets of example i, mapped through symmetry
// sym, or zeros and a zero weight when it has none.
func (b *Buffer) auxAt(i, sym int, own []float32, score, weight *float32) {
	if b.hasAux == nil || !b.hasAux[i] {
		clear(own)
		*score, *weight = 0, 0
		return
	}
	src := b.own[i*b.points : (i+1)*b.points]
	if sym == 0 {
		for j, x := range src {
			own[j] = float32(x) / 127
		}
	} else {
		for j, from := range b.perm[sym] {
			own[j] = float32(src[from]) / 127
		}
	}
	*score, *weight = b.score[i], 1
}

// pointPerms returns, for every symmetry k of g, the point each point of a
// transformed board comes from, found by pushing an observation whose first
// plane numbers its points through TransformObservation (which maps every
// plane like the board).
func pointPerms(g games.Symmetric, obsLen, points int) [][]int32 {
	perms := make([][]int32, g.NumSymmetries())
	src, dst := make([]float32, obsLen), make([]float32, obsLen)
	for p := 0; p < points; p++ {
		src[p] = float32(p)
	}
	for k := range perms {
		g.TransformObservation(k, dst, src)
		perms[k] = make([]int32, points)
		for p := range perms[k] {
			perms[k][p] = int32(dst[p])
		}
	}
	return perms
}

// obsAt writes the stored observation of example i into dst.
func (b *Buffer) obsAt(i int, dst []float32) {
	if b.obsF != nil {
		copy(dst, b.obsF[i*b.obsLen:(i+1)*b.obsLen])
		return
	}
	pal := &b.pal.vals
	for j, c := range b.obs[i*b.obsLen : (i+1)*b.obsLen] {
		dst[j] = pal[c]
	}
}

// symObs maps stored observation i through a symmetry. TransformObservation
// works on float32, so the source is widened first into a per-buffer
// scratch slice.
func (b *Buffer) symObs(sym int, dst []float32, i int) {
	if cap(b.scratch) < b.obsLen {
		b.scratch = make([]float32, b.obsLen)
	}
	tmp := b.scratch[:b.obsLen]
	b.obsAt(i, tmp)
	b.sym.TransformObservation(sym, dst, tmp)
}

// footprint is the bytes of the window's storage: every slice the buffer
// keeps examples in, by capacity.
func (b *Buffer) footprint() int64 {
	n := cap(b.obs) + 4*cap(b.obsF) + 4*cap(b.value) + cap(b.hasAux) + cap(b.own) + 4*cap(b.score) +
		cap(b.recs.buf) + 8*cap(b.recs.off) + cap(b.recBuf)
	if b.pal != nil {
		n += int(unsafe.Sizeof(*b.pal)) + 16*len(b.pal.codes)
	}
	return int64(n)
}
