package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"tabula/games"
	"tabula/internal/atomicfile"
	"tabula/internal/filelock"
	"tabula/nn"
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
//	workers/           NAME.json: the latest heartbeat of each cmd/selfplay -run worker
//	bus/               the embedded NATS server's storage, and its address
//	metrics.jsonl      one JSON object per iteration
//	checkpoints/iteration.json   the stages after the newest checkpoint that
//	                   have ended, until its iteration's metrics line is written
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

// fallbackCheckpoint returns, in the run folder root, the newest checkpoint
// named in promoted (as metrics.jsonl records them) other than broken that
// loads and plays game g; failing that, the first checkpoint if it does;
// and "" when none does. It is where the trainer and cmd/selfplay turn when
// the best pointer, or the file it names, is damaged.
func fallbackCheckpoint(root string, promoted map[string]bool, g games.Game, broken string) string {
	names := make([]string, 0, len(promoted)+1)
	for name := range promoted {
		names = append(names, name)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names))) // ckpt-NNNNNN: newest first
	names = append(names, fmt.Sprintf("ckpt-%06d.tbn", 0))
	for _, name := range names {
		path := filepath.Join(root, checkpointDir, name)
		if path == broken || !ckptName.MatchString(name) {
			continue
		}
		c, err := nn.LoadCheckpoint(path)
		if err == nil && c.CheckGame(g) == nil {
			return path
		}
	}
	return ""
}
