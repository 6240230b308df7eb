package pipeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"tabula/internal/atomicfile"
	"tabula/internal/filelock"
)

// The run folder:
//
//	config.yaml        the resolved config (written at start)
//	train.lock         held by the training process (a file lock) while it runs
//	checkpoints/       ckpt-NNNNNN.tbn, one per iteration (older ones that
//	                   gating turned down are deleted, see keep_checkpoints),
//	                   best (a pointer) and best-weights.tbn (the best
//	                   network without optimiser state)
//	replay/            replay chunk files from every self-play process
//	gating/            iter-NNNNNN.jsonl: each iteration's gating games, for the watch page
//	ingest.log         the games the trainer took from the bus, by replay chunk
//	bus/               the embedded NATS server's storage, and its address
//	metrics.jsonl      one JSON object per iteration
const (
	configFile    = "config.yaml"
	lockFile      = "train.lock"
	checkpointDir = "checkpoints"
	replayDir     = "replay"
	metricsFile   = "metrics.jsonl"
	bestFile      = "best"
	// bestWeightsFile is the best network without optimiser state.
	bestWeightsFile = "best-weights.tbn"
)

// runDir wraps the paths of a run folder.
type runDir struct {
	root string
	lock *os.File
}

// openRunDir takes the folder's training lock, and only then creates the
// layout, removes temporary files that dead processes left in checkpoints/
// and gating/ and checks that a config already there describes a compatible run. A
// process refused the lock touches nothing in the folder: another trainer
// owns it, and its writes in flight with it.
func openRunDir(cfg *Config) (*runDir, error) {
	d := &runDir{root: cfg.RunDir}
	if err := os.MkdirAll(d.root, 0o755); err != nil {
		return nil, fmt.Errorf("run folder: %w", err)
	}
	f, err := os.OpenFile(d.path(lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("run folder: %w", err)
	}
	if err := filelock.TryLock(f); err != nil {
		f.Close()
		if errors.Is(err, filelock.ErrLocked) {
			return nil, fmt.Errorf("run folder %s is in use by another training process (%s is locked)", d.root, d.path(lockFile))
		}
		return nil, fmt.Errorf("run folder: %w", err)
	}
	d.lock = f
	for _, sub := range []string{checkpointDir, replayDir, gatingDir} {
		if err := os.MkdirAll(d.path(sub), 0o755); err != nil {
			d.close()
			return nil, fmt.Errorf("run folder: %w", err)
		}
	}
	for _, sub := range []string{checkpointDir, gatingDir} { // written by the lock holder only
		if _, err := atomicfile.RemoveStaleTemps(d.path(sub)); err != nil {
			d.close()
			return nil, fmt.Errorf("run folder: %w", err)
		}
	}
	if err := d.checkCompatible(cfg); err != nil {
		d.close()
		return nil, err
	}
	data, err := cfg.Marshal()
	if err != nil {
		d.close()
		return nil, err
	}
	if err := atomicfile.Write(d.path(configFile), data); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

func (d *runDir) path(elem ...string) string {
	return filepath.Join(append([]string{d.root}, elem...)...)
}

func (d *runDir) close() {
	if d.lock != nil {
		d.lock.Close() // releases the flock
		d.lock = nil
	}
}

// checkCompatible refuses to resume a run of another game or network size.
func (d *runDir) checkCompatible(cfg *Config) error {
	old, err := ReadRunConfig(d.root)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("run folder %s: %w", d.root, err)
	}
	if old.Game != cfg.Game {
		return fmt.Errorf("run folder %s holds a run of game %q, this config plays %q: choose another run_dir", d.root, old.Game, cfg.Game)
	}
	if old.Network != cfg.Network {
		mine, theirs := old.Network.Diff(cfg.Network)
		return fmt.Errorf("run folder %s holds a network with %s; this config's network asks for %s: choose another run_dir, or keep the run's network settings to resume it", d.root, mine, theirs)
	}
	return nil
}

var ckptName = regexp.MustCompile(`^ckpt-(\d{6,})\.tbn$`)

// checkpointPath names the checkpoint of an iteration.
func (d *runDir) checkpointPath(iteration int) string {
	return d.path(checkpointDir, fmt.Sprintf("ckpt-%06d.tbn", iteration))
}

// checkpoints lists the checkpoint files, oldest first.
func (d *runDir) checkpoints() ([]string, error) {
	entries, err := os.ReadDir(d.path(checkpointDir))
	if err != nil {
		return nil, err
	}
	type ck struct {
		n    int
		name string
	}
	var cks []ck
	for _, e := range entries {
		if m := ckptName.FindStringSubmatch(e.Name()); m != nil {
			n, _ := strconv.Atoi(m[1])
			cks = append(cks, ck{n, e.Name()})
		}
	}
	sort.Slice(cks, func(i, j int) bool { return cks[i].n < cks[j].n })
	out := make([]string, len(cks))
	for i, c := range cks {
		out[i] = d.path(checkpointDir, c.name)
	}
	return out, nil
}

// best returns the path of the best checkpoint, or "" if none was chosen.
func (d *runDir) best() (string, error) {
	return readBest(d.root)
}

// readBest reads the best pointer of the run folder root.
func readBest(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, checkpointDir, bestFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	name := strings.TrimSpace(string(data))
	if !ckptName.MatchString(name) {
		return "", fmt.Errorf("%s: %q does not name a checkpoint", filepath.Join(root, checkpointDir, bestFile), name)
	}
	return filepath.Join(root, checkpointDir, name), nil
}

// setBest points best at a checkpoint, atomically.
func (d *runDir) setBest(path string) error {
	return atomicfile.Write(d.path(checkpointDir, bestFile), []byte(filepath.Base(path)+"\n"))
}

// metrics appends JSON lines to metrics.jsonl, each synced to disk. A line
// cut short by a crash is dropped when the file is opened again.
type metrics struct {
	mu sync.Mutex
	f  *os.File
}

func openMetrics(path string) (*metrics, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("metrics: %w", err)
	}
	keep := int64(bytes.LastIndexByte(data, '\n') + 1)
	if keep != int64(len(data)) {
		if err := f.Truncate(keep); err != nil {
			f.Close()
			return nil, fmt.Errorf("metrics: dropping a torn last line: %w", err)
		}
	}
	if _, err := f.Seek(keep, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return &metrics{f: f}, nil
}

// write appends one record. Non-finite numbers (an Elo difference after a
// 0% score, say), which JSON cannot hold, are written as null.
func (m *metrics) write(rec map[string]any) error {
	line, err := json.Marshal(finiteJSON(rec))
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return m.f.Sync()
}

func (m *metrics) close() error { return m.f.Close() }

// finiteJSON returns v with every non-finite float replaced by nil, looking
// inside maps and slices.
func finiteJSON(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
	case float32:
		return finiteJSON(float64(x))
	case []float64:
		out := make([]any, len(x))
		for i, f := range x {
			out[i] = finiteJSON(f)
		}
		return out
	case map[string]float64:
		out := make(map[string]any, len(x))
		for k, f := range x {
			out[k] = finiteJSON(f)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = finiteJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = finiteJSON(e)
		}
		return out
	}
	return v
}

// readPromotions reads metrics.jsonl for the checkpoints that gating
// promoted (every name the "best" field held) and those it turned down. A
// missing file means none; an unreadable line is skipped with a warning.
func readPromotions(path string, log *slog.Logger) (promoted, rejected map[string]bool) {
	promoted, rejected = map[string]bool{}, map[string]bool{}
	f, err := os.Open(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			log.Warn("metrics unreadable; promoted checkpoints unknown", "err", err)
		}
		return promoted, rejected
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec struct {
			Iteration   int    `json:"iteration"`
			Best        string `json:"best"`
			FinalLadder bool   `json:"final_ladder"` // no gating on this line
			Gate        struct {
				Candidate string `json:"candidate"`
				Promoted  bool   `json:"promoted"`
			} `json:"gate"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			log.Warn("metrics line unreadable", "file", path, "err", err)
			continue
		}
		if rec.Best != "" {
			promoted[rec.Best] = true
		}
		if rec.FinalLadder {
			continue
		}
		cand := rec.Gate.Candidate
		if cand == "" && rec.Iteration > 0 {
			cand = fmt.Sprintf("ckpt-%06d.tbn", rec.Iteration)
		}
		if cand != "" && !rec.Gate.Promoted {
			rejected[cand] = true
		}
	}
	for name := range promoted {
		delete(rejected, name)
	}
	return promoted, rejected
}
