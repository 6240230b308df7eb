package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"tabula/bus"
	"tabula/internal/atomicfile"
)

// BusOptions say where a process finds the run's data plane (package bus).
type BusOptions struct {
	// Listen is the host:port of the NATS server that cmd/train embeds.
	// Empty means loopback only: 127.0.0.1 on the port the run's server had
	// last time (so that workers reconnect after a restart), or a free one.
	// An address beyond loopback needs Token.
	Listen string
	// Token is required from every client of the embedded server; with
	// URL, it is what this process presents.
	Token string
	// URL, when set, is an existing NATS server (JetStream enabled) used
	// instead of the embedded one.
	URL string
}

// validate checks the options before anything is started or written.
func (o BusOptions) validate() error {
	if o.URL != "" && o.Listen != "" {
		return fmt.Errorf("bus: -listen %s and -nats %s: choose one (-listen exposes the embedded server, -nats uses another)", o.Listen, o.URL)
	}
	if o.URL != "" && !strings.Contains(o.URL, "://") {
		return fmt.Errorf("bus: -nats %q: want a URL such as nats://host:4222", o.URL)
	}
	if o.Listen == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return fmt.Errorf("bus: -listen %q: %v (want host:port, e.g. 127.0.0.1:4222 or 0.0.0.0:4222)", o.Listen, err)
	}
	if host == "" {
		return fmt.Errorf("bus: -listen %q has no host (127.0.0.1 for this machine only, 0.0.0.0 for every interface)", o.Listen)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("bus: -listen %q: port %q: %v", o.Listen, port, err)
	}
	if !loopback(host) && o.Token == "" {
		return fmt.Errorf("bus: -listen %s reaches beyond this machine: a token is required (-token, or TABULA_BUS_TOKEN)", o.Listen)
	}
	return nil
}

// loopback reports whether host names this machine only.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// The run folder's bus files: the embedded server's JetStream storage, and
// the address it listened on last (reused at a restart).
const (
	busDir      = "bus"
	busListen   = "listen"
	busURLFile  = "url"
	trainerName = "trainer"
	// configObject is the resolved config in the checkpoint store, for
	// workers that join over the bus.
	configObject = "config.yaml"
)

// busAckWait, when set (by tests), is how long the trainer's consumer
// waits for an ack before a game goes out again; 0 means
// bus.DefaultAckWait. Games fetched by a trainer that was killed come back
// to the next one after it.
var busAckWait time.Duration

// startBus starts the embedded server (unless opt.URL names another) and
// connects to it as the trainer.
func startBus(ctx context.Context, d *runDir, cfg *Config, opt BusOptions, log *slog.Logger) (*bus.Server, *bus.Bus, error) {
	url, token := opt.URL, opt.Token
	var srv *bus.Server
	if url == "" {
		store := d.path(busDir)
		listen := opt.Listen
		last, _ := os.ReadFile(filepath.Join(store, busListen))
		if listen == "" && len(last) > 0 {
			listen = strings.TrimSpace(string(last))
		}
		var err error
		srv, err = bus.StartServer(bus.ServerConfig{Dir: store, Listen: listen, Token: token})
		if err != nil && opt.Listen == "" && listen != "" {
			log.Warn("bus: the run's last port is taken; the server takes a free one (workers must be pointed at it)", "last", listen, "err", err)
			srv, err = bus.StartServer(bus.ServerConfig{Dir: store, Token: token})
		}
		if err != nil {
			return nil, nil, err
		}
		url = srv.URL()
		host, port, _ := net.SplitHostPort(strings.TrimPrefix(url, "nats://"))
		if opt.Listen != "" {
			host, _, _ = net.SplitHostPort(opt.Listen)
		}
		if err := atomicfile.Write(filepath.Join(store, busListen), []byte(net.JoinHostPort(host, port)+"\n")); err != nil {
			srv.Shutdown()
			return nil, nil, err
		}
		if err := atomicfile.Write(filepath.Join(store, busURLFile), []byte(url+"\n")); err != nil {
			srv.Shutdown()
			return nil, nil, err
		}
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	b, err := bus.Connect(cctx, bus.Options{URL: url, Token: token, Name: trainerName, Run: cfg.Bus.Run,
		MaxBytes: cfg.Bus.MaxBytes, MaxAge: cfg.Bus.MaxAge, AckWait: busAckWait, Log: log})
	if err != nil {
		if srv != nil {
			srv.Shutdown()
		}
		return nil, nil, err
	}
	return srv, b, nil
}

// busPublisher publishes games through a bus connection.
type busPublisher struct{ b *bus.Bus }

func (p busPublisher) publish(ctx context.Context, g busGame) error {
	return p.b.PublishGame(ctx, bus.Game{ID: g.ID, Worker: g.Worker, Generation: g.Generation, Data: g.Data})
}

// busFeed reads games through a durable consumer.
type busFeed struct{ c *bus.Consumer }

func (f busFeed) fetch(ctx context.Context, max int, wait time.Duration) ([]feedItem, error) {
	ds, err := f.c.Fetch(ctx, max, wait)
	if err != nil {
		return nil, err
	}
	out := make([]feedItem, len(ds))
	for i, d := range ds {
		out[i] = feedItem{game: busGame{ID: d.Game.ID, Worker: d.Game.Worker, Generation: d.Game.Generation, Data: d.Game.Data}, ack: d.Ack}
	}
	return out, nil
}

// pending is how many games wait in the stream for this feed.
func (f busFeed) pending(ctx context.Context) (uint64, error) { return f.c.Pending(ctx) }

// heartbeatEvery is how often a self-play process reports on the bus;
// a worker not heard from in aliveWithin counts as gone.
const (
	heartbeatEvery = 2 * time.Second
	aliveWithin    = 5 * heartbeatEvery
)

// rateMeter turns cumulative game and position counts into a heartbeat.
type rateMeter struct {
	mu               sync.Mutex
	games, positions int64
	generation       int
	start            time.Time
}

func (r *rateMeter) add(games, positions int) {
	r.mu.Lock()
	r.games += int64(games)
	r.positions += int64(positions)
	r.mu.Unlock()
}

func (r *rateMeter) setGeneration(g int) {
	r.mu.Lock()
	r.generation = g
	r.mu.Unlock()
}

func (r *rateMeter) heartbeat(worker string) bus.Heartbeat {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := bus.Heartbeat{Worker: worker, Games: r.games, Positions: r.positions, Generation: r.generation}
	if s := time.Since(r.start).Seconds(); s > 0 {
		h.PositionsPerSec = float64(r.positions) / s
	}
	return h
}

// heartbeats reports m on b every heartbeatEvery until ctx ends. A failed
// report (the server away) is retried at the next tick.
func heartbeats(ctx context.Context, b *bus.Bus, worker string, m *rateMeter, log *slog.Logger) {
	tick := time.NewTicker(heartbeatEvery)
	defer tick.Stop()
	failed := false
	for {
		hctx, cancel := context.WithTimeout(ctx, heartbeatEvery)
		err := b.Heartbeat(hctx, m.heartbeat(worker))
		cancel()
		if err != nil && ctx.Err() == nil && !failed {
			log.Debug("bus: heartbeat failed; retrying", "err", err)
		}
		failed = err != nil
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// goodbye sends a worker's last heartbeat, marked Gone, so that the trainer
// shows it as exited at once rather than after aliveWithin. It gives up
// after a few seconds (the server away): the worker is then shown gone when
// its heartbeats stop.
func goodbye(b *bus.Bus, worker string, m *rateMeter, log *slog.Logger) {
	h := m.heartbeat(worker)
	h.Gone = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := b.Heartbeat(ctx, h); err != nil {
		log.Debug("bus: goodbye heartbeat failed", "err", err)
	}
}

// isNotFound reports whether err says the bus holds nothing by that name yet.
func isNotFound(err error) bool { return errors.Is(err, bus.ErrNotFound) }

// joinHint is the command line that joins a worker to this run's bus. The
// token itself stays out of logs: the hint names the environment variable
// that selfplay reads it from.
func joinHint(url, run string, token bool) string {
	hint := fmt.Sprintf("selfplay -connect %s -bus-run %s", url, run)
	if token {
		hint += ` -token "$TABULA_BUS_TOKEN"`
	}
	return hint
}
