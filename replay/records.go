package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"tabula/games"
	"tabula/internal/atomicfile"
)

// GameRecord is one finished game as a move list with its metadata: what
// self-play, gating and ladder games leave in a run's records folder when
// selfplay.records is on.
type GameRecord struct {
	// Kind is "selfplay", "gating" or "ladder".
	Kind string `json:"kind"`
	// Game is the game's spec (games.New(Game) rebuilds it).
	Game string `json:"game"`
	// Players names the first mover and the other player: for self-play
	// the network generation playing both sides ("gen-3"; a folder
	// worker's games name the checkpoint, "ckpt-000002.tbn"), for gating
	// "candidate" and "best", for the ladder "best" and the fixed player's
	// spec.
	Players [2]string `json:"players"`
	// Generation is the best network's generation when the game was
	// played (0 in a folder worker's games: see Players).
	Generation int `json:"generation"`
	// Seed is the seed of the round or match that played the game and
	// Worker the self-play worker (its random stream) within it.
	Seed   uint64 `json:"seed"`
	Worker int    `json:"worker,omitempty"`
	// Actions are the moves from the initial state, chance outcomes (dice)
	// included; Moves is the same in the game's notation.
	Actions []int  `json:"actions"`
	Moves   string `json:"moves"`
	// Values holds, per action, the search's value of the position for
	// the player to move (self-play: the root value; matches: the mover's
	// value of its choice as it reported it), 0 at chance outcomes and
	// where no value was reported.
	Values []float32 `json:"values"`
	// Visits holds, per action, the root visits of the search that chose
	// it (self-play: reused ones included, so a fast search under a playout
	// cap shows fewer than a full one), 0 at chance outcomes and unsearched
	// moves. Optional: records written before it, and match games, have
	// none (nil); when present it has one entry per action.
	Visits []int `json:"visits,omitempty"`
	// Returns is the result for the first and second mover.
	Returns [2]float64 `json:"returns"`
	// Resigned says the game ended by resignation (the player with return
	// -1 resigned), Forfeit that a player failed (why).
	Resigned bool   `json:"resigned,omitempty"`
	Forfeit  string `json:"forfeit,omitempty"`
}

// Replay plays the record's actions in g from the initial state, checking
// that each is legal and that there is a value for each, and returns the
// state reached. Visits, when present, must have one count (>= 0) per
// action.
func (r *GameRecord) Replay(g games.Game) (games.State, error) {
	if len(r.Values) != len(r.Actions) {
		return nil, fmt.Errorf("record: %d values for %d actions", len(r.Values), len(r.Actions))
	}
	if r.Visits != nil && len(r.Visits) != len(r.Actions) {
		return nil, fmt.Errorf("record: %d visit counts for %d actions", len(r.Visits), len(r.Actions))
	}
	for i, n := range r.Visits {
		if n < 0 {
			return nil, fmt.Errorf("record: action %d: %d visits, want >= 0", i, n)
		}
	}
	s := g.NewInitialState()
	for i, a := range r.Actions {
		if s.IsTerminal() || !s.IsLegal(a) {
			return nil, fmt.Errorf("record: action %d (%d) is not legal", i, a)
		}
		s.ApplyAction(a)
	}
	return s, nil
}

// Records file format: one GameRecord as JSON a line, then a last line
// "crc32c XXXXXXXX", the CRC-32C (Castagnoli) of every byte before it in
// hex. Files are written whole and atomically.
const recordsCRC = "crc32c "

// WriteRecords writes recs to path atomically with the checksum line.
func WriteRecords(path string, recs []GameRecord) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return fmt.Errorf("records %s: %w", path, err)
		}
	}
	fmt.Fprintf(&b, "%s%08x\n", recordsCRC, crc32.Checksum(b.Bytes(), castagnoli))
	if err := atomicfile.Write(path, b.Bytes()); err != nil {
		return fmt.Errorf("records: %w", err)
	}
	return nil
}

// ReadRecords reads a file WriteRecords wrote, checking its checksum.
func ReadRecords(path string) ([]GameRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	body := bytes.TrimSuffix(data, []byte("\n"))
	i := bytes.LastIndexByte(body, '\n') + 1
	last := string(body[i:])
	if !strings.HasPrefix(last, recordsCRC) {
		return nil, fmt.Errorf("records %s: no checksum line at the end (cut short?)", path)
	}
	want, err := strconv.ParseUint(strings.TrimPrefix(last, recordsCRC), 16, 32)
	if err != nil {
		return nil, fmt.Errorf("records %s: bad checksum line %q", path, last)
	}
	if got := crc32.Checksum(body[:i], castagnoli); uint32(want) != got {
		return nil, fmt.Errorf("records %s: checksum %08x, the file's bytes give %08x (corrupt)", path, want, got)
	}
	var recs []GameRecord
	sc := bufio.NewScanner(bytes.NewReader(body[:i]))
	sc.Buffer(nil, 1<<26)
	for n := 1; sc.Scan(); n++ {
		var r GameRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("records %s line %d: %w", path, n, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("records %s: %w", path, err)
	}
	return recs, nil
}

// RecordFiles returns the records files (*.rec) of folder dir, sorted by
// name; a missing folder has none.
func RecordFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".rec") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}
