package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"tabula/games"
	"tabula/match"
	"tabula/mcts"
	"tabula/replay"
)

// recordsDir is the run folder's folder of game records (selfplay.records):
// files KIND-TAG-gGENERATION-SEED-NNNN.rec of replay.GameRecord.
const recordsDir = "records"

// recordWriter keeps finished games as replay.GameRecord and writes them
// chunkGames at a time (and the rest at flush) into its folder. A nil
// recordWriter takes nothing.
type recordWriter struct {
	dir        string
	kind       string
	g          games.Game
	chunkGames int
	generation int
	name       string // the self-play network's name in Players
	tag        string // the process writing: "trainer" or a worker's name
	seed       uint64

	mu      sync.Mutex
	pending []replay.GameRecord
	files   int
}

// newRecordWriter returns a writer into root/records for games of kind
// played by process tag ("trainer" or a worker's name) with the best
// network of generation gen (named name in self-play records; "" for
// gen-N) in a round or match with seed, or nil when selfplay.records is
// off.
func newRecordWriter(cfg *Config, root, kind, tag string, g games.Game, gen int, name string, seed uint64) *recordWriter {
	if !cfg.SelfPlay.Records {
		return nil
	}
	return &recordWriter{dir: filepath.Join(root, recordsDir), kind: kind, tag: tag, g: g,
		chunkGames: max(1, cfg.SelfPlay.ChunkGames), generation: gen, name: name, seed: seed}
}

// selfPlay takes a self-play game of worker w.
func (rw *recordWriter) selfPlay(rec mcts.GameRecord, worker int) error {
	if rw == nil {
		return nil
	}
	name := rw.name
	if name == "" {
		name = fmt.Sprintf("gen-%d", rw.generation)
	}
	r := replay.GameRecord{Kind: rw.kind, Game: rec.Game, Players: [2]string{name, name}, Generation: rw.generation,
		Seed: rw.seed, Worker: worker, Actions: rec.Actions, Values: rec.RootValues, Visits: rec.RootVisits, Returns: rec.Returns, Resigned: rec.Resigned}
	if r.Game == "" {
		r.Game = rw.g.Name()
	}
	return rw.add(r)
}

// match takes a gating or ladder game.
func (rw *recordWriter) match(m match.GameRecord) error {
	if rw == nil {
		return nil
	}
	acts, err := rw.g.(games.Notation).ParseActions(m.Moves)
	if err != nil {
		return fmt.Errorf("game record %d: %w", m.Index, err)
	}
	vals := make([]float32, len(acts))
	for i, v := range m.Values {
		if i < len(vals) && v == v { // NaN: no value reported
			vals[i] = float32(v)
		}
	}
	r := replay.GameRecord{Kind: rw.kind, Game: rw.g.Name(), Players: m.Players, Generation: rw.generation,
		Seed: rw.seed, Actions: acts, Values: vals, Returns: m.Result}
	if m.Forfeit != nil {
		r.Forfeit = m.Forfeit.Player + ": " + m.Forfeit.Reason
	}
	return rw.add(r)
}

func (rw *recordWriter) add(r replay.GameRecord) error {
	if r.Moves == "" {
		if n, ok := rw.g.(games.Notation); ok {
			r.Moves = n.FormatActions(r.Actions)
		}
	}
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.pending = append(rw.pending, r)
	if len(rw.pending) >= rw.chunkGames {
		return rw.flushLocked()
	}
	return nil
}

// flush writes the games held back.
func (rw *recordWriter) flush() error {
	if rw == nil {
		return nil
	}
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return rw.flushLocked()
}

func (rw *recordWriter) flushLocked() error {
	if len(rw.pending) == 0 {
		return nil
	}
	if err := os.MkdirAll(rw.dir, 0o755); err != nil {
		return fmt.Errorf("game records: %w", err)
	}
	// A resumed run may meet the seeds of an earlier process again: its
	// files are kept, the next free number taken.
	var path string
	for {
		path = filepath.Join(rw.dir, fmt.Sprintf("%s-%s-g%06d-%016x-%04d.rec", rw.kind, rw.tag, rw.generation, rw.seed, rw.files))
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			break
		}
		rw.files++
	}
	if err := replay.WriteRecords(path, rw.pending); err != nil {
		return err
	}
	rw.files++
	rw.pending = nil
	return nil
}
