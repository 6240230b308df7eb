package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func validCheckpointName(name string) error {
	if name == "" {
		return errors.New("checkpoint name is empty")
	}
	if len(name) > 255 {
		return fmt.Errorf("checkpoint name %.40q... is %d bytes, want at most 255", name, len(name))
	}
	for i := 0; i < len(name); i++ {
		if name[i] < ' ' || name[i] == 0x7f {
			return fmt.Errorf("checkpoint name %q has control byte %#x", name, name[i])
		}
	}
	return nil
}

// CheckpointTimeout bounds PutCheckpoint and GetCheckpoint when their
// context has no deadline (nats.go's own default, 5 s for the whole
// object, was seen to cut a 10 MB get short on a loaded machine).
const CheckpointTimeout = 5 * time.Minute

func checkpointContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, CheckpointTimeout)
}

// PutCheckpoint stores data under name in the run's object store, replacing
// an object of that name. The store keeps a SHA-256 digest that
// GetCheckpoint verifies.
func (b *Bus) PutCheckpoint(ctx context.Context, name string, data []byte) error {
	if err := validCheckpointName(name); err != nil {
		return fmt.Errorf("bus: put checkpoint: %w", err)
	}
	if len(data) == 0 {
		return fmt.Errorf("bus: put checkpoint %s: no data", name)
	}
	ctx, cancel := checkpointContext(ctx)
	defer cancel()
	if _, err := b.objects.PutBytes(ctx, name, data); err != nil {
		return fmt.Errorf("bus: put checkpoint %s: %w", name, err)
	}
	return nil
}

// ErrNotFound is wrapped by the errors of GetCheckpoint and GetBest when
// there is nothing by that name yet.
var ErrNotFound = errors.New("not found")

// GetCheckpoint returns the checkpoint stored under name, verified against
// its digest.
func (b *Bus) GetCheckpoint(ctx context.Context, name string) ([]byte, error) {
	if err := validCheckpointName(name); err != nil {
		return nil, fmt.Errorf("bus: get checkpoint: %w", err)
	}
	ctx, cancel := checkpointContext(ctx)
	defer cancel()
	// nats.go's object reader sets its read deadline from ctx's deadline and
	// notices a cancelled ctx only when a chunk arrives or that deadline
	// passes. A get whose chunk subscription died with the connection (the
	// server restarted mid-get) would so stall for the whole
	// CheckpointTimeout, and hold a stopping worker as long. So each attempt
	// runs on its own: a reconnect starts the get again, and a cancelled ctx
	// returns at once (the attempt's context is cancelled with it).
	type got struct {
		data []byte
		err  error
	}
	var data []byte
	var err error
	for attempt := true; attempt; {
		reconnected := b.reconnectSignal()
		actx, acancel := context.WithCancel(ctx)
		done := make(chan got, 1)
		go func() {
			data, err := b.objects.GetBytes(actx, name)
			done <- got{data, err}
		}()
		select {
		case r := <-done:
			data, err, attempt = r.data, r.err, false
		case <-ctx.Done():
			err, attempt = ctx.Err(), false
		case <-reconnected:
			b.log.Info("bus: reconnected during a checkpoint get; getting it again", "name", name)
		}
		acancel()
	}
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, fmt.Errorf("bus: checkpoint %s of run %s: %w", name, b.opt.Run, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("bus: get checkpoint %s: %w", name, err)
	}
	return data, nil
}

// DeleteCheckpoint removes the checkpoint stored under name.
func (b *Bus) DeleteCheckpoint(ctx context.Context, name string) error {
	if err := validCheckpointName(name); err != nil {
		return fmt.Errorf("bus: delete checkpoint: %w", err)
	}
	err := b.objects.Delete(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return fmt.Errorf("bus: delete checkpoint %s of run %s: %w", name, b.opt.Run, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("bus: delete checkpoint %s: %w", name, err)
	}
	return nil
}

// Checkpoints lists the names of the stored checkpoints, sorted.
func (b *Bus) Checkpoints(ctx context.Context) ([]string, error) {
	infos, err := b.objects.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bus: listing checkpoints: %w", err)
	}
	names := make([]string, 0, len(infos))
	for _, info := range infos {
		if !info.Deleted {
			names = append(names, info.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Best points at the run's best checkpoint: its name in the object store
// and its generation.
type Best struct {
	Name       string `json:"name"`
	Generation int    `json:"generation"`
}

const bestKey = "best"

func (best Best) validate() error {
	if err := validCheckpointName(best.Name); err != nil {
		return err
	}
	if best.Generation < 0 {
		return fmt.Errorf("generation %d is negative", best.Generation)
	}
	return nil
}

// SetBest points the run at a new best checkpoint (normally stored with
// PutCheckpoint first).
func (b *Bus) SetBest(ctx context.Context, best Best) error {
	if err := best.validate(); err != nil {
		return fmt.Errorf("bus: set best: %w", err)
	}
	data, err := json.Marshal(best)
	if err != nil {
		return fmt.Errorf("bus: set best: %w", err)
	}
	if _, err := b.best.Put(ctx, bestKey, data); err != nil {
		return fmt.Errorf("bus: set best %s: %w", best.Name, err)
	}
	return nil
}

// GetBest returns the current best checkpoint; the error wraps ErrNotFound
// when none was set yet.
func (b *Bus) GetBest(ctx context.Context) (Best, error) {
	e, err := b.best.Get(ctx, bestKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Best{}, fmt.Errorf("bus: best checkpoint of run %s: %w (the trainer sets it)", b.opt.Run, ErrNotFound)
	}
	if err != nil {
		return Best{}, fmt.Errorf("bus: best checkpoint of run %s: %w", b.opt.Run, err)
	}
	return decodeBest(e.Value())
}

func decodeBest(data []byte) (Best, error) {
	var best Best
	if err := json.Unmarshal(data, &best); err != nil {
		return Best{}, fmt.Errorf("bus: best checkpoint record %q: %w", data, err)
	}
	if err := best.validate(); err != nil {
		return Best{}, fmt.Errorf("bus: best checkpoint record %q: %w", data, err)
	}
	return best, nil
}

// WatchBest returns a channel that receives the current best checkpoint
// (when one is set) and then every change, until ctx ends or the Bus is
// closed, when it closes.
// A receiver that falls behind gets the latest value, never a stale one
// after a newer. After a reconnect it reads the best again, so a change
// made while the connection was down is not missed. Equal consecutive
// values are sent once.
func (b *Bus) WatchBest(ctx context.Context) (<-chan Best, error) {
	w, err := b.best.Watch(ctx, bestKey)
	if err != nil {
		return nil, fmt.Errorf("bus: watching the best checkpoint of run %s: %w", b.opt.Run, err)
	}
	out := make(chan Best, 1)
	go b.watchBest(ctx, w, out)
	return out, nil
}

func (b *Bus) watchBest(ctx context.Context, w jetstream.KeyWatcher, out chan Best) {
	defer close(out)
	var last Best
	sent := false
	emit := func(best Best) {
		if sent && best == last {
			return
		}
		last, sent = best, true
		select {
		case out <- best:
		default:
			select { // replace the value the receiver has not taken yet
			case <-out:
			default:
			}
			out <- best
		}
	}
	for {
		if b.nc.IsClosed() {
			if w != nil {
				_ = w.Stop()
			}
			return
		}
		reconnected := b.reconnectSignal()
		var updates <-chan jetstream.KeyValueEntry
		if w != nil {
			updates = w.Updates()
		}
		select {
		case <-ctx.Done():
			if w != nil {
				_ = w.Stop()
			}
			return
		case e, ok := <-updates:
			if !ok {
				w = nil // the watcher ended: make a new one below
				break
			}
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue // nil marks the end of the initial values
			}
			if best, err := decodeBest(e.Value()); err != nil {
				b.log.Error("bus: ignoring a malformed best record", "err", err)
			} else {
				emit(best)
			}
			continue
		case <-reconnected:
			if w != nil {
				_ = w.Stop()
				w = nil
			}
		case <-time.After(time.Second):
			if w != nil {
				continue
			}
		}
		// Re-read and watch again (after a reconnect, or to retry).
		if best, err := b.GetBest(ctx); err == nil {
			emit(best)
		}
		// A new watcher starts with the current value (emit drops it when
		// unchanged). One made with UpdatesOnly after a server restart was
		// seen to deliver nothing (nats.go v1.45), so it is not used.
		if nw, err := b.best.Watch(ctx, bestKey); err == nil {
			w = nw
		} else if ctx.Err() == nil {
			b.log.Warn("bus: re-watching the best checkpoint failed, retrying", "err", err)
		}
	}
}

// Heartbeat is a worker's liveness report.
type Heartbeat struct {
	// Worker name; empty means the publishing client's name.
	Worker string `json:"worker"`
	// Time of the report; zero means now.
	Time time.Time `json:"time"`
	// Games and Positions played since the worker started.
	Games     int64 `json:"games"`
	Positions int64 `json:"positions"`
	// PositionsPerSec is the worker's recent self-play rate.
	PositionsPerSec float64 `json:"positions_per_sec"`
	// Generation of the checkpoint the worker plays with.
	Generation int `json:"generation"`
	// Gone is set by a worker's last report, as it exits.
	Gone bool `json:"gone,omitempty"`
}

// Heartbeat records h as its worker's latest report. Workers lists it
// until Options.HeartbeatTTL passes without a newer one.
func (b *Bus) Heartbeat(ctx context.Context, h Heartbeat) error {
	if h.Worker == "" {
		h.Worker = b.opt.Name
	}
	if !validName(h.Worker, 128) {
		return fmt.Errorf("bus: heartbeat: worker name %q must be 1-128 letters, digits, '-' or '_'", h.Worker)
	}
	if h.Games < 0 || h.Positions < 0 || !(h.PositionsPerSec >= 0) || h.Generation < 0 {
		return fmt.Errorf("bus: heartbeat of %s: games %d, positions %d, positions/s %v, generation %d: want all >= 0",
			h.Worker, h.Games, h.Positions, h.PositionsPerSec, h.Generation)
	}
	if h.Time.IsZero() {
		h.Time = time.Now()
	}
	data, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("bus: heartbeat of %s: %w", h.Worker, err)
	}
	if _, err := b.workers.Put(ctx, h.Worker, data); err != nil {
		return fmt.Errorf("bus: heartbeat of %s: %w", h.Worker, err)
	}
	return nil
}

// Workers returns the latest heartbeat of every worker heard from within
// Options.HeartbeatTTL, sorted by worker name.
func (b *Bus) Workers(ctx context.Context) ([]Heartbeat, error) {
	keys, err := b.workers.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bus: listing workers: %w", err)
	}
	out := make([]Heartbeat, 0, len(keys))
	for _, k := range keys {
		e, err := b.workers.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // expired meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("bus: heartbeat of %s: %w", k, err)
		}
		var h Heartbeat
		if err := json.Unmarshal(e.Value(), &h); err != nil {
			b.log.Error("bus: ignoring a malformed heartbeat", "worker", k, "err", err)
			continue
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Worker < out[j].Worker })
	return out, nil
}
