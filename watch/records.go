package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"tabula/games"
	"tabula/replay"
)

// A run with selfplay.records on keeps every self-play game as a move list
// in its records folder (pipeline: records/selfplay-TAG-gGEN-SEED-NNNN.rec,
// replay.GameRecord), with the search's root value before each move. The
// page shows those games as played; the rebuilding from replay chunks
// (ChunkGames) is for runs without them.

// recordsPrefix and recordsSuffix name the self-play records files.
const (
	recordsPrefix = "selfplay-"
	recordsSuffix = ".rec"
)

// maxRecordFileBytes is the largest records file read; a file holds
// selfplay.chunk_games games, far less than this in any sane run.
const maxRecordFileBytes = 64 << 20

// RecordGames returns the newest self-play games of the records folder dir,
// newest first, at most n. Files are read newest first (by modification
// time, then name) until n games are held, so a long run's history is not
// read whole. A records file that is not a regular file, is too large, is
// cut short or fails its checksum, and a game whose moves do not replay in
// its game, are skipped with a warning on log: skipped counts them among
// the files read. A missing folder has no games. cache, if not nil, keeps
// the games of the files read until the next call (a records file is
// written once, atomically).
func RecordGames(dir string, n int, cache *RecordCache, log *slog.Logger) (gs []Game, skipped int, err error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("records folder: %w", err)
	}
	type file struct {
		name string
		info fs.FileInfo
	}
	var files []file
	for _, e := range entries {
		nm := e.Name()
		if !strings.HasPrefix(nm, recordsPrefix) || !strings.HasSuffix(nm, recordsSuffix) || e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed since the listing (retention)
		}
		files = append(files, file{nm, info})
	}
	sort.Slice(files, func(i, j int) bool {
		a, b := files[i].info.ModTime(), files[j].info.ModTime()
		if !a.Equal(b) {
			return a.After(b)
		}
		return files[i].name > files[j].name
	})
	rr := recordReplayer{byName: map[string]*gameFrames{}}
	visited := map[string]bool{}
	for _, f := range files {
		if len(gs) >= n {
			break
		}
		path := filepath.Join(dir, f.name)
		visited[path] = true
		cr, err := cache.records(path, f.info, rr, log)
		if err != nil {
			skipped++
			continue
		}
		skipped += cr.skipped
		// A file holds its games in the order they finished.
		for i := len(cr.recs) - 1; i >= 0 && len(gs) < n; i-- {
			gm, err := rr.game(&cr.recs[i], f.name, cr.index[i])
			if err != nil { // checked when the file was read
				return nil, 0, fmt.Errorf("records %s game %d: %w", path, cr.index[i], err)
			}
			gs = append(gs, gm)
		}
	}
	cache.keepOnly(visited)
	return gs, skipped, nil
}

// RecordCache remembers the games read from records files, keyed by path
// and checked against the file's size and modification time: the records
// that replay legally, not their positions, and only those of the files
// the last call read. It is not safe for concurrent use; the server guards
// it.
type RecordCache struct {
	m map[string]cachedRecords
}

type cachedRecords struct {
	size    int64
	modTime time.Time
	recs    []replay.GameRecord // the games that replay legally
	index   []int               // their numbers in the file
	skipped int                 // games of the file that do not replay
	err     error
}

// records returns the legal games of the records file at path, whose lstat
// is info, logging what it skips when it reads the file.
func (c *RecordCache) records(path string, info fs.FileInfo, rr recordReplayer, log *slog.Logger) (cachedRecords, error) {
	if c != nil {
		if cr, ok := c.m[path]; ok && cr.size == info.Size() && cr.modTime.Equal(info.ModTime()) {
			return cr, cr.err
		}
	}
	cr := cachedRecords{size: info.Size(), modTime: info.ModTime()}
	switch {
	case !info.Mode().IsRegular():
		cr.err = fmt.Errorf("records %s: not a regular file", path)
	case info.Size() > maxRecordFileBytes:
		cr.err = fmt.Errorf("records %s: %d bytes, more than the %d read", path, info.Size(), maxRecordFileBytes)
	default:
		var recs []replay.GameRecord
		recs, cr.err = replay.ReadRecords(path)
		for i := range recs {
			if _, err := rr.game(&recs[i], filepath.Base(path), i); err != nil {
				log.Warn("watch: game record skipped", "file", path, "game", i, "err", err)
				cr.skipped++
				continue
			}
			cr.recs = append(cr.recs, recs[i])
			cr.index = append(cr.index, i)
		}
	}
	if cr.err != nil {
		log.Warn("watch: records file skipped", "err", cr.err)
	}
	if c != nil {
		if c.m == nil {
			c.m = map[string]cachedRecords{}
		}
		c.m[path] = cr
	}
	return cr, cr.err
}

// keepOnly forgets the files not in keep.
func (c *RecordCache) keepOnly(keep map[string]bool) {
	if c == nil {
		return
	}
	for path := range c.m {
		if !keep[path] {
			delete(c.m, path)
		}
	}
}

// gameFrames is a game and the renderer of its positions.
type gameFrames struct {
	g  games.Game
	sr *gapSearch
}

// recordReplayer turns game records into Games, keeping each game spec's
// game and renderer.
type recordReplayer struct {
	byName map[string]*gameFrames
}

// game replays record r, game index of file, through the checked path: the
// moves and values as recorded, a frame per position, the value (and, in
// records that have them, the root visits) before each move on the frame it
// was searched in.
func (rr recordReplayer) game(r *replay.GameRecord, file string, index int) (Game, error) {
	if r.Kind != "selfplay" {
		return Game{}, fmt.Errorf("kind %q, want selfplay", r.Kind)
	}
	gf, ok := rr.byName[r.Game]
	if !ok {
		g, err := games.New(r.Game)
		if err != nil {
			return Game{}, err
		}
		gf = &gameFrames{g: g, sr: newGapSearch(g)}
		rr.byName[r.Game] = gf
	}
	if len(r.Values) != len(r.Actions) {
		return Game{}, fmt.Errorf("%d values for %d moves", len(r.Values), len(r.Actions))
	}
	if r.Visits != nil && len(r.Visits) != len(r.Actions) {
		return Game{}, fmt.Errorf("%d visit counts for %d moves", len(r.Visits), len(r.Actions))
	}
	g := gf.g
	_, h, w := g.ObservationShape()
	gm := Game{Kind: "self-play", Chunk: file, Index: index, Players: r.Players, Spec: g.Name(), Height: h, Width: w,
		Moves: make([]string, 0, len(r.Actions)), Frames: make([]Frame, 0, len(r.Actions)+1),
		Result: result(0, float32(r.Returns[0])), Resigned: r.Resigned}
	s := g.NewInitialState()
	gm.Frames = append(gm.Frames, gf.sr.frame(s, ""))
	for i, a := range r.Actions {
		v := r.Values[i]
		gm.Frames[i].Value = &v
		if r.Visits != nil {
			n := r.Visits[i]
			gm.Frames[i].Visits = &n
		}
		if err := games.Play(s, a); err != nil {
			return Game{}, fmt.Errorf("move %d: %w", i+1, err)
		}
		mv := formatAction(g, a)
		gm.Moves = append(gm.Moves, mv)
		gm.Frames = append(gm.Frames, gf.sr.frame(s, mv))
	}
	return gm, nil
}
