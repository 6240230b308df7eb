package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"tabula/bus"
	"tabula/games"
	"tabula/internal/atomicfile"
	"tabula/replay"
)

// ingestLedger is the trainer's record, in the run folder, of every game
// it took from the bus, one line per batch, each ending in a CRC-32C of the
// line before it:
//
//	chunk <chunk file> <id>@<worker> ... <crc>   games written into that chunk
//	stale - <id>@<worker> ... <crc>              games dropped: too old a network
//	bad - <id>@<worker> ... <crc>                games dropped: unreadable data
//	gone <chunk file> <id>@<worker> ... <crc>    games of a chunk removed once
//	                                             it left the replay window
//
// A chunk line is written (and synced) before its chunk file appears, and
// the games are acknowledged on the bus only after both: a chunk line whose
// file does not exist is a write that never finished, and its games come
// again. So the ids of the lines that count are exactly the games in the
// replay folder, and a game delivered again (after a trainer restart, say)
// is recognised and dropped.
//
// A game can come again only while a message of it is in the bus's stream,
// so compact forgets the games stored before the stream's oldest game (less
// ledgerMargin), and keeps the lines of the chunks still in the replay
// folder, and the games of removed chunks as gone lines while they may come
// again.
const ingestLedger = "ingest.log"

// ledgerMargin is how long before the stream's oldest game the ledger still
// remembers games: it covers a NATS server whose clock differs from the
// trainer's, and a publish retried within the stream's duplicate window.
const ledgerMargin = bus.DefaultDuplicateWindow

// ingestCatchUp bounds one fetch, and so one replay chunk, at this many
// times selfplay.chunk_games. The bus fetch returns as soon as that many
// games wait, or after its wait with what came: a trainer that keeps up
// writes chunks of the games of its wait (about chunk_games at 2-core
// rates), and one that has fallen behind catches up in larger chunks, its
// ledger, chunk and folder syncs and its fetch round trip shared by more
// games (docs/benchmarks.md, "The bus"; the bus holds every game until it
// is acknowledged, so a larger fetch risks nothing).
const ingestCatchUp = 8

// ingestMaxFailures is how many batches in a row may fail to be written
// before the run stops: a replay folder that cannot take games is a fault
// to report, not to train around.
const ingestMaxFailures = 4

// ingest moves games from the bus into the replay buffer: the trainer side
// of the data plane.
type ingest struct {
	g        games.Game
	buf      *replay.Buffer
	dir      string // the replay folder
	path     string // the ledger
	log      *slog.Logger
	batch    int        // games per fetch and per chunk: selfplay.chunk_games, up to ingestCatchUp times that
	maxStale int        // bus.max_stale_generations
	best     func() int // the current best generation

	mu      sync.Mutex
	ledger  *os.File
	size    int64               // of the ledger's whole lines
	sizeAt  int64               // the ledger's size after the last compaction
	seen    map[string]struct{} // game ids in the ledger's lines that count
	workers map[string]*workerCount
	totals  ingestTotals
}

// workerCount is what one worker's games did at ingest since the last
// metrics line.
type workerCount struct {
	Games, Positions, Stale, Duplicates int
	Generation                          int       // of its last game
	Last                                time.Time // when its last game arrived
}

// ingestTotals counts everything ingest has done since the process started.
type ingestTotals struct {
	Games, Positions, Duplicates, Stale, Bad, Chunks int
}

// openIngest opens (creating) the ledger at path and reads which games
// are already in the replay folder dir.
func openIngest(path, dir string, g games.Game, buf *replay.Buffer, batch, maxStale int, best func() int, log *slog.Logger) (*ingest, error) {
	in := &ingest{g: g, buf: buf, dir: dir, path: path, log: log, batch: max(1, batch), maxStale: maxStale, best: best,
		seen: map[string]struct{}{}, workers: map[string]*workerCount{}}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("ingest ledger: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("ingest ledger %s: %w", path, err)
	}
	keep := int64(bytes.LastIndexByte(data, '\n') + 1)
	if keep != int64(len(data)) { // a line cut short by a crash: its chunk never counted
		if err := f.Truncate(keep); err != nil {
			f.Close()
			return nil, fmt.Errorf("ingest ledger %s: dropping a torn last line: %w", path, err)
		}
	}
	in.ledger, in.size, in.sizeAt = f, keep, keep
	entries, err := os.ReadDir(dir)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("ingest: %w", err)
	}
	files := map[string]bool{}
	for _, e := range entries {
		files[strings.TrimSuffix(e.Name(), replay.CorruptSuffix)] = true
	}
	lines, err := parseLedger(data[:keep])
	if err != nil {
		log.Error("ingest ledger: damaged lines skipped; games they name may be taken again", "file", path, "err", err)
	}
	orphans := 0
	for _, l := range lines {
		if l.kind == "chunk" && !files[l.chunk] {
			orphans++
			continue
		}
		for _, g := range l.games {
			in.seen[g.id] = struct{}{}
		}
	}
	if orphans > 0 {
		log.Info("ingest ledger: chunks that were never written (their games come again)", "lines", orphans)
	}
	return in, nil
}

func (in *ingest) close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ledger == nil {
		return nil
	}
	err := in.ledger.Close()
	in.ledger = nil
	return err
}

// ledgerGame is a game named on a ledger line.
type ledgerGame struct{ id, worker string }

type ledgerLine struct {
	kind  string // chunk, stale, bad
	chunk string // the chunk file, for kind chunk
	games []ledgerGame
}

var castagnoliTable = crc32.MakeTable(crc32.Castagnoli)

// formatLedgerLine writes one line with its checksum and newline.
func formatLedgerLine(kind, chunk string, gs []ledgerGame) []byte {
	var b bytes.Buffer
	b.WriteString(kind)
	b.WriteByte(' ')
	if chunk == "" {
		chunk = "-"
	}
	b.WriteString(chunk)
	for _, g := range gs {
		b.WriteByte(' ')
		b.WriteString(g.id)
		b.WriteByte('@')
		b.WriteString(g.worker)
	}
	fmt.Fprintf(&b, " %08x\n", crc32.Checksum(b.Bytes(), castagnoliTable))
	return b.Bytes()
}

// parseLedger reads whole lines; damaged ones are skipped and reported
// together in the error.
func parseLedger(data []byte) ([]ledgerLine, error) {
	var out []ledgerLine
	var bad []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			bad = append(bad, fmt.Sprintf("line %d: no checksum", n))
			continue
		}
		sum, err := strconv.ParseUint(line[i+1:], 16, 32)
		if err != nil || uint32(sum) != crc32.Checksum([]byte(line[:i]), castagnoliTable) {
			bad = append(bad, fmt.Sprintf("line %d: checksum mismatch", n))
			continue
		}
		f := strings.Fields(line[:i])
		if len(f) < 2 || (f[0] != "chunk" && f[0] != "stale" && f[0] != "bad" && f[0] != "gone") {
			bad = append(bad, fmt.Sprintf("line %d: unknown record %q", n, f[0]))
			continue
		}
		l := ledgerLine{kind: f[0]}
		if f[1] != "-" {
			l.chunk = f[1]
		}
		for _, g := range f[2:] {
			j := strings.LastIndexByte(g, '@')
			if j < 0 {
				l.games = nil
				bad = append(bad, fmt.Sprintf("line %d: game %q without a worker", n, g))
				break
			}
			l.games = append(l.games, ledgerGame{id: g[:j], worker: g[j+1:]})
		}
		out = append(out, l)
	}
	if len(bad) > 0 {
		return out, errors.New(strings.Join(bad, "; "))
	}
	return out, nil
}

// appendLedger writes one line and syncs it; on failure it cuts the file
// back, so that no torn line sits before the next one.
func (in *ingest) appendLedger(kind, chunk string, gs []ledgerGame) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ledger == nil {
		return errors.New("ingest ledger: closed")
	}
	line := formatLedgerLine(kind, chunk, gs)
	_, err := in.ledger.WriteAt(line, in.size)
	if err == nil {
		err = in.ledger.Sync()
	}
	if err != nil {
		in.ledger.Truncate(in.size)
		return fmt.Errorf("ingest ledger: %w", err)
	}
	in.size += int64(len(line))
	return nil
}

// isSeen reports whether the game with this id is already accounted for.
func (in *ingest) isSeen(id string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	_, ok := in.seen[id]
	return ok
}

// count adds one game's fate to its worker's counts (with in.mu held).
func (in *ingest) countLocked(worker string) *workerCount {
	c := in.workers[worker]
	if c == nil {
		c = &workerCount{}
		in.workers[worker] = c
	}
	return c
}

// step fetches up to ingestCatchUp x batch games (waiting up to wait),
// writes the new ones into one replay chunk (ledger line first), and
// acknowledges them; repeats, and games of a network too far behind the
// best, are acknowledged and dropped. It returns how many deliveries it
// handled. fetchErr reports that the bus could not be read (the server
// away: worth waiting for), as against a replay folder that could not be
// written.
func (in *ingest) step(ctx context.Context, feed gameFeed, wait time.Duration) (n int, fetchErr bool, err error) {
	items, err := feed.fetch(ctx, in.batch*ingestCatchUp, wait)
	if err != nil {
		return 0, true, err
	}
	if len(items) == 0 {
		return 0, false, nil
	}
	var (
		fresh, stale, bad []ledgerGame
		freshItems        []feedItem
		drop              []feedItem // acknowledged without writing: repeats
		examples          []replay.Example
		perWorker         = map[string]int{} // positions of the fresh games
		inBatch           = map[string]bool{}
	)
	best := in.best()
	for _, it := range items {
		g := it.game
		lg := ledgerGame{id: g.ID, worker: g.Worker}
		if inBatch[g.ID] || in.isSeen(g.ID) {
			drop = append(drop, it)
			in.mu.Lock()
			in.countLocked(g.Worker).Duplicates++
			in.totals.Duplicates++
			in.mu.Unlock()
			continue
		}
		inBatch[g.ID] = true
		if best-g.Generation > in.maxStale {
			stale = append(stale, lg)
			drop = append(drop, it)
			continue
		}
		ex, err := decodeGame(in.g, g.Data)
		if err != nil {
			in.log.Error("ingest: dropping a game whose data does not read", "id", g.ID, "worker", g.Worker, "err", err)
			bad = append(bad, lg)
			drop = append(drop, it)
			continue
		}
		fresh = append(fresh, lg)
		freshItems = append(freshItems, it)
		examples = append(examples, ex...)
		perWorker[g.Worker] += len(ex)
	}
	for _, d := range []struct {
		kind string
		gs   []ledgerGame
	}{{"stale", stale}, {"bad", bad}} {
		if len(d.gs) == 0 {
			continue
		}
		if err := in.appendLedger(d.kind, "", d.gs); err != nil {
			return len(items), false, err
		}
		in.mu.Lock()
		for _, g := range d.gs {
			in.seen[g.id] = struct{}{}
			if d.kind == "stale" {
				in.countLocked(g.worker).Stale++
				in.totals.Stale++
			} else {
				in.totals.Bad++
			}
		}
		in.mu.Unlock()
	}
	if len(stale) > 0 {
		in.log.Warn("ingest: dropped games of a network too far behind the best", "games", len(stale),
			"best_generation", best, "bus.max_stale_generations", in.maxStale)
	}
	if len(fresh) > 0 {
		chunk, err := in.buf.WriteWith(examples, func(name string) error {
			return in.appendLedger("chunk", name, fresh)
		})
		if err != nil {
			return len(items), false, err
		}
		now := time.Now()
		in.mu.Lock()
		in.totals.Chunks++
		for i, g := range fresh {
			in.seen[g.id] = struct{}{}
			c := in.countLocked(g.worker)
			c.Games++
			c.Generation = freshItems[i].game.Generation
			c.Last = now
			in.totals.Games++
		}
		for w, p := range perWorker {
			in.countLocked(w).Positions += p
			in.totals.Positions += p
		}
		in.mu.Unlock()
		in.log.Debug("ingest: chunk written", "file", filepath.Base(chunk), "games", len(fresh), "examples", len(examples))
	}
	// Acknowledge even when ctx has just ended: the games are stored. The
	// acks go out together: one at a time, each round trip waits for the
	// scheduler on a machine whose cores self-play and training keep busy,
	// and the ingest falls minutes behind self-play (docs/benchmarks.md,
	// "The bus").
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, it := range append(freshItems, drop...) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := it.ack(actx); err != nil {
				// Written and in the ledger: when it comes again it is dropped.
				in.log.Warn("ingest: acknowledging a game failed; it will come again and be dropped", "id", it.game.ID, "err", err)
			}
		}()
	}
	wg.Wait()
	return len(items), false, nil
}

// takeCounts returns the per-worker counts since the last call and starts
// new ones.
func (in *ingest) takeCounts() map[string]workerCount {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make(map[string]workerCount, len(in.workers))
	for w, c := range in.workers {
		out[w] = *c
	}
	in.workers = map[string]*workerCount{}
	return out
}

// total returns the counts since the process started.
func (in *ingest) total() ingestTotals {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.totals
}

// ledgerIDs reads the ledger of the run folder runDir and returns, for
// every game in its replay folder (or removed from it with its chunk once
// it left the window), how many times its id appears in lines
// that count (1 unless something is wrong) and the worker that played it;
// dropped lists the games acknowledged but dropped (stale or bad). For
// tests and tools.
func ledgerIDs(runDir string) (inReplay map[string]int, workerOf map[string]string, dropped map[string]bool, err error) {
	data, err := os.ReadFile(filepath.Join(runDir, ingestLedger))
	if err != nil {
		return nil, nil, nil, err
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	lines, err := parseLedger(data)
	if err != nil {
		return nil, nil, nil, err
	}
	entries, err := os.ReadDir(filepath.Join(runDir, replayDir))
	if err != nil {
		return nil, nil, nil, err
	}
	files := map[string]bool{}
	for _, e := range entries {
		files[e.Name()] = true
	}
	inReplay, workerOf, dropped = map[string]int{}, map[string]string{}, map[string]bool{}
	for _, l := range lines {
		switch {
		case l.kind == "stale" || l.kind == "bad":
			for _, g := range l.games {
				dropped[g.id] = true
			}
		case l.kind == "gone" || files[l.chunk]:
			for _, g := range l.games {
				inReplay[g.id]++
				workerOf[g.id] = g.worker
			}
		}
	}
	return inReplay, workerOf, dropped, nil
}

// workerNames lists the keys of m sorted.
func workerNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// chunkTime is the time in a chunk file's name (replay.Buffer.WriteWith
// names them chunk-<unix nanoseconds>-...), and false for another name.
func chunkTime(name string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(name, "chunk-")
	if !ok || len(rest) < 20 {
		return time.Time{}, false
	}
	ns, err := strconv.ParseInt(rest[:20], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}

// compact rewrites the ledger, atomically, to what dropping repeats needs,
// and returns how many lines it kept and dropped. removing names chunk
// files the caller deletes next: their lines become gone lines. Games
// stored before cutoff (the stream's oldest game less ledgerMargin) cannot
// come again and are forgotten; the zero cutoff forgets nothing. Lines of
// chunks still in the replay folder stay as they are. A stale or bad line
// has no time of its own: it is dated by the next line that has one, and
// kept when none follows. Damaged lines are dropped (they counted for
// nothing already).
func (in *ingest) compact(removing map[string]bool, cutoff time.Time) (kept, dropped int, err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ledger == nil {
		return 0, 0, errors.New("ingest ledger: closed")
	}
	data := make([]byte, in.size)
	if _, err := in.ledger.ReadAt(data, 0); err != nil {
		return 0, 0, fmt.Errorf("ingest ledger %s: %w", in.path, err)
	}
	entries, err := os.ReadDir(in.dir)
	if err != nil {
		return 0, 0, fmt.Errorf("ingest: %w", err)
	}
	files := map[string]bool{}
	for _, e := range entries {
		files[strings.TrimSuffix(e.Name(), replay.CorruptSuffix)] = true
	}
	raw := bytes.SplitAfter(data, []byte("\n"))
	lines := make([]*ledgerLine, len(raw))
	for i, r := range raw {
		if ls, err := parseLedger(r); err == nil && len(ls) == 1 {
			lines[i] = &ls[0]
		}
	}
	recent := func(t time.Time) bool { return cutoff.IsZero() || !t.Before(cutoff) }
	var out bytes.Buffer
	seen := map[string]struct{}{}
	var next time.Time // the time of the next dated line; zero: none
	keep := make([][]byte, len(raw))
	for i := len(raw) - 1; i >= 0; i-- {
		l := lines[i]
		if l == nil {
			continue
		}
		t, dated := chunkTime(l.chunk)
		if !dated || (l.kind != "chunk" && l.kind != "gone") {
			t, dated = next, !next.IsZero()
		} else {
			next = t
		}
		young := !dated || recent(t)
		switch {
		case l.kind == "chunk" && removing[l.chunk]:
			if young {
				keep[i] = formatLedgerLine("gone", l.chunk, l.games)
			}
		case l.kind == "chunk" && files[l.chunk]:
			keep[i] = raw[i]
		case young:
			keep[i] = raw[i]
		}
	}
	for i, k := range keep {
		if k == nil {
			if len(raw[i]) > 0 {
				dropped++
			}
			continue
		}
		kept++
		out.Write(k)
		if l := lines[i]; l.kind != "chunk" || files[l.chunk] || removing[l.chunk] {
			for _, g := range l.games {
				seen[g.id] = struct{}{}
			}
		}
	}
	if bytes.Equal(out.Bytes(), data) {
		in.sizeAt = in.size
		return kept, 0, nil
	}
	if err := atomicfile.Write(in.path, out.Bytes()); err != nil {
		return 0, 0, fmt.Errorf("ingest ledger: compacting: %w", err)
	}
	f, err := os.OpenFile(in.path, os.O_RDWR, 0o644)
	if err != nil {
		// The compacted ledger is in place but cannot be appended to: stop
		// taking games rather than write to the replaced file.
		in.ledger.Close()
		in.ledger = nil
		return 0, 0, fmt.Errorf("ingest ledger: reopening after compacting: %w", err)
	}
	in.ledger.Close()
	in.ledger, in.size, in.sizeAt, in.seen = f, int64(out.Len()), int64(out.Len()), seen
	return kept, dropped, nil
}

// worthCompacting reports whether the ledger has doubled since it was last
// compacted (or opened).
func (in *ingest) worthCompacting() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.size > 2*in.sizeAt+4096
}
