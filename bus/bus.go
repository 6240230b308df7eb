// Package bus is tabula's data plane over NATS JetStream: self-play workers
// publish finished games to a stream, the trainer consumes them through a
// durable pull consumer with explicit acknowledgement, checkpoints live in
// the JetStream object store, and the best-checkpoint pointer and worker
// heartbeats live in key-value buckets.
//
// One run's resources are namespaced by its run name:
//
//	stream        tabula-RUN-games   subject tabula.RUN.games
//	object store  tabula-RUN-ckpt    checkpoints by name
//	KV bucket     tabula-RUN-best    key "best": the best checkpoint
//	KV bucket     tabula-RUN-workers one key per worker: its latest heartbeat
//
// Delivery of games is at least once: a game can arrive twice (a publish
// retried after a lost ack outside the stream's duplicate window, a
// redelivery after the trainer died before acknowledging). The trainer drops
// repeats by game id with Seen.
//
// StartServer embeds a nats-server, so a single machine needs nothing
// installed; Connect works as well against any NATS 2.9+ server with
// JetStream enabled.
package bus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Options configure a client connection to the bus.
type Options struct {
	// URL of the NATS server, e.g. Server.URL() or nats://host:4222.
	// Required.
	URL string
	// Token authenticates to a server that requires one.
	Token string
	// Name of this client (a worker's name, "trainer"): the default
	// Game.Worker and Heartbeat.Worker, and the connection name the server
	// shows. Letters, digits, '-' and '_'; empty means "tabula".
	Name string
	// Run namespaces the stream, object store and buckets: letters, digits,
	// '-' and '_', at most 64. Required.
	Run string
	// MaxBytes bounds the games stream's storage; the oldest games are
	// discarded past it. 0 keeps the stream's current limit, or
	// DefaultMaxBytes when the stream is created.
	MaxBytes int64
	// MaxAge discards games older than this. 0 keeps the stream's current
	// limit, or DefaultMaxAge when the stream is created.
	MaxAge time.Duration
	// DuplicateWindow is how long the stream remembers game ids to drop a
	// republished game. 0 means DefaultDuplicateWindow (only used when the
	// stream is created, or when MaxBytes or MaxAge update it).
	DuplicateWindow time.Duration
	// AckWait is how long the trainer's consumer waits for an ack before
	// redelivering a game. 0 means DefaultAckWait.
	AckWait time.Duration
	// MaxAckPending bounds the games delivered and not yet acknowledged. 0
	// means DefaultMaxAckPending.
	MaxAckPending int
	// HeartbeatTTL is how long a worker's heartbeat stays listed by Workers
	// after its last update. 0 means DefaultHeartbeatTTL. Used when the
	// bucket is created.
	HeartbeatTTL time.Duration
	// Log receives connection events (disconnected, reconnected) and
	// retries; nil discards them.
	Log *slog.Logger
}

// Defaults for Options' zero fields.
const (
	DefaultMaxBytes        = 4 << 30
	DefaultMaxAge          = 7 * 24 * time.Hour
	DefaultDuplicateWindow = 10 * time.Minute
	DefaultAckWait         = 30 * time.Second
	DefaultMaxAckPending   = 10_000
	DefaultHeartbeatTTL    = 2 * time.Minute
)

// APITimeout bounds a JetStream request whose context has no deadline
// (nats.go's default is 5 s, short for a loaded machine).
const APITimeout = 30 * time.Second

// Bus is one client connection to a run's data plane. It is safe for
// concurrent use. It reconnects forever after the server goes away.
type Bus struct {
	opt     Options
	nc      *nats.Conn
	js      jetstream.JetStream
	log     *slog.Logger
	stream  string
	subject string
	objects jetstream.ObjectStore
	best    jetstream.KeyValue
	workers jetstream.KeyValue

	mu          sync.Mutex
	reconnected chan struct{} // closed and replaced on every reconnect
	// closing is set by Close: the disconnect that Close itself causes is
	// not news, and nats.go reports it on its own goroutine after Close has
	// returned, when the caller's log may be gone.
	closing atomic.Bool
}

// validName reports whether s is 1..max letters, digits, '-' or '_'.
func validName(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			return false
		}
	}
	return true
}

func (o *Options) validate() error {
	if o.URL == "" {
		return errors.New("bus: Options.URL is required (nats://host:port)")
	}
	if _, err := serverHosts(o.URL); err != nil {
		return err
	}
	if !validName(o.Run, 64) {
		return fmt.Errorf("bus: run name %q must be 1-64 letters, digits, '-' or '_'", o.Run)
	}
	if o.Name == "" {
		o.Name = "tabula"
	}
	if !validName(o.Name, 128) {
		return fmt.Errorf("bus: client name %q must be 1-128 letters, digits, '-' or '_'", o.Name)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"MaxAge", o.MaxAge}, {"DuplicateWindow", o.DuplicateWindow}, {"AckWait", o.AckWait}, {"HeartbeatTTL", o.HeartbeatTTL}} {
		if d.v < 0 {
			return fmt.Errorf("bus: Options.%s = %v, want >= 0 (0: default)", d.name, d.v)
		}
	}
	if o.MaxBytes < 0 || o.MaxAckPending < 0 {
		return fmt.Errorf("bus: Options.MaxBytes = %d and MaxAckPending = %d, want >= 0 (0: default)", o.MaxBytes, o.MaxAckPending)
	}
	if o.DuplicateWindow == 0 {
		o.DuplicateWindow = DefaultDuplicateWindow
	}
	if o.MaxAge > 0 && o.DuplicateWindow > o.MaxAge {
		o.DuplicateWindow = o.MaxAge
	}
	if o.AckWait == 0 {
		o.AckWait = DefaultAckWait
	}
	if o.MaxAckPending == 0 {
		o.MaxAckPending = DefaultMaxAckPending
	}
	if o.HeartbeatTTL == 0 {
		o.HeartbeatTTL = DefaultHeartbeatTTL
	}
	return nil
}

// serverHosts parses a NATS server URL, or a comma-separated list of them as
// nats.go takes them, and returns their host names. A scheme other than
// nats://, tls://, ws:// or wss:// (a web address, say) is an error.
func serverHosts(list string) ([]string, error) {
	var hosts []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		full := s
		if !strings.Contains(s, "://") {
			full = "nats://" + s // nats.go reads host:port as nats://host:port
		}
		u, err := url.Parse(full)
		if err != nil {
			return nil, fmt.Errorf("bus: server URL %q: %v (want nats://HOST:PORT)", s, err)
		}
		switch u.Scheme {
		case "nats", "tls", "ws", "wss":
		case "http", "https":
			return nil, fmt.Errorf("bus: server URL %q is a web address: the run's NATS server takes nats://HOST:PORT (4222 unless the trainer says otherwise)", s)
		default:
			return nil, fmt.Errorf("bus: server URL %q: scheme %q, want nats://HOST:PORT (or tls://, ws://, wss://)", s, u.Scheme)
		}
		if u.Hostname() == "" {
			return nil, fmt.Errorf("bus: server URL %q has no host (want nats://HOST:PORT)", s)
		}
		hosts = append(hosts, u.Hostname())
	}
	return hosts, nil
}

// unresolvedTries is how many connection attempts in a row may find that no
// host of the URL resolves (the name server answers "no such host") before
// Connect gives up: a misspelt name does not fix itself.
const unresolvedTries = 3

// unresolvable returns the lookup error of the first host when none of
// hosts resolves because the name server says it does not exist, and nil
// otherwise (an IP address, a host that resolves, or a lookup that failed
// for another reason, such as a name server away, which is worth waiting
// for).
func unresolvable(ctx context.Context, hosts []string) error {
	var first error
	for _, h := range hosts {
		if net.ParseIP(h) != nil {
			return nil
		}
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := net.DefaultResolver.LookupHost(lctx, h)
		cancel()
		var dns *net.DNSError
		if err == nil || !errors.As(err, &dns) || !dns.IsNotFound {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// Connect connects to the server at opt.URL and creates the run's stream,
// object store and buckets where absent (MaxBytes and MaxAge, when set,
// update an existing stream's limits). While the server cannot be reached it
// retries until ctx ends; a server that refuses the credentials is an
// error at once, and a host that does not resolve is one after a few tries.
// Once connected, the client reconnects forever.
func Connect(ctx context.Context, opt Options) (*Bus, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	b := &Bus{
		opt: opt, log: log, reconnected: make(chan struct{}),
		stream:  "tabula-" + opt.Run + "-games",
		subject: "tabula." + opt.Run + ".games",
	}
	nopts := []nats.Option{
		nats.Name(opt.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectJitter(100*time.Millisecond, time.Second),
		nats.Timeout(5 * time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if b.closing.Load() {
				return
			}
			log.Warn("bus: disconnected", "url", opt.URL, "err", err)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("bus: reconnected", "url", nc.ConnectedUrlRedacted())
			b.mu.Lock()
			close(b.reconnected)
			b.reconnected = make(chan struct{})
			b.mu.Unlock()
		}),
	}
	if opt.Token != "" {
		nopts = append(nopts, nats.Token(opt.Token))
	}
	hosts, _ := serverHosts(opt.URL) // checked by validate
	unresolved := 0
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		nc, err := nats.Connect(opt.URL, nopts...)
		if err == nil {
			b.nc = nc
			break
		}
		if errors.Is(err, nats.ErrAuthorization) || strings.Contains(err.Error(), "uthorization") {
			if opt.Token == "" {
				return nil, fmt.Errorf("bus: %s refused the connection: %w (the server requires a token: pass one)", opt.URL, err)
			}
			return nil, fmt.Errorf("bus: %s refused the connection: %w (wrong token)", opt.URL, err)
		}
		if lerr := unresolvable(ctx, hosts); lerr != nil {
			unresolved++
			if unresolved >= unresolvedTries {
				return nil, fmt.Errorf("bus: cannot connect to %s: its host does not resolve after %d tries: %v (check the name, or use the trainer's address as its log prints it)", opt.URL, unresolved, lerr)
			}
		} else {
			unresolved = 0
		}
		log.Warn("bus: cannot reach the server yet, retrying", "url", opt.URL, "err", err)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("bus: connecting to %s: %w (last error: %v)", opt.URL, ctx.Err(), err)
		case <-time.After(wait):
		}
	}
	js, err := jetstream.New(b.nc, jetstream.WithDefaultTimeout(APITimeout))
	if err != nil {
		b.nc.Close()
		return nil, fmt.Errorf("bus: %w", err)
	}
	b.js = js
	if err := b.ensure(ctx); err != nil {
		b.nc.Close()
		return nil, err
	}
	return b, nil
}

// ensure creates the run's stream, object store and buckets where absent.
func (b *Bus) ensure(ctx context.Context) error {
	if err := b.ensureStream(ctx); err != nil {
		return err
	}
	var err error
	b.objects, err = b.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: "tabula-" + b.opt.Run + "-ckpt", Description: "tabula checkpoints of run " + b.opt.Run,
		Storage: jetstream.FileStorage,
	})
	if err != nil {
		return fmt.Errorf("bus: checkpoint store of run %s: %w", b.opt.Run, jsHint(err))
	}
	b.best, err = b.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: "tabula-" + b.opt.Run + "-best", Description: "tabula best checkpoint of run " + b.opt.Run,
		History: 8, Storage: jetstream.FileStorage,
	})
	if err != nil {
		return fmt.Errorf("bus: best bucket of run %s: %w", b.opt.Run, jsHint(err))
	}
	b.workers, err = b.js.KeyValue(ctx, "tabula-"+b.opt.Run+"-workers")
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		b.workers, err = b.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: "tabula-" + b.opt.Run + "-workers", Description: "tabula worker heartbeats of run " + b.opt.Run,
			History: 1, TTL: b.opt.HeartbeatTTL, Storage: jetstream.FileStorage,
		})
		if errors.Is(err, jetstream.ErrBucketExists) {
			b.workers, err = b.js.KeyValue(ctx, "tabula-"+b.opt.Run+"-workers")
		}
	}
	if err != nil {
		return fmt.Errorf("bus: heartbeat bucket of run %s: %w", b.opt.Run, jsHint(err))
	}
	return nil
}

// ensureStream creates the games stream if absent, and updates its limits
// when the options set them and they differ.
func (b *Bus) ensureStream(ctx context.Context) error {
	s, err := b.js.Stream(ctx, b.stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		cfg := jetstream.StreamConfig{
			Name: b.stream, Subjects: []string{b.subject},
			Description: "tabula finished games of run " + b.opt.Run,
			Storage:     jetstream.FileStorage, Retention: jetstream.LimitsPolicy, Discard: jetstream.DiscardOld,
			MaxBytes: b.opt.MaxBytes, MaxAge: b.opt.MaxAge, Duplicates: b.opt.DuplicateWindow,
		}
		if cfg.MaxBytes == 0 {
			cfg.MaxBytes = DefaultMaxBytes
		}
		if cfg.MaxAge == 0 {
			cfg.MaxAge = DefaultMaxAge
		}
		_, err = b.js.CreateStream(ctx, cfg)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			err = nil // created by another client meanwhile
		}
		if err != nil {
			return fmt.Errorf("bus: creating stream %s: %w", b.stream, jsHint(err))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("bus: stream %s: %w", b.stream, jsHint(err))
	}
	cfg := s.CachedInfo().Config
	changed := false
	if b.opt.MaxBytes > 0 && cfg.MaxBytes != b.opt.MaxBytes {
		cfg.MaxBytes, changed = b.opt.MaxBytes, true
	}
	if b.opt.MaxAge > 0 && cfg.MaxAge != b.opt.MaxAge {
		cfg.MaxAge, changed = b.opt.MaxAge, true
		if cfg.Duplicates > cfg.MaxAge {
			cfg.Duplicates = cfg.MaxAge
		}
	}
	if changed {
		if _, err := b.js.UpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("bus: updating the limits of stream %s: %w", b.stream, jsHint(err))
		}
	}
	return nil
}

// jsHint adds what to check when the server has no JetStream.
func jsHint(err error) error {
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
		return fmt.Errorf("%w (is JetStream enabled on the server? nats-server -js)", err)
	}
	return err
}

// Close drains nothing and closes the connection; calls after the first
// are no-ops. Watch channels close once their contexts end.
func (b *Bus) Close() error {
	b.closing.Store(true)
	b.nc.Close()
	return nil
}

// Run returns the run name.
func (b *Bus) Run() string { return b.opt.Run }

// Name returns this client's name.
func (b *Bus) Name() string { return b.opt.Name }

// reconnectSignal returns a channel closed at the next reconnect.
func (b *Bus) reconnectSignal() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reconnected
}
